"""The backward graph: Node, Edge, AccumulateGrad, GradientEdge (seeds 002/003).

A Node is one backward function.  Its next edges -- PyTorch's
``next_functions``, ``(node, input_nr)`` pairs with ``(None, 0)`` for an input
that does not require grad -- are stored flat, as two tuples ``_next_nodes``
and ``_next_nrs`` (one shared tuple of zeros in the common case), so that
recording an op allocates one tuple for its edges instead of one per edge;
``_next_edges`` reads and writes them as pairs.  A Node also records
the metadata (shape, dtype) of each forward output it is the ``grad_fn`` of
(PyTorch's ``input_metadata``), which the engine uses to validate gradients.

Rarely used state (hooks, metadata dict, anomaly traceback) lives in the
instance ``__dict__`` with class-level defaults, so creating a node on the hot
path sets only its three slots (and a generated class's saved-value slots).
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any, NamedTuple

from .._core.hooks import add_hook
from .anomaly_mode import record_traceback

__all__ = ["Node", "Edge", "GradientEdge", "get_gradient_edge", "AccumulateGrad",
           "register_multi_grad_hook"]

_sequence_nr = itertools.count()
# AccumulateGrad runs as soon as it is ready: PyTorch gives it sequence_nr UINT64_MAX
# (see NOTE [Ready queue order] in engine.py)
_ACCUMULATE_SEQ = (1 << 64) - 1


_ZEROS = [()]


def zeros(n):
    """The shared tuple of ``n`` zeros: the ``_next_nrs`` of a node whose edges all feed
    input 0 of their next node (almost every node).  Only short tuples are shared: a node
    with thousands of edges (a cat/stack of a long list) gets its own, so the table does not
    grow with user data (sharing every length up to n kept O(n^2) zeros alive)."""
    if n >= len(_ZEROS):
        if n > 64:
            return (0,) * n
        while len(_ZEROS) <= n:
            _ZEROS.append((0,) * len(_ZEROS))
    return _ZEROS[n]


class Edge(NamedTuple):
    """An edge of the graph: the next node and which of its inputs we feed."""
    function: Any
    input_nr: int


class GradientEdge(NamedTuple):
    """Where a tensor's gradient flows into the graph (``get_gradient_edge``)."""
    node: Any
    output_nr: int


class Node:
    """A backward function; subclasses implement ``apply``."""

    __slots__ = ("_next_nodes", "_next_nrs", "_seq", "__dict__", "__weakref__")

    _out_meta = ()            # ((shape, np_dtype), ...) per forward output
    _pre_hooks = None         # {handle_id: fn(grad_outputs)}
    _post_hooks = None        # {handle_id: fn(grad_inputs, grad_outputs)}
    _tensor_pre_hooks = None  # {output_nr: {handle_id: fn(grad)}}
    _retains_grad_hooks = None  # {output_nr: fn(grad)}
    _metadata = None
    _released = False
    _has_hooks = False        # a hook (or user code, below) is on it: the engine's test
    _exact_outs = False       # True where _step/_apply always give one gradient per edge
    # runs user code when applied (a custom Function's backward, saved-tensor unpack
    # hooks); such a node also sets _has_hooks (engine NOTE [Sequence order])
    _runs_user_code = False

    # -- what the engine calls ------------------------------------------------
    def _apply(self, grads, mask, create_graph):
        """Gradients w.r.t. each next edge, from the gradients of our outputs.

        ``grads`` is a list with one entry per forward output (``None`` where no
        gradient flowed); entries are ndarrays, or Tensors when ``create_graph``.
        ``mask[i]`` says whether next edge ``i`` needs its gradient; ``mask`` is
        None when every edge that leads to a node does (see ``needs_mask``).
        """
        raise NotImplementedError(f"{self.name()}.apply is not implemented")

    def release_variables(self):
        pass

    def _step(self, grads, keep_graph):
        """The engine's plain-backward call: ``_apply`` (every connected edge, no
        create_graph), then free the saved variables unless the graph is kept.  Generated
        node classes fuse the two."""
        outs = self._apply(grads, None, False)
        if not keep_graph:
            self.release_variables()
        return outs

    @property
    def _next_edges(self):
        return tuple(zip(self._next_nodes, self._next_nrs))

    @_next_edges.setter
    def _next_edges(self, edges):
        self._next_nodes = tuple([e[0] for e in edges])
        self._next_nrs = zeros(len(edges)) if all(e[1] == 0 for e in edges) else \
            tuple([e[1] for e in edges])

    def needs_mask(self, mask):
        """``mask`` as a list (the engine passes None for "every connected edge")."""
        if mask is None:
            return [n is not None for n in self._next_nodes]
        return mask

    def input_metadata(self, nr):
        return self._out_meta[nr]

    @property
    def num_outputs(self):
        return len(self._out_meta)

    # -- PyTorch's public Node API --------------------------------------------
    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return self._next_edges

    @property
    def metadata(self):
        m = self._metadata
        if m is None:
            m = self._metadata = {}
        return m

    def _sequence_nr(self):
        return self._seq

    def _topological_nr(self):
        """Longest path to a leaf (0 for AccumulateGrad), computed without recursion."""
        memo = {}
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if node in memo:
                continue
            children = [c for c in node._next_nodes if c is not None]
            if expanded or not children:
                memo[node] = 1 + max((memo[c] for c in children), default=-1)
                continue
            stack.append((node, True))
            stack.extend((c, False) for c in children if c not in memo)
        return memo[self]

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        self._has_hooks = True
        return add_hook(self, "_post_hooks", fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        self._has_hooks = True
        return add_hook(self, "_pre_hooks", fn)

    def _register_tensor_pre_hook(self, output_nr, fn):
        self._has_hooks = True
        hooks = self._tensor_pre_hooks
        if hooks is None:
            hooks = self._tensor_pre_hooks = {}
        d = hooks.get(output_nr)
        if d is None:
            d = hooks[output_nr] = _HookDict()
        handle = RemovableHandle(d)
        d[handle.id] = fn
        return handle

    def _set_retains_grad_hook(self, output_nr, fn):
        self._has_hooks = True
        if self._retains_grad_hooks is None:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = fn

    def __call__(self, *grads):
        """Run this backward function directly on Tensors (PyTorch allows it)."""
        n = len(self._out_meta)
        if len(grads) != n:
            raise TypeError(f"expected {n} arguments, got {len(grads)} instead ({self.name()} "
                            f"takes one gradient per output of the forward op)")
        grads = [g if (g is None or isinstance(g, Tensor)) else Tensor._wrap(g) for g in grads]
        mask = tuple(n is not None for n in self._next_nodes)
        out = self._apply(list(grads), mask, True if tls.grad_enabled else None)
        out = tuple(None if g is None else (g if isinstance(g, Tensor) else Tensor._wrap(g))
                    for g in out)
        return out[0] if len(out) == 1 else out

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The sink of a leaf tensor: accumulates into ``variable.grad`` (seed 002 §4.5.1.2).

    The leaf holds it weakly, it holds the leaf strongly, as in PyTorch.
    The engine performs the accumulation itself (see engine._accumulate_grad).
    """

    __slots__ = ("variable",)
    # not a hook: AccumulateGrad always takes the engine's general path (it accumulates
    # into .grad and runs the leaf's hooks), and this one flag is what the engine tests
    _has_hooks = True

    def __init__(self, variable):
        # (a leaf's AccumulateGrad is made again by every graph that uses the leaf once the
        # previous graph is gone: its slots directly, and ``tls`` read only off a plain
        # thread, NOTE [hot flags])
        self.variable = variable
        self._next_nodes = ()
        self._next_nrs = ()
        self._seq = _ACCUMULATE_SEQ
        if not ALL_THREADS.plain and tls.anomaly:  # anomaly mode: every node records
            record_traceback(self)                 # where it was created

    def name(self):
        return "torch::autograd::AccumulateGrad"

    @property
    def _out_meta(self):
        d = self.variable._data  # read live: .data may have been swapped
        return ((d.shape, d.dtype),)

    def input_metadata(self, nr):
        d = self.variable._data
        return (d.shape, d.dtype)

    @property
    def num_outputs(self):
        return 1


def grad_accumulator(t):
    """The leaf's AccumulateGrad, created on first use and held weakly by the tensor."""
    ref = t._acc
    if ref is not None:
        acc = ref()
        if acc is not None:
            return acc
    acc = AccumulateGrad(t)
    t._acc = weakref.ref(acc)
    return acc


def gradient_edge(t):
    """(node, input_nr) through which gradient reaches tensor ``t`` (seed 002)."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (grad_accumulator(t), 0)


def get_gradient_edge(tensor):
    """The GradientEdge of ``tensor``, usable as ``inputs=`` of grad/backward."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients")
    if tensor._grad_fn is None and tensor._vc is not None and getattr(tensor._vc, "inference", False):
        raise RuntimeError("get_gradient_edge is not supported for inference tensors")
    return GradientEdge(*gradient_edge(tensor))


def next_sequence_nr():
    return next(_sequence_nr)


# ------------------------------------------------------------------ multi-tensor hooks
class _MultiHandle:
    """Handle of ``register_multi_grad_hook``: ``remove()`` removes every per-tensor hook."""

    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward pass with the gradients of several tensors.

    Args:
        tensors: the tensors to watch (leaves or not; each must require grad in "all" mode).
        fn: in ``mode="all"``, ``fn(grads)`` runs after the gradients of every watched
            tensor that this backward computes are ready; ``grads`` has one entry per
            tensor, None for those the backward does not reach.  In ``mode="any"``,
            ``fn(grad)`` runs once, with the first watched gradient computed.
            Its return value is ignored.
        mode: "all" or "any".

    Returns:
        A handle whose ``remove()`` unregisters the hook.

    Example::

        >>> import graphgrad as torch
        >>> a = torch.ones(2, requires_grad=True); b = torch.ones(2, requires_grad=True)
        >>> h = torch.autograd.graph.register_multi_grad_hook(
        ...     (a, b), lambda grads: print([g is None for g in grads]))
        >>> (a * 2).sum().backward()
        [False, True]
    """
    import threading
    from . import engine

    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    lock = threading.Lock()
    tensors = tuple(tensors)

    if mode == "all":
        n = len(tensors)
        nodes = []
        for t in tensors:
            if not t.requires_grad:
                raise AssertionError("Expected gradient function to be set (every tensor given "
                                     "to register_multi_grad_hook must require grad)")
            nodes.append(gradient_edge(t)[0])
        count, buffer, nb_calls = {}, {}, {}

        def get_inner_hook(idx):
            def inner_hook(grad):
                task = engine.current_graph_task_id()
                with lock:
                    curr = count.get(task, 0)
                    count[task] = curr + 1
                    if curr == 0:  # first watched gradient of this backward
                        buffer[task] = [None] * n
                        nb_calls[task] = sum(
                            1 for node in nodes if engine.will_engine_execute_node(node))
                buffer[task][idx] = grad
                if curr == nb_calls[task] - 1:
                    grads = buffer.pop(task)
                    del count[task], nb_calls[task]
                    fn(grads)
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
        # keep the grad accumulators of watched leaves alive while the hook is registered
        return _MultiHandleWithNodes(handles, nodes)

    ran = {}

    def wrapped_fn(grad):
        task = engine.current_graph_task_id()
        with lock:
            prev = ran.get(task, False)
            ran[task] = True
        if not prev:
            fn(grad)

    return _MultiHandle(tuple(t.register_hook(wrapped_fn) for t in tensors
                              if t.requires_grad))


class _MultiHandleWithNodes(_MultiHandle):
    __slots__ = ("nodes",)

    def __init__(self, handles, nodes):
        super().__init__(handles)
        self.nodes = nodes


from ._saved_hooks import (allow_mutation_on_saved_tensors, disable_saved_tensors_hooks,
                           save_on_cpu, saved_tensors_hooks)


from ._misc import increment_version  # noqa: E402,F401  (torch.autograd.graph.increment_version)
from .._core.hooks import RemovableHandle, _HookDict
from .._tensor.tensor import Tensor
from .._core.state import ALL_THREADS, tls
