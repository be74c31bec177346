"""One backward call (a graph task): ``execute``, dependency counting, reentrant backward
on a fresh thread, final callbacks and what hooks may ask about the running backward.
"""
from __future__ import annotations

import gc
import itertools
from operator import attrgetter
import sys
import threading

from ..._core.state import grad_mode_set, tls
from ..graph import AccumulateGrad, Node, zeros
from ..anomaly_mode import report_backward_error
from .accumulate import _Journal
from .loop import _before_node, _heap_pop, _heap_push, _run, _run_by_seq

_ONE_ZERO = zeros(1)


class GraphRoot(Node):
    """A virtual node whose outputs are the gradients given for the roots."""

    __slots__ = ("_grads",)

    def __init__(self, edges, grads):
        if len(edges) == 1 and edges[0][1] == 0:  # (one root: what the setter would store)
            self._next_nodes = (edges[0][0],)
            self._next_nrs = _ONE_ZERO
        else:
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


def reaches_other_leaf(nodes, internal):
    """Whether the graph below ``nodes`` reaches the AccumulateGrad of a leaf whose ``id``
    is not in ``internal``."""
    stack = list(nodes)
    # (every node is looked at once, when first met: leaves' AccumulateGrad nodes are
    # checked there and never pushed)
    seen = set(stack)
    add, pop, push = seen.add, stack.pop, stack.append
    Acc = AccumulateGrad
    while stack:
        for n in pop()._next_nodes:
            if n is None or n in seen:
                continue
            add(n)
            if n.__class__ is Acc:
                if id(n.variable) not in internal:
                    return True
            else:
                push(n)
    return False


_seq_of = attrgetter("_seq")


def _compute_needed(root, deps, targets):
    """The nodes from which some target node can be reached (those must run), as a dict
    node -> mask: ``mask[i]`` whether edge ``i`` leads to such a node or to a target,
    None when every edge that leads somewhere does (what the loop passes as "all").

    The nodes are visited in increasing sequence_nr, so each one's next nodes are
    settled before it (NOTE [Sequence order] in loop.py): one pass, no second walk over
    the graph.  A next node not settled yet (an edge to a later node: no graph graphgrad
    builds has one) sends the whole computation to ``_compute_needed_kahn``."""
    Acc = AccumulateGrad
    needed = {}
    for node in sorted(deps, key=_seq_of):
        nexts = node._next_nodes
        if not nexts:  # (an AccumulateGrad, or a node without edges)
            continue
        seq = node._seq
        hit = miss = False
        for c in nexts:
            if c is None:
                continue
            if c in needed or c in targets:
                hit = True
            elif c.__class__ is Acc:
                miss = True  # (an AccumulateGrad leads nowhere: settled)
            elif c._seq >= seq:
                return _compute_needed_kahn(root, deps, targets)
            else:
                miss = True
        if hit:
            needed[node] = _edge_mask(nexts, needed, targets) if miss else None
    return needed


def _edge_mask(nexts, needed, targets):
    """The mask of a node whose next nodes are ``nexts`` (see ``_compute_needed``)."""
    mask = [c is not None and (c in needed or c in targets) for c in nexts]
    for c, m in zip(nexts, mask):
        if c is not None and not m:
            return mask
    return None


def _compute_needed_kahn(root, deps, targets):
    """``_compute_needed`` for any graph: a topological order by Kahn's algorithm (parents
    before children), then the nodes in reverse."""
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
    needed = {}
    for node in reversed(order):
        if node is root:
            continue
        for child in node._next_nodes:
            if child is not None and (child in targets or child in needed):
                break
        else:
            continue
        needed[node] = None
    for node in needed:  # (every next node settled: the masks)
        needed[node] = _edge_mask(node._next_nodes, needed, targets)
    return needed


def _resume_counting(root, handover, keep_graph, batch_nd, journal):
    """Continue a backward that ``_run_by_seq`` handed over (NOTE [Sequence order]) in the
    counting loop, as if it had run there from the start."""
    stop, include_stop, grads, buffers, accs = handover
    handover.clear()  # (the caller's reference must not keep the gradients alive)
    handover = None
    deps = _compute_dependencies(root)
    # replay PyTorch's ready queue (no node runs): the nodes it pops before ``stop`` are
    # those _run_by_seq ran, in the same order, plus the leaves PyTorch accumulated
    heap = [(root._seq, root)]
    done = []
    Acc = AccumulateGrad
    while True:
        if not heap:
            raise RuntimeError("internal error: the engine's replay of the ready queue did "
                               f"not reach {stop.name()}")
        node = _heap_pop(heap)
        if node is stop and not include_stop:
            break
        if node.__class__ is Acc:
            done.append(node)
            continue
        for child in node._next_nodes:
            if child is not None:
                n = deps[child] - 1
                deps[child] = n
                if n == 0:
                    _heap_push(heap, (child._seq, child))
        if node is stop:
            stop = None
            break
    node = None
    for acc in done:
        g = buffers.pop(acc)
        _before_node(acc, g, None, None, None, False, journal)
    g = done = accs = None
    # (handed over in a list that _run empties: no frame here keeps the first node's
    # gradients alive, so AccumulateGrad can still steal them, NOTE [buffer ownership])
    resume = [heap, buffers, stop, grads]
    heap = buffers = stop = grads = None
    _run(root, deps, None, None, None, keep_graph, False, batch_nd, True, journal, False,
         resume)


def execute(roots, grad_outputs, keep_graph, create_graph, inputs=None, accumulate=True,
            batch_nd=0, only=None):
    """Run backward from ``roots`` (edges) seeded with ``grad_outputs``.

    inputs: edges whose gradients are wanted (autograd.grad, or backward(inputs=)).
    accumulate: True for backward (AccumulateGrad runs), False for grad (capture only).
    Returns the captured gradients, one per input edge (None when unreached).

    only: a leaf tensor (NOTE [backward into one leaf] in loop.py): a plain backward (no
    inputs=, create_graph) that accumulates into that leaf alone, or does nothing
    visible.  Returns True when done; False when the graph reaches another leaf that
    requires grad or a node with hooks or user code, or anomaly mode or a profiler is on:
    then no ``.grad`` has changed and no user code has run (with ``keep_graph`` the graph
    is whole for another pass).
    """
    # (the thread's flags through its attribute dict, NOTE [thread dict]: each read or
    # write of ``tls`` costs ~650 instructions, and a small graph's backward would pay for
    # ~25 of them; the defaults below are ``_State``'s)
    d = tls.__dict__
    get = d.get
    depth = get("engine_depth", 0)
    if depth and _deep_reentrant():
        return _execute_on_fresh_thread(roots, grad_outputs, keep_graph, create_graph, inputs,
                                        accumulate, batch_nd, only)
    root = GraphRoot(roots, grad_outputs)
    anomaly = get("anomaly", False)
    prof = get("profiler")  # (NOTE [profiled backward] in loop.py)
    # a plain backward runs its nodes in decreasing sequence_nr with no dependency counts
    # (NOTE [Sequence order]); anything that needs the counts takes the counting loop
    by_seq = inputs is None and not create_graph and not anomaly and prof is None
    if only is not None and not by_seq:
        return False
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
        if accumulate:
            # backward(inputs=...) runs each input's node (PyTorch's init_to_execute marks
            # them all needed): a non-leaf input's node pre-hooks run too
            for node in targets:
                if node not in needed:
                    needed[node] = None
            for node in targets:  # (their masks once every target is in)
                needed[node] = _edge_mask(node._next_nodes, needed, targets)
        needed[root] = _edge_mask(root._next_nodes, needed, targets)
    prev_mode = get("_grad_enabled", True)
    prev_saved_hooks = get("saved_hooks", ())
    if anomaly:
        prev_anomaly_node = tls.anomaly_node
    grad_mode_set(d, bool(create_graph))
    d["engine_depth"] = depth + 1
    journal = _Journal()
    prev_task = get("engine_task")
    d["engine_task"] = task = [next(_task_ids), deps, needed, captures, accumulate, root, []]
    # A backward allocates and frees many short-lived objects but creates no cycles; left
    # on, the cyclic collector would repeatedly walk the whole heap (the graph, and every
    # module the program imported) while the graph is being consumed.
    gc_was_enabled = gc.isenabled()
    if gc_was_enabled:
        gc.disable()
    try:
        if by_seq:
            handover = _run_by_seq(root, keep_graph, batch_nd, journal, only)
            if handover is not None:  # user code is about to run (NOTE [Sequence order])
                if only is not None and (handover is False or
                                         reaches_other_leaf((root,), (id(only),))):
                    return False   # (another leaf: nothing visible done, NOTE [backward
                                   # into one leaf] in loop.py)
                _resume_counting(root, handover, keep_graph, batch_nd, journal)
                handover = None
        else:
            _run(root, deps, needed, captures, captured, keep_graph, create_graph, batch_nd,
                 accumulate, journal, anomaly, None, prof)
        if task[6]:
            _run_final_callbacks(task[6])
    except BaseException as exc:
        journal.rollback()
        if prof is not None:
            prof.pending = None  # (a node's turn the error cut short: not an event)
        if anomaly:  # report the forward traceback of the node that failed
            report_backward_error(tls.anomaly_node)
        raise
    finally:
        if gc_was_enabled:
            gc.enable()
        grad_mode_set(d, prev_mode)
        if get("saved_hooks", ()) is not prev_saved_hooks:  # a hook entered/left a context
            tls.saved_hooks = prev_saved_hooks
            tls.refresh()
        d["engine_depth"] = depth
        if anomaly:
            tls.anomaly_node = prev_anomaly_node  # (an enclosing backward's node)
        d["engine_task"] = prev_task
    return captured if only is None else True


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
               "saved_hooks", "saved_hooks_disabled", "profiler", "mutation_ctx", "interposers")


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
# tls.engine_task: [id, deps, needed, captures, accumulate, root, final callbacks] or None
_task_ids = itertools.count()


def queue_callback(callback):
    """Run ``callback()`` once the backward running on this thread has finished with the
    graph (PyTorch's ``Variable._execution_engine.queue_callback``).  A callback queued
    inside a reentrant backward belongs to that inner backward; callbacks may queue more
    callbacks, which run in the same pass."""
    task = tls.engine_task
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
    task = tls.engine_task
    return -1 if task is None else task[0]


def will_engine_execute_node(node):
    """Whether the running backward will execute ``node`` (its hooks will run)."""
    task = tls.engine_task
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
