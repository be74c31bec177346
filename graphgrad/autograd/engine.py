"""The backward engine (seed 003 §4): dependency counting, then a ready queue.

``execute`` runs iteratively -- no recursion on graph depth:

1. ``_compute_dependencies``: walk the graph once from a GraphRoot, counting
   for each node how many edges point at it.
2. ``_compute_needed`` (only with ``inputs=``): mark the nodes that lead to a
   requested input; only they run.
3. The loop pops the ready node with the highest ``sequence_nr`` (later ops
   first; AccumulateGrad first of all, like PyTorch), runs tensor pre-hooks,
   captures requested gradients, node pre-hooks, the node, node post-hooks,
   frees its saved variables unless ``retain_graph``, validates each produced
   gradient against the next node's input metadata (summing away
   broadcasting, casting dtype) and adds it into that node's input buffer.

Gradients are ndarrays in an ordinary backward and Tensors when
``create_graph=True``; user hooks always see Tensors.  Accumulation into a
leaf's ``.grad`` is journaled so that a backward that fails leaves every
``.grad`` as it was.
"""
from __future__ import annotations

import gc
import itertools
import sys
import threading

import numpy as np

from .._state import HOT, tls
from .._tensor import Tensor
from .graph import AccumulateGrad, Node

_wrap = Tensor._wrap
_ndarray = np.ndarray
_grad_lock = threading.RLock()


class GraphRoot(Node):
    """A virtual node whose outputs are the gradients given for the roots."""

    __slots__ = ("_grads",)

    def __init__(self, edges, grads):
        self._next_edges = tuple(edges)
        self._grads = grads
        self._seq = 1 << 63

    def _apply(self, grads, mask, create_graph):
        return list(self._grads)

    @property
    def _out_meta(self):
        return ()


def _compute_dependencies(root):
    deps = {}
    get = deps.get
    stack = [root]
    push = stack.append
    pop = stack.pop
    while stack:
        for child in pop()._next_nodes:
            if child is not None:
                n = get(child)
                if n is None:
                    deps[child] = 1
                    push(child)
                else:
                    deps[child] = n + 1
    return deps


def _compute_needed(root, deps, targets):
    """Nodes from which some target node can be reached (those must run)."""
    # topological order by Kahn's algorithm (parents before children), then reverse
    remaining = dict(deps)
    order = [root]
    i = 0
    while i < len(order):
        node = order[i]
        i += 1
        for child in node._next_nodes:
            if child is None:
                continue
            remaining[child] -= 1
            if remaining[child] == 0:
                order.append(child)
    needed = set()
    for node in reversed(order):
        for child in node._next_nodes:
            if child is not None and (child in targets or child in needed):
                needed.add(node)
                break
    return needed


def _to_tensor(g):
    return g if g is None or isinstance(g, Tensor) else _wrap(g)


def _from_tensor(r, create_graph):
    if r is None or create_graph:
        return r
    return r._data if isinstance(r, Tensor) else r


def _call_tensor_pre_hooks(hooks, g, create_graph):
    # (called for an undefined gradient too, with None, as PyTorch does)
    for fn in tuple(hooks.values()):
        r = fn(_to_tensor(g))
        if r is not None:
            if g is None:
                raise RuntimeError(
                    f"can't replace a None gradient with a non-None value (hook "
                    f"{_hook_name(fn)!r} was called with None, for an output whose gradient "
                    "is undefined; return None for it)")
            if not isinstance(r, Tensor):
                raise TypeError(f"expected Tensor, but hook {_hook_name(fn)!r} returned "
                                f"{type(r).__name__!r}")
            g = _from_tensor(_check_hook_value(fn, r, g), create_graph)
    return g


def _hook_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _check_hook_value(fn, new, old):
    """A gradient returned by a hook must keep the size and dtype of the one it replaces."""
    if new is None or old is None:
        return new
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Tensor or None, but hook {_hook_name(fn)!r} returned "
                        f"{type(new).__name__!r} in its tuple")
    od = old._data if isinstance(old, Tensor) else old
    nd = new._data
    if nd.shape != od.shape:
        raise RuntimeError(f"hook {_hook_name(fn)!r} has changed the size of value (was "
                           f"{list(od.shape)}, got {list(nd.shape)})")
    if nd.dtype != od.dtype:
        raise RuntimeError(f"hook {_hook_name(fn)!r} has changed the type of value (was "
                           f"{od.dtype} got {nd.dtype})")
    return new


def _check_hook_tuple(fn, r, old):
    if not isinstance(r, tuple):
        raise TypeError(f"expected tuple, but hook {_hook_name(fn)!r} returned "
                        f"{type(r).__name__!r}")
    if len(r) != len(old):
        raise RuntimeError(f"hook {_hook_name(fn)!r} has returned an incorrect number of "
                           f"values (got {len(r)}, but expected {len(old)})")
    return tuple(_check_hook_value(fn, n, o) for n, o in zip(r, old))


def _run_tensor_hooks(node, grads, create_graph, journal):
    tph = node._tensor_pre_hooks
    if tph:
        for nr, hooks in tph.items():
            if hooks:
                grads[nr] = _call_tensor_pre_hooks(hooks, grads[nr], create_graph)
    rgh = node._retains_grad_hooks
    if rgh:
        for nr, fn in rgh.items():
            if grads[nr] is not None:
                t = fn.tensor_ref() if hasattr(fn, "tensor_ref") else None
                if t is not None:  # the non-leaf's .grad is rolled back too on failure
                    journal.entries.append((t, t._grad, None))
                fn(_to_tensor(grads[nr]))


def _sum_to_shape(node, i, g, gs, shape, batch_nd):
    from .._ops import formulas as F
    out = gs[batch_nd:]
    ok = len(out) >= len(shape) and all(
        s == 1 or s == o for s, o in zip(shape[::-1], out[::-1]))
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(gs)} but expected shape compatible with {list(shape)}")
    return F.sum_to(g, shape, len(out))


def _cast(g, dt, create_graph):
    if create_graph:
        from .._ops import formulas as F
        if g._data.dtype.kind == "c" and dt.kind != "c":
            g = F.real(g)
        return F.cast(g, dt) if g._data.dtype != dt else g
    if g.dtype.kind == "c" and dt.kind != "c":
        g = g.real
    # PyTorch's to(dtype) keeps a dense layout and makes anything else (an expanded
    # gradient, say) row-major; NumPy's astype would keep a broadcast array's odd order
    return g.astype(dt) if _dense(g) else g.astype(dt, order="C")


class _Journal:
    """Undo log for ``.grad`` so that a failing backward leaves no partial update."""

    __slots__ = ("entries",)

    def __init__(self):
        self.entries = []

    def rollback(self):
        for var, old_grad, old_data in reversed(self.entries):
            var._grad = old_grad
            if old_data is not None:
                old_grad._data = old_data


def _accumulate_grad(node, g, create_graph, journal):
    """AccumulateGrad: add ``g`` into ``variable.grad`` (seed 004 "default gradient layout")."""
    var = node.variable
    if g is None:
        return
    # the read-modify-write of .grad is atomic across threads (PyTorch locks each leaf's
    # AccumulateGrad): two backwards into one leaf would otherwise lose updates
    _grad_lock.acquire()  # (acquire/release: half the cost of a with statement)
    try:
        old = var._grad
        if old is None:
            if create_graph:
                # a copy that obeys the layout contract, recorded (CopyBackwards) like PyTorch's
                # clone_obey_contract, so the new .grad is differentiable but not g itself
                from .._ops.inplace import copy_
                new = copy_(_wrap(_empty_for_grad(var._data)), g)
            else:
                # steal a freshly computed gradient that obeys the layout contract, copy one
                # that may alias something else or is laid out otherwise
                d = var._data
                if g.base is None and sys.getrefcount(g) <= 3 and g.flags.writeable and \
                        _obeys_layout(g, d):
                    new = _wrap(g)
                else:
                    new = _empty_for_grad(d)
                    np.copyto(new, g)
                    new = _wrap(new)
            journal.entries.append((var, None, None))
            var._grad = new
        elif create_graph:
            journal.entries.append((var, old, None))
            var._grad = old + (g if isinstance(g, Tensor) else _wrap(g))
        else:
            # in place for the Tensor object (same .grad, keeping its grad_fn if it has one),
            # the array swapped (same layout) so that a rollback is exact
            od = old._data
            journal.entries.append((var, old, od))
            if od.shape == g.shape:
                old._data = np.add(od, g, out=np.empty_like(od))
            else:
                old._data = od + g
            old._bump_version()
    finally:
        _grad_lock.release()
    if var._post_acc_hooks:
        for fn in tuple(var._post_acc_hooks.values()):
            if fn(var) is not None:
                raise RuntimeError(
                    "Tensor post accumulate grad hooks should return None (the hook "
                    f"{getattr(fn, '__name__', fn)!r} returned a value; modify tensor.grad "
                    "in place instead).")


def _dense(d):
    """Non-overlapping and dense: some order of the dims (positive strides) is contiguous."""
    if d.flags.c_contiguous or d.flags.f_contiguous:
        return True
    expected = d.itemsize
    for stride, n in sorted((s, n) for s, n in zip(d.strides, d.shape) if n > 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _obeys_layout(g, d):
    """PyTorch's layout contract for a leaf's .grad: the leaf's strides when the leaf is
    non-overlapping and dense, row-major otherwise (sizes-1 dims' strides do not count)."""
    if d.flags.c_contiguous or not _dense(d):
        return g.flags.c_contiguous
    return all(gs == ds for gs, ds, n in zip(g.strides, d.strides, d.shape) if n > 1)


def _empty_for_grad(d):
    """An uninitialised array for a new .grad of a leaf holding ``d``, laid out as the
    contract wants (``empty_like`` keeps the order of a dense array's dims)."""
    if d.flags.c_contiguous or not _dense(d):
        return np.empty(d.shape, d.dtype)
    return np.empty_like(d)


def execute(roots, grad_outputs, keep_graph, create_graph, inputs=None, accumulate=True,
            batch_nd=0):
    """Run backward from ``roots`` (edges) seeded with ``grad_outputs``.

    inputs: edges whose gradients are wanted (autograd.grad, or backward(inputs=)).
    accumulate: True for backward (AccumulateGrad runs), False for grad (capture only).
    Returns the captured gradients, one per input edge (None when unreached).
    """
    if tls.engine_depth and _deep_reentrant():
        return _execute_on_fresh_thread(roots, grad_outputs, keep_graph, create_graph, inputs,
                                        accumulate, batch_nd)
    root = GraphRoot(roots, grad_outputs)
    anomaly = tls.anomaly
    # a plain backward runs its nodes in decreasing sequence_nr with no dependency counts
    # (NOTE [Sequence order]); anything that needs the counts takes the counting loop
    by_seq = inputs is None and not create_graph and not anomaly and not HOT.hooks
    deps = None if by_seq else _compute_dependencies(root)
    captures = None
    needed = None
    captured = None
    if inputs is not None:
        captured = [None] * len(inputs)
        captures = {}
        targets = set()
        for k, (node, nr) in enumerate(inputs):
            if node is None:
                continue
            captures.setdefault(node, []).append((nr, k))
            targets.add(node)
        needed = _compute_needed(root, deps, targets)
        needed.add(root)
        if accumulate:
            # backward(inputs=...) runs each input's node (PyTorch's init_to_execute marks
            # them all needed): a non-leaf input's node pre-hooks run too
            needed.update(targets)
    prev_mode = tls.grad_enabled
    prev_saved_hooks = tls.saved_hooks
    tls.grad_enabled = bool(create_graph)
    tls.engine_depth += 1
    journal = _Journal()
    prev_task = getattr(_local, "task", None)
    _local.task = task = [next(_task_ids), deps, needed, captures, accumulate, root, []]
    # A backward allocates and frees many short-lived objects but creates no cycles; left
    # on, the cyclic collector would repeatedly walk the whole heap (the graph, and every
    # module the program imported) while the graph is being consumed.
    gc_was_enabled = gc.isenabled()
    if gc_was_enabled:
        gc.disable()
    try:
        if by_seq:
            _run_by_seq(root, keep_graph, batch_nd, journal)
        else:
            _run(root, deps, needed, captures, captured, keep_graph, create_graph, batch_nd,
                 accumulate, journal, anomaly)
        if task[6]:
            _run_final_callbacks(task[6])
    except BaseException as exc:
        journal.rollback()
        if anomaly:  # report the forward traceback of the node that failed
            from .anomaly_mode import report_backward_error
            report_backward_error(exc, _run.__code__)
        raise
    finally:
        if gc_was_enabled:
            gc.enable()
        tls.grad_enabled = prev_mode
        if tls.saved_hooks is not prev_saved_hooks:  # a hook entered/left a context
            tls.saved_hooks = prev_saved_hooks
            tls.refresh()
        tls.engine_depth -= 1
        _local.task = prev_task
    return captured


# -- reentrant backward (backward called from inside a backward) ----------------------
# Each nested backward adds a few Python frames; a chain of 2000 nested backwards would
# exhaust the recursion limit.  Like PyTorch's engine, which moves a reentrant backward
# to a pool thread (a fresh stack) past a maximum depth, a nested backward past
# _REENTRANT_MAX_DEPTH levels on one thread (or on an already deep stack) runs on a new
# thread while the calling thread waits for it.  The new thread gets the caller's
# thread-local autograd state (grad mode, saved-tensor hooks, anomaly mode, forward AD
# level...), as PyTorch's GraphTask carries its ThreadLocalState.
_REENTRANT_MAX_DEPTH = 32
_TLS_FIELDS = ("_grad_enabled", "inference", "fw_level", "anomaly", "anomaly_check_nan",
               "saved_hooks", "saved_hooks_disabled", "profiler", "mutation_ctx")


def _deep_reentrant():
    if tls.engine_depth >= _REENTRANT_MAX_DEPTH:
        return True
    try:  # a stack already more than half as deep as the recursion limit allows
        sys._getframe(sys.getrecursionlimit() // 2)
    except ValueError:
        return False
    return True


def _execute_on_fresh_thread(*args):
    state = [(name, getattr(tls, name)) for name in _TLS_FIELDS]
    outcome = []

    def work():
        for name, value in state:
            setattr(tls, name, value)
        tls.refresh()
        try:
            outcome.append((True, execute(*args)))
        except BaseException as exc:  # noqa: BLE001 -- re-raised on the calling thread
            outcome.append((False, exc))

    worker = threading.Thread(target=work, name="graphgrad-reentrant-backward", daemon=True)
    worker.start()
    worker.join()
    ok, value = outcome[0]
    if not ok:
        try:
            raise value
        finally:
            value = None
    return value


# -- what hooks may ask about the running backward (PyTorch's torch._C helpers) ----------
_local = threading.local()   # .task: [id, deps, needed, captures, accumulate, root,
_task_ids = itertools.count()  #        final callbacks] or None


def queue_callback(callback):
    """Run ``callback()`` once the backward running on this thread has finished with the
    graph (PyTorch's ``Variable._execution_engine.queue_callback``).  A callback queued
    inside a reentrant backward belongs to that inner backward; callbacks may queue more
    callbacks, which run in the same pass."""
    task = getattr(_local, "task", None)
    if task is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    task[6].append(callback)


def _run_final_callbacks(callbacks):
    # run in queue order; a callback may append to the list while it is being walked
    i = 0
    while i < len(callbacks):
        callbacks[i]()
        i += 1


def current_graph_task_id():
    """Id of the backward call running on this thread, -1 outside backward."""
    task = getattr(_local, "task", None)
    return -1 if task is None else task[0]


def will_engine_execute_node(node):
    """Whether the running backward will execute ``node`` (its hooks will run)."""
    task = getattr(_local, "task", None)
    if task is None:
        raise RuntimeError("_will_engine_execute_node should only be called during the "
                           "backward pass")
    _, deps, needed, captures, accumulate, root, _ = task
    if needed is None:
        if deps is None:  # a backward run by sequence order: count on demand
            deps = task[1] = _compute_dependencies(root)
        return node in deps
    if node in needed:
        return True
    if node in captures:
        if node.__class__ is AccumulateGrad and not accumulate:
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported.")
        return True
    return False


def _run(root, deps, needed, captures, captured, keep_graph, create_graph, batch_nd,
         accumulate, journal, anomaly):
    buffers = {}
    heap = [(root._seq, root)]
    ndarray = _ndarray
    getrefcount = sys.getrefcount
    # a plain backward (no inputs=, no create_graph, no anomaly mode): nodes without hooks
    # take the short path below; everything else goes through the general one
    plain = needed is None and not create_graph and not anomaly
    Acc = AccumulateGrad
    # nodes whose buffered gradient for input 0 is an array this loop made or checked
    # (nothing else refers to it): later gradients are added into it in place
    owned = set()
    while heap:
        n = len(heap)
        if n == 1:
            node = heap.pop()[1]
        elif n == 2:  # (_heap_pop on two entries: the last one moves to the top)
            node = heap[0][1]
            heap[0] = heap.pop()
        else:
            node = _heap_pop(heap)
        grads = buffers.pop(node, None)
        if plain and not node._has_hooks:  # (True for every AccumulateGrad)
            if grads is None:
                grads = [None] * max(node.num_outputs, 1)
            while True:
                outs = node._step(grads, keep_graph)
                nodes = node._next_nodes
                if len(outs) != len(nodes):
                    raise RuntimeError(f"function {node.name()} returned an incorrect number "
                                       f"of gradients (expected {len(nodes)}, got {len(outs)})")
                if heap:
                    break
                # a chain: the only child, fed by this edge alone, is the next node to run
                # (nothing else is ready), so hand it the gradient without queueing it
                ne = len(nodes)
                if ne == 1:
                    k = 0
                elif ne == 2:  # e.g. x * 2.0: the scalar operand has no edge
                    k = 0 if nodes[1] is None else (1 if nodes[0] is None else -1)
                    if k < 0:
                        break
                else:
                    break
                child = nodes[k]
                nr = node._next_nrs[k]
                if child is None or child._has_hooks or deps[child] != 1 or \
                        child in buffers:
                    break
                g = outs[k]
                if g is not None:
                    if g.__class__ is not ndarray:
                        g = g._data if isinstance(g, Tensor) else np.asarray(g)
                    shape, dt = child._out_meta[nr]
                    if g.shape != shape and g.shape[batch_nd:] != shape:
                        g = _sum_to_shape(node, k, g, g.shape, shape, batch_nd)
                    if g.dtype is not dt and g.dtype != dt:
                        g = _cast(g, dt, False)
                # (deps[child] stays 1: nothing reads a count once its node has run)
                n = len(child._out_meta)
                if n == 1:
                    grads = [g]
                else:
                    grads = [None] * n
                    grads[nr] = g
                node = child
                outs = g = None
            nrs = node._next_nrs
            i = -1
            for child in nodes:
                i += 1
                if child is None:
                    continue
                nr = nrs[i]
                g = outs[i]
                if g is not None:
                    if g.__class__ is not ndarray:
                        g = g._data if isinstance(g, Tensor) else np.asarray(g)
                    if child.__class__ is Acc:  # (its _out_meta property, without the call)
                        d = child.variable._data
                        shape = d.shape
                        dt = d.dtype
                    else:
                        shape, dt = child._out_meta[nr]
                    if g.shape != shape and g.shape[batch_nd:] != shape:
                        g = _sum_to_shape(node, i, g, g.shape, shape, batch_nd)
                    if g.dtype is not dt and g.dtype != dt:
                        g = _cast(g, dt, False)
                n = deps[child] - 1
                deps[child] = n
                buf = buffers.get(child)
                if buf is None:
                    buf = buffers[child] = [None] * (1 if child.__class__ is Acc
                                                     else len(child._out_meta))
                if g is not None:
                    prev = buf[nr]
                    if prev is None:
                        buf[nr] = g
                    elif nr == 0 and child in owned:
                        prev += g  # (same shape and dtype: both were validated above)
                    elif prev.__class__ is ndarray and prev.base is None and \
                            getrefcount(prev) <= 3 and prev.flags.writeable and \
                            prev.shape == g.shape and prev.dtype == g.dtype:
                        prev += g  # the buffer owns this array: add in place
                        if nr == 0 and not batch_nd:
                            owned.add(child)
                    else:
                        prev = buf[nr] = prev + g
                        if nr == 0 and not batch_nd and prev.__class__ is ndarray:
                            owned.add(child)  # (a 0-d sum is a NumPy scalar: not in place)
                if n == 0:
                    item = (child._seq, child)
                    if not heap:
                        heap.append(item)
                    elif len(heap) == 1:  # (_heap_push onto one entry)
                        top = heap[0]
                        if top[0] < item[0]:
                            heap[0] = item
                            heap.append(top)
                        else:
                            heap.append(item)
                    else:
                        _heap_push(heap, item)
            outs = g = grads = prev = d = None  # drop references so AccumulateGrad can steal arrays
            continue
        if grads is None:
            grads = [None] * max(node.num_outputs, 1)
        if captures is not None or node._has_hooks or node.__class__ is AccumulateGrad:
            grads = _before_node(node, grads, needed, captures, captured, create_graph,
                                 journal)
            if grads is None:
                continue  # not executed (captured only), or an AccumulateGrad (done)
        nodes = node._next_nodes
        if needed is None:
            mask = None  # every edge that leads somewhere
        else:
            mask = [c is not None and (c in needed or c in captures) for c in nodes]
        if anomaly:
            from .anomaly_mode import call_with_anomaly
            outs = call_with_anomaly(node, grads, mask, create_graph)
        else:
            outs = node._apply(grads, mask, create_graph)
        if node._post_hooks:
            outs = _call_post_hooks(node, list(outs), grads, create_graph, batch_nd)
        if anomaly:
            from .anomaly_mode import check_nan
            check_nan(node, outs)
        if not keep_graph:
            node.release_variables()
        if len(outs) != len(nodes):
            raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                               f"gradients (expected {len(nodes)}, got {len(outs)})")
        i = 0
        for child, nr in zip(nodes, node._next_nrs):
            g = outs[i]
            if child is not None and (mask is None or mask[i]):
                if g is not None:
                    # validate against the next node's input metadata (PyTorch's
                    # validate_outputs): sum away broadcasting, cast the dtype
                    if create_graph:
                        if not isinstance(g, Tensor):
                            g = _wrap(np.asarray(g))
                        data = g._data
                    else:
                        if g.__class__ is not ndarray:
                            g = g._data if isinstance(g, Tensor) else np.asarray(g)
                        data = g
                    shape, dt = child._out_meta[nr]
                    if data.shape != shape and data.shape[batch_nd:] != shape:
                        g = _sum_to_shape(node, i, g, data.shape, shape, batch_nd)
                        data = g._data if create_graph else g
                    if data.dtype is not dt and data.dtype != dt:
                        g = _cast(g, dt, create_graph)
                buf = buffers.get(child)
                if buf is None:
                    if child.__class__ is AccumulateGrad:
                        buf = buffers[child] = [None]
                    else:
                        buf = buffers[child] = [None] * len(child._out_meta)
                if g is not None:
                    prev = buf[nr]
                    if prev is None:
                        buf[nr] = g
                    elif not create_graph and prev.__class__ is ndarray and \
                            prev.base is None and getrefcount(prev) <= 3 and \
                            prev.flags.writeable and prev.shape == g.shape and \
                            prev.dtype == g.dtype:
                        # the buffer owns this array (nothing else refers to it): add in
                        # place, as PyTorch's InputBuffer::accumulate does
                        prev += g
                    else:
                        buf[nr] = prev + g
                n = deps[child] - 1
                deps[child] = n
                if n == 0:
                    if heap:
                        _heap_push(heap, (child._seq, child))
                    else:
                        heap.append((child._seq, child))
            i += 1
        outs = g = grads = data = None  # drop references so AccumulateGrad can steal arrays
    return captured


# NOTE [Sequence order]
# A node's sequence_nr is larger than that of every node its edges point to (a node is
# made after its inputs' nodes; AccumulateGrads excepted, see below).  So among the nodes
# that have received a gradient and not yet run, the one with the largest number has
# received all of its gradients: a node still to send it one would have a larger number
# still, and would itself be waiting, reachable from a node that has run, on a path of
# ever smaller numbers that starts among the waiting nodes.  Running "the waiting node
# with the largest number" is therefore PyTorch's order ("the ready node with the largest
# number") without the dependency counts, whose extra walk over the graph costs a plain
# backward about a tenth of its Python time.
# AccumulateGrads carry no usable number (PyTorch gives them all the maximal one, so a
# leaf accumulates as soon as its last gradient arrives).  Here they run after every
# other node, in the order they were reached.  A hook could tell the difference (by
# reading a leaf's .grad, or by the order of hooks on leaves): registering any hook sets
# HOT.hooks, and from then on every backward counts dependencies and keeps PyTorch's
# timing exactly.  (retain_grad's hook reads only its own tensor's gradient.)
def _run_by_seq(root, keep_graph, batch_nd, journal):
    """A plain backward (no inputs=, no create_graph, no anomaly mode, no user hook
    registered) run in decreasing sequence_nr; AccumulateGrads last.

    The per-edge validation and accumulation are those of ``_run``'s plain path, written
    out in both loops: a helper called per edge would cost a plain backward ~10 %."""
    buffers = {}
    heap = []
    accs = []            # AccumulateGrads reached, in order
    ndarray = _ndarray
    getrefcount = sys.getrefcount
    Acc = AccumulateGrad
    # nodes whose buffered gradient for input 0 is an array this loop made or checked
    # (nothing else refers to it): later gradients are added into it in place
    owned = set()
    node = root
    grads = None
    while True:
        if node._has_hooks:
            grads = _before_node(node, grads, None, None, None, False, journal)
            outs = node._apply(grads, None, False)
            if node._post_hooks:
                outs = _call_post_hooks(node, list(outs), grads, False, batch_nd)
            if not keep_graph:
                node.release_variables()
        else:
            outs = node._step(grads, keep_graph)
        nodes = node._next_nodes
        if not node._exact_outs and len(outs) != len(nodes):
            raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                               f"gradients (expected {len(nodes)}, got {len(outs)})")
        nrs = node._next_nrs
        if not heap:
            # a chain: a single edge to a node not yet waiting, with nothing else waiting,
            # would be pushed and popped again at once: run that node next directly
            ne = len(nodes)
            if ne == 1:
                k = 0
            elif ne == 2:  # e.g. x * 2.0: the scalar operand has no edge
                k = 0 if nodes[1] is None else (1 if nodes[0] is None else -1)
            else:
                k = -1
            if k >= 0:
                child = nodes[k]
                if child is not None and child.__class__ is not Acc and \
                        child not in buffers:
                    g = outs[k]
                    nr = nrs[k]
                    if g is not None:
                        if g.__class__ is not ndarray:
                            g = g._data if isinstance(g, Tensor) else np.asarray(g)
                        shape, dt = child._out_meta[nr]
                        if g.shape != shape and g.shape[batch_nd:] != shape:
                            g = _sum_to_shape(node, k, g, g.shape, shape, batch_nd)
                        if g.dtype is not dt and g.dtype != dt:
                            g = _cast(g, dt, False)
                    n = len(child._out_meta)
                    if n == 1:
                        grads = [g]
                    else:
                        grads = [None] * n
                        grads[nr] = g
                    node = child
                    outs = g = None
                    continue
        i = -1
        for child in nodes:
            i += 1
            if child is None:
                continue
            g = outs[i]
            nr = nrs[i]
            if g is not None:
                # validate against the next node's input metadata (PyTorch's
                # validate_outputs): sum away broadcasting, cast the dtype
                if g.__class__ is not ndarray:
                    g = g._data if isinstance(g, Tensor) else np.asarray(g)
                if child.__class__ is Acc:  # (its _out_meta property, without the call)
                    d = child.variable._data
                    shape = d.shape
                    dt = d.dtype
                else:
                    shape, dt = child._out_meta[nr]
                if g.shape != shape and g.shape[batch_nd:] != shape:
                    g = _sum_to_shape(node, i, g, g.shape, shape, batch_nd)
                if g.dtype is not dt and g.dtype != dt:
                    g = _cast(g, dt, False)
            buf = buffers.get(child)
            if buf is None:  # reached for the first time: now waiting
                if child.__class__ is Acc:
                    buffers[child] = [g]
                    accs.append(child)
                    continue
                n = len(child._out_meta)
                if n == 1:
                    buffers[child] = [g]
                else:
                    buf = buffers[child] = [None] * n
                    buf[nr] = g
                item = (child._seq, child)
                if not heap:
                    heap.append(item)
                elif len(heap) == 1:  # (_heap_push onto one entry)
                    top = heap[0]
                    if top[0] < item[0]:
                        heap[0] = item
                        heap.append(top)
                    else:
                        heap.append(item)
                else:
                    _heap_push(heap, item)
            elif g is not None:
                prev = buf[nr]
                if prev is None:
                    buf[nr] = g
                elif nr == 0 and child in owned:
                    prev += g  # (same shape and dtype: both were validated above)
                elif prev.__class__ is ndarray and prev.base is None and \
                        getrefcount(prev) <= 3 and prev.flags.writeable and \
                        prev.shape == g.shape and prev.dtype == g.dtype:
                    prev += g  # the buffer owns this array: add in place
                    if nr == 0 and not batch_nd:
                        owned.add(child)
                else:
                    prev = buf[nr] = prev + g
                    if nr == 0 and not batch_nd and prev.__class__ is ndarray:
                        owned.add(child)  # (a 0-d sum is a NumPy scalar: not in place)
        n = len(heap)
        if n == 1:
            node = heap.pop()[1]
        elif n == 2:  # (_heap_pop on two entries: the last one moves to the top)
            node = heap[0][1]
            heap[0] = heap.pop()
        elif n:
            node = _heap_pop(heap)
        else:
            break
        grads = buffers.pop(node)
    # (each name below is rebound before its next use in the loop: dropping its reference
    # once, here, lets AccumulateGrad steal the arrays it would otherwise have to copy)
    outs = g = grads = prev = None
    for node in accs:
        grads = buffers.pop(node)
        _before_node(node, grads, None, None, None, False, journal)
        grads = None


def _before_node(node, grads, needed, captures, captured, create_graph, journal):
    """Hooks and captures before a node runs; runs AccumulateGrad itself.

    Returns the (possibly replaced) gradients, or None when the node is not to be
    executed further by the loop.  Order as in PyTorch's evaluate_function: tensor
    pre-hooks (and retains_grad), captures for autograd.grad, node pre-hooks.
    """
    is_acc = node.__class__ is AccumulateGrad
    cap = None
    if captures is not None:
        cap = captures.get(node)
        if cap is not None and node in needed:
            # a captured node that also runs is captured before its tensor pre-hooks,
            # which then run as part of the node (PyTorch's evaluate_function)
            for nr, k in cap:
                captured[k] = grads[nr]
            cap = None
    if is_acc:
        if node.variable._hooks:
            grads[0] = _call_tensor_pre_hooks(node.variable._hooks, grads[0], create_graph)
    elif node._tensor_pre_hooks or node._retains_grad_hooks:
        _run_tensor_hooks(node, grads, create_graph, journal)
    if captures is not None:
        if cap is not None:
            for nr, k in cap:
                captured[k] = grads[nr]
        if node not in needed:
            return None
    if node._pre_hooks:
        grads = _call_pre_hooks(node, grads, create_graph)
    if is_acc:
        _accumulate_grad(node, grads[0], create_graph, journal)
        if node._post_hooks:
            _call_post_hooks(node, [], grads, create_graph)
        return None
    return grads


# NOTE [Ready queue order]
# PyTorch's ready queue is a std::priority_queue ordered by sequence_nr only (later ops
# first; every AccumulateGrad has the maximal number, so leaves accumulate as soon as
# they are ready).  Ties between AccumulateGrads are broken by the heap's layout, which
# users see through hook order, so the two functions below are libstdc++'s push_heap and
# pop_heap (__push_heap / __adjust_heap) over (sequence_nr, node) pairs, step for step.
def _heap_push(heap, item):
    seq = item[0]
    heap.append(item)
    hole = len(heap) - 1
    while hole > 0:
        parent = (hole - 1) >> 1
        p = heap[parent]
        if p[0] < seq:
            heap[hole] = p
            hole = parent
        else:
            break
    heap[hole] = item


def _heap_pop(heap):
    top = heap[0]
    value = heap.pop()
    n = len(heap)
    if n:
        hole = child = 0
        while child < (n - 1) // 2:  # move the larger child up (right one on ties)
            child = 2 * (child + 1)
            if heap[child][0] < heap[child - 1][0]:
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if (n & 1) == 0 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        seq = value[0]
        while hole > 0:  # then sift the former last element up from the hole
            parent = (hole - 1) >> 1
            p = heap[parent]
            if p[0] < seq:
                heap[hole] = p
                hole = parent
            else:
                break
        heap[hole] = value
    return top[1]


def _call_pre_hooks(node, grads, create_graph):
    tgrads = tuple(_to_tensor(g) for g in grads)
    for fn in tuple(node._pre_hooks.values()):
        r = fn(tgrads)
        if r is not None:
            tgrads = _check_hook_tuple(fn, r, tgrads)
    return [_from_tensor(g, create_graph) for g in tgrads]


def _call_post_hooks(node, outs, grads, create_graph, batch_nd=0):
    # PyTorch validates a node's outputs (sums away broadcasting, casts to the input's
    # dtype) before its post hooks run: a hook sees grad_inputs of its inputs' shapes
    # (e.g. a module's deprecated backward hook on ``x @ w.t() + b`` sees b's shape)
    for i, (child, nr) in enumerate(zip(node._next_nodes, node._next_nrs)):
        g = outs[i] if i < len(outs) else None
        if child is None or g is None:
            continue
        data = g._data if isinstance(g, Tensor) else g
        if not isinstance(data, _ndarray):
            continue
        shape, dt = child._out_meta[nr]
        if data.shape != shape and data.shape[batch_nd:] != shape:
            g = _sum_to_shape(node, i, g, data.shape, shape, batch_nd)
            data = g._data if isinstance(g, Tensor) else g
        if data.dtype != dt:
            if create_graph and isinstance(g, Tensor):
                g = _cast(g, dt, True)
            else:
                g = _cast(data, dt, False)
        outs[i] = g
    tin = tuple(_to_tensor(g) for g in outs)
    tout = tuple(_to_tensor(g) for g in grads)
    for fn in tuple(node._post_hooks.values()):
        r = fn(tin, tout)
        if r is not None:
            tin = _check_hook_tuple(fn, r, tin)
    return [_from_tensor(g, create_graph) for g in tin]
