"""Custom autograd Functions (seeds 000 and 001): Function, FunctionCtx, BackwardCFunction.

The class structure mirrors PyTorch's: ``Function`` over ``_SingleLevelFunction``;
``FunctionMeta`` creates ``<Name>Backward`` (``_backward_cls``), a subclass of
``BackwardCFunction`` that links back through ``_forward_cls``.  One call of
``Function.apply`` instantiates that class: the instance is both the ``ctx``
the user's forward/setup_context/backward see and the graph Node that becomes
the outputs' ``grad_fn`` (PyTorch's THPFunction_apply / process_outputs /
_wrap_outputs path, done here in Python).
"""
from __future__ import annotations

import functools
import inspect
import itertools
import warnings
from typing import Any

import numpy as np

from .._core.state import tls
from .graph import Node, _sequence_nr
from .saved import SavedVariable
from .._core.version import VersionCounter
from .views import _edge
from .._tensor.tensor import Tensor
from ..ops.inplace import check_inplace
from ..ops.api.inplace import make_copy_slices
from .grad_mode import no_grad
from .graph import grad_accumulator
from .._core.hooks import RemovableHandle, _HookDict
from .anomaly_mode import record_traceback
from ..ops.node import _RawSaved
from ..ops.api.copies import stack
from ._function_forward_ad import _checked_jvp, _forward_ad, _version  # noqa: F401

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable",
           "InplaceFunction", "NestedIOFunction"]

_function_ids = itertools.count()


class FunctionCtx:
    """What ``forward``/``setup_context``/``backward`` use to talk to each other."""

    def save_for_backward(self, *tensors):
        """Save tensors (inputs, outputs or intermediates, or None) for backward.

        They are version-checked on access (``ctx.saved_tensors``) and go through
        saved-tensor hooks, unlike tensors stored as plain ctx attributes.
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for ``jvp`` (forward-mode AD)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Mark inputs modified in place by forward (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        warnings.warn("mark_shared_storage is deprecated. Tensors with shared storages are "
                      "automatically tracked.", DeprecationWarning, stacklevel=2)

    def mark_non_differentiable(self, *args):
        """Mark outputs that are not differentiable (their grads arrive as zeros)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether undefined output gradients reach backward as zeros (default True)."""
        self.materialize_grads = bool(value)


class _HookMixin:
    @staticmethod
    def _register_hook(backward_hooks, hook):
        if backward_hooks is None:
            backward_hooks = _HookDict()
        handle = RemovableHandle(backward_hooks)
        backward_hooks[handle.id] = hook
        return backward_hooks, handle


class BackwardCFunction(Node, FunctionCtx, _HookMixin):
    """The graph node of one custom-Function call; also its ``ctx``."""

    _forward_cls = None
    _has_hooks = True        # its backward is user code: the engine's NOTE [Sequence order]
    _runs_user_code = True
    materialize_grads = True
    to_save = ()
    saved_for_forward = ()
    dirty_tensors = ()
    non_differentiable = ()
    needs_input_grad = ()
    _saved_variables = None
    _is_tensor_input = ()
    _out_meta = ()
    _in_jvp = False
    _non_diff_outs = frozenset()         # output indices marked non-differentiable
    _materialize_non_diff_grads = True   # False: their undefined grads reach backward as None

    def __init__(self):
        self._seq = next(_sequence_nr)
        self._next_edges = ()
        if tls.anomaly:  # anomaly mode: every node records where it was created
            record_traceback(self)

    # -- seed 000's BackwardCFunction.apply: choose backward or vjp -----------------
    def apply(self, *args):
        backward_fn = self._forward_cls.backward
        vjp_fn = self._forward_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        user_fn = vjp_fn if vjp_fn is not Function.vjp else backward_fn
        return user_fn(self, *args)

    def apply_jvp(self, *args):
        return self._forward_cls.jvp(self, *args)

    # -- saved tensors ------------------------------------------------------------
    @property
    def saved_tensors(self):
        if self._in_jvp:  # inside jvp, ctx.saved_tensors are those of save_for_forward
            return tuple(self.saved_for_forward)
        sv = self._saved_variables
        if sv is None:
            return ()
        return tuple(None if s is None else s.unpack(self, f"saved_tensors[{i}]", detached_ok=True)
                     for i, s in enumerate(sv))

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self):
        return tuple(None if s is None else _RawSaved(s, self, f"saved_tensors[{i}]")
                     for i, s in enumerate(self._saved_variables or ()))

    def release_variables(self):
        for s in self._saved_variables or ():
            if s is not None:
                s.release()

    # -- the engine's entry point ---------------------------------------------------
    def _apply(self, grads, mask, create_graph):
        batch = self._grads_batch(grads)
        if batch is not None:
            return self._apply_batched(grads, mask, create_graph, batch)
        tgrads = []
        for i, g in enumerate(grads):
            if g is None:
                if self.materialize_grads and i < len(self._out_meta) and \
                        self._out_meta[i] is not None and not (
                            i in self._non_diff_outs and not self._materialize_non_diff_grads):
                    shape, dt = self._out_meta[i]
                    g = Tensor._wrap(np.zeros(shape, dt))
            elif not isinstance(g, Tensor):
                g = Tensor._wrap(g)
            tgrads.append(g)
        result = self.apply(*tgrads)
        if not isinstance(result, tuple):
            result = (result,)
        n_in = len(self._is_tensor_input)
        name = self.name()
        if len(result) != n_in:
            if len(result) > n_in and all(r is None for r in result[n_in:]):
                result = result[:n_in]
            else:
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {n_in}, got {len(result)})")
        out = []
        for i, (is_t, r) in enumerate(zip(self._is_tensor_input, result)):
            if not is_t:
                if r is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at position "
                        f"{i + 1}, but the corresponding forward input was not a Variable")
                continue
            if r is not None and not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__}): "
                                   f"function {name} returned it as the gradient at position "
                                   f"{i + 1}; return a Tensor or None (a tuple for several "
                                   "inputs, not a list)")
            if r is not None and not create_graph:
                r = r._data
            out.append(r)
        return out

    def _grads_batch(self, grads):
        """The batch size if the gradients carry a leading batch dim (``autograd.grad(...,
        is_grads_batched=True)``), else None."""
        meta = self._out_meta
        for i, g in enumerate(grads):
            if g is None or i >= len(meta) or meta[i] is None:
                continue
            s, ms = g.shape, meta[i][0]
            if len(s) == len(ms) + 1 and tuple(s[1:]) == tuple(ms):
                return s[0]
        return None

    def _apply_batched(self, grads, mask, create_graph, batch):
        """Batched gradients: the user's backward sees one sample's gradients at a time, as
        under PyTorch's vmap (it may build zeros of the input's shape, or see materialized
        zeros for unused outputs), and the results are stacked."""
        meta = self._out_meta
        batched = [g is not None and i < len(meta) and meta[i] is not None and
                   len(g.shape) == len(meta[i][0]) + 1 for i, g in enumerate(grads)]
        per = [self._apply([g[b] if bt else g for g, bt in zip(grads, batched)], mask,
                           create_graph)
               for b in range(batch)]
        out = []
        for k in range(len(per[0])):
            rs = [p[k] for p in per]
            some = next((r for r in rs if r is not None), None)
            if some is None:
                out.append(None)
            elif isinstance(some, Tensor):
                out.append(stack([Tensor._wrap(np.zeros_like(some._data)) if r is None else r
                                  for r in rs], 0))
            else:
                out.append(np.stack([np.zeros_like(some) if r is None else np.asarray(r)
                                     for r in rs]))
        return out

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"


class FunctionMeta(type):
    """Creates ``<Name>Backward`` (``_backward_cls``) for every Function subclass."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,),
                           {"_forward_cls": cls, "__module__": "graphgrad.autograd.function"})
        backward_fn._autograd_function_id = next(_function_ids)
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, _HookMixin, metaclass=FunctionMeta):
    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")


class Function(_SingleLevelFunction):
    """Base class of custom autograd operations: subclass it, call ``.apply``."""

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.", DeprecationWarning,
            stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        is_setup_ctx_defined = _is_setup_context_defined(cls.setup_context)
        if is_setup_ctx_defined:
            args = _bind_default_args(cls.forward, *args, **kwargs)
        elif kwargs:
            raise TypeError(f"{cls.__name__}.apply() takes no keyword arguments when forward "
                            "takes ctx (old style); pass them positionally")
        if _vmap_hook is not None:   # inside graphgrad.func.vmap (func/_batching_function.py)
            r = _vmap_hook(cls, args, is_setup_ctx_defined)
            if r is not NotImplemented:
                return r
        return _function_apply(cls, args, is_setup_ctx_defined)

    @staticmethod
    def _compiled_autograd_key(ctx):
        return (ctx._autograd_function_id,)


_vmap_hook = None   # set by graphgrad.func while a vmap level is active


def _is_setup_context_defined(fn):
    return fn is not _SingleLevelFunction.setup_context


def _bind_default_args(func, *args, **kwargs):
    signature = inspect.signature(func)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


# ====================================================================== apply
def _function_apply(cls, args, new_style):
    """THPFunction_apply: run forward without grad, then wire the outputs into the graph."""
    ctx = cls._backward_cls()
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    needs_input_grad = tuple(t and a._requires_grad for t, a in zip(is_tensor, args))
    is_executable = tls.grad_enabled and any(needs_input_grad)
    ctx.needs_input_grad = needs_input_grad
    ctx._is_tensor_input = is_tensor
    if is_executable:
        ctx._next_edges = tuple(_edge(a) if a._requires_grad else (None, 0)
                                for a, t in zip(args, is_tensor) if t)
    else:
        ctx._next_edges = tuple((None, 0) for t in is_tensor if t)

    fw_level = tls.fw_level
    prev = tls.grad_enabled
    tls.grad_enabled = False
    tls.fw_level = None
    tls.refresh()
    try:
        if new_style:
            outputs = cls.forward(*args)
            cls.setup_context(ctx, args, outputs)
        else:
            outputs = cls.forward(ctx, *args)
    finally:
        tls.grad_enabled = prev
        tls.fw_level = fw_level
        tls.refresh()

    is_tuple = isinstance(outputs, tuple)
    outs = list(outputs) if is_tuple else [outputs]
    outs = _wrap_outputs(ctx, args, outs, is_executable)
    _save_variables(ctx, outs)
    if fw_level is not None:
        _forward_ad(cls, ctx, args, is_tensor, outs, fw_level)
    return tuple(outs) if is_tuple else outs[0]


def _alias(t):
    """A new tensor sharing ``t``'s data and version counter (PyTorch's view_as(self))."""
    out = Tensor._wrap(t._data)
    vc = t._vc
    if vc is None:
        vc = t._vc = VersionCounter()
    out._vc = vc
    if t._base is None:
        out._base = t
    else:
        out._base = t._base
        out._view_fn = t._view_fn
    # the view's grad_fn is set now, at the counter's current value (a forward that
    # modified its input without mark_dirty has already bumped it): not a stale view
    out._view_ver = vc.value
    return out


def _wrap_outputs(ctx, args, outs, is_executable):
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    if dirty:
        if any(id(d) not in inputs for d in ctx.dirty_tensors):
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().", UserWarning,
                stacklevel=3)
        out_ids = {id(o) for o in outs}
        if any(id(d) in inputs and id(d) not in out_ids for d in ctx.dirty_tensors):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function.")
        n_tensor_outs = sum(isinstance(o, Tensor) for o in outs)
        if n_tensor_outs > 1 and is_executable and any(
                isinstance(d, Tensor) and d._base is not None and id(d) in inputs
                for d in ctx.dirty_tensors):
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by "
                "the current autograd engine. You should either make sure the input is not a "
                "view (using .clone() for example) or make your Function only return one Tensor "
                "(potentially splitting it into two Functions: one doing the inplace that "
                "returns a single Tensor and a second one that does the other operations).")
    meta = []
    result = []
    n_diff = 0
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            meta.append(None)
            result.append(o)
            continue
        is_input = id(o) in inputs
        is_dirty = id(o) in dirty
        if id(o) in non_diff:
            ctx._non_diff_outs = ctx._non_diff_outs | {i}
        differentiable = is_executable and id(o) not in non_diff and \
            o._data.dtype.kind in "fcV"
        if is_dirty:
            if differentiable:
                check_inplace(o, ctx.name())
            o._bump_version()
        if not differentiable:
            # as PyTorch: an output that does not require grad stays so (an input returned
            # as-is becomes a view of it); one that does is cut from the graph, an input by a
            # detached alias (the input keeps its history, even if dirty), a view not at all
            # (like a view made under no_grad, it still requires grad)
            if not o._requires_grad:
                if is_input and not is_dirty:
                    o = _alias(o)
            elif is_input:
                o = o.detach()
            elif o._base is None:
                o._grad_fn, o._output_nr, o._requires_grad = None, 0, False
        elif is_dirty and o._base is not None:
            o._requires_grad = True
            make_copy_slices(o, _CopySlicesAdapter(ctx, i))
        else:
            if is_input and not is_dirty:
                o = _alias(o)
            o._grad_fn = ctx
            o._output_nr = i
            o._requires_grad = True
        if o._base is not None and not (is_dirty and is_input):
            # a view returned by forward (or an input returned as-is): an in-place change of
            # it would replace the custom backward by the view's, so PyTorch refuses it
            o._view_mode = "custom"
        if differentiable:
            n_diff += 1
        meta.append((o._data.shape, o._data.dtype))
        result.append(o)
    if n_diff > 1:
        # several differentiable outputs: their views are a multi-output op's (PyTorch)
        for o in result:
            if isinstance(o, Tensor) and o._base is not None:
                o._view_mode = "multi"
    ctx._out_meta = tuple(meta)
    return result


class _CopySlicesAdapter:
    """Lets CopySlices drive a custom Function node that modified a view in place."""

    def __init__(self, ctx, output_nr):
        self._ctx, self._nr = ctx, output_nr
        self._next_edges = ctx._next_edges
        self._seq = ctx._seq
        self.metadata = ctx.metadata

    def _apply(self, grads, mask, create_graph):
        full = [None] * max(len(self._ctx._out_meta), 1)
        full[self._nr] = grads[0]
        return self._ctx._apply(full, mask, create_graph)

    def release_variables(self):
        self._ctx.release_variables()


def _save_variables(ctx, outs):
    to_save = ctx.to_save
    if not to_save:
        return
    out_ids = {id(o): o for o in outs if isinstance(o, Tensor)}
    saved = []
    for i, t in enumerate(to_save):
        if t is None:
            saved.append(None)
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of "
                            f"type {type(t).__name__}")
        is_output = id(t) in out_ids and t._grad_fn is ctx
        sv = SavedVariable(t, is_output)
        if tls.extras_on:
            if tls.saved_hooks:
                sv.pack_with_hooks()
        saved.append(sv)
    ctx._saved_variables = saved
    del ctx.to_save


# ====================================================================== once_differentiable
def once_differentiable(fn):
    """Run ``backward`` without recording; a later double backward raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not tls.grad_enabled:
            return outputs
        requires_grad = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires_grad:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = Error(
            "trying to differentiate twice a function that was marked with "
            "@once_differentiable", len(outs))
        # As in PyTorch, the error node hangs on detached copies of the outputs that are
        # made to require grad (fresh leaves), not on the backward's inputs: a later
        # autograd.grad w.r.t. the original inputs finds them unused, and only a backward
        # that actually reaches this node raises.
        edges = []
        for o in outs:
            if isinstance(o, Tensor):
                leaf = Tensor._wrap(o._data)
                leaf._requires_grad = o._data.dtype.kind in "fcV"
                edges.append((grad_accumulator(leaf), 0) if leaf._requires_grad else (None, 0))
            else:
                edges.append((None, 0))
        err._next_edges = tuple(edges)
        wrapped = []
        for i, o in enumerate(outs):
            if isinstance(o, Tensor):
                o = _alias(o)
                o._base = None
                o._grad_fn, o._output_nr, o._requires_grad = err, i, True
            wrapped.append(o)
        err._out_meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                              for o in wrapped)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


class Error(Node):
    """A node that raises when backward reaches it (once_differentiable's guard; PyTorch's
    DelayedError makes a node of this class name, ``torch::autograd::Error``)."""

    def __init__(self, msg, num_outputs):
        self._msg = msg
        self._seq = next(_sequence_nr)
        self._next_edges = ()

    def name(self):
        return "torch::autograd::Error"

    def _apply(self, grads, mask, create_graph):
        raise RuntimeError(self._msg)
