"""The engine's two loops: the dependency-counting ready queue (``_run``) and the plain
backward by decreasing sequence number (``_run_by_seq``, NOTE [Sequence order]).

Both are source text below (``_RUN_SOURCE``, ``_RUN_BY_SEQ_SOURCE``) in which the
per-edge block is one ``@...`` line, written once in ``edge.py`` (NOTE [one per-edge
block]); ``_compile_loops`` expands the lines and compiles the loops under the file name
``<graphgrad engine loop>`` (in ``linecache``: tracebacks show the line,
``inspect.getsource(_run)`` and pdb work).  ``LOOP_SOURCE`` is the expanded source.

NOTE [lazy engine loops]: as the ops' generated code (NOTE [lazy generated code]), the
loops are compiled on the first backward, not at import (~4 ms of it): ``_run`` and
``_run_by_seq`` start as stand-ins with the loops' signatures whose first call compiles
the loops and moves the compiled code into those same function objects, so every holder
(``task.py`` imports them by name) runs the compiled loop from then on.
"""
from __future__ import annotations

import linecache
import threading
from time import perf_counter_ns as _clock

import numpy as np

from ..._core.state import tls
from ..._tensor.tensor import Tensor
from ..graph import AccumulateGrad
from .hooks import _call_tensor_pre_hooks, _run_tensor_hooks, _call_pre_hooks, _call_post_hooks
from .accumulate import _sum_to_shape, _cast, _accumulate_grad, refcount
from ..anomaly_mode import check_nan
from .edge import expand

_wrap = Tensor._wrap
_ndarray = np.ndarray

_RUN_SOURCE = '''
def _run(root, deps, needed, captures, captured, keep_graph, create_graph, batch_nd,
         accumulate, journal, anomaly, resume=None, prof=None):
    """The dependency-counting loop.  ``resume`` continues a backward that ``_run_by_seq``
    began: a list [heap, buffers, first node to run or None, its gradients], which
    ``_run`` empties.  ``prof``: the thread's active profiler (autograd/profiler.py), which
    gets each node's events (NOTE [profiled backward])."""
    if resume is None:
        buffers = {}
        heap = [(root._seq, root)]
        first = None
    else:
        heap, buffers, first, first_grads = resume
        resume.clear()  # (the caller keeps no reference to the gradients)
        resume = None
    ndarray = _ndarray
    getrefcount = refcount  # NOTE [buffer ownership]
    # no create_graph, no anomaly mode (and, with inputs=, no profiler, whose timed_step
    # applies every edge): nodes without hooks that are not captured take the short path
    # below, with their masks (``needed``) where some edges lead nowhere that runs;
    # everything else goes through the general one
    plain = not create_graph and not anomaly and (needed is None or prof is None)
    Acc = AccumulateGrad
    # nodes whose buffered gradient for input 0 is an array this loop made or checked
    # (nothing else refers to it): later gradients are added into it in place
    owned = set()
    while heap or first is not None:
        if first is not None:
            node = first
            grads = first_grads
            first = first_grads = None
        else:
            @pop_node
            grads = buffers.pop(node, None)
        # (_has_hooks is True for every AccumulateGrad)
        if plain and not node._has_hooks and (captures is None or node not in captures):
            if grads is None:
                grads = [None] * max(node.num_outputs, 1)
            while True:
                mask = None if needed is None else needed[node]
                if mask is not None:
                    outs = node._apply(grads, mask, False)
                    if not keep_graph:
                        node.release_variables()
                elif prof is None or node is root:
                    outs = node._step(grads, keep_graph)
                else:
                    outs = prof.timed_step(node, grads, keep_graph)
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
                if child is None or child._has_hooks or deps[child] != 1 or \\
                        child in buffers:
                    break
                if needed is not None and (child in captures or
                                           mask is not None and not mask[k]):
                    break  # (a captured child, or an edge to a node that does not run)
                nrs = node._next_nrs
                # (deps[child] stays 1: nothing reads a count once its node has run)
                @hand_to_child(k)
            nrs = node._next_nrs
            i = -1
            for child in nodes:
                i += 1
                if child is None or mask is not None and not mask[i]:
                    continue
                nr = nrs[i]
                g = outs[i]
                @validate(i)
                n = deps[child] - 1
                deps[child] = n
                buf = buffers.get(child)
                if buf is None:
                    buf = buffers[child] = [None] * (1 if child.__class__ is Acc
                                                     else len(child._out_meta))
                if g is not None:
                    @accumulate
                if n == 0:
                    @push_child
            outs = g = grads = prev = d = None  # drop references so AccumulateGrad can steal arrays
            continue
        if grads is None:
            grads = [None] * max(node.num_outputs, 1)
        if anomaly:  # what anomaly mode reports and records as the running node
            tls.anomaly_node = node if node is not root else None
        if prof is not None and node is not root:  # NOTE [profiled backward]
            if prof.pending is not None:
                prof.close_turn(_clock())
            t_eval = _clock()
        # (every node popped here is in ``needed``: _before_node has work only for hooks, a
        # capture, or an AccumulateGrad, whose _has_hooks is always True)
        if node._has_hooks or captures is not None and node in captures:
            if prof is not None:
                t_node = _clock()
            grads = _before_node(node, grads, needed, captures, captured, create_graph,
                                 journal)
            if grads is None:
                if prof is not None and node.__class__ is AccumulateGrad:
                    t = _clock()
                    prof.backward_event(node, t_eval, t_node, t, t, None)
                continue  # not executed (captured only), or an AccumulateGrad (done)
        nodes = node._next_nodes
        # which edges lead to a node that runs or is captured: None for every edge that
        # leads somewhere (task._compute_needed computed each needed node's mask)
        mask = None if needed is None else needed[node]
        if prof is None:
            outs = node._apply(grads, mask, create_graph)
        elif mask is None and not create_graph and not anomaly and not node._has_hooks:
            # (what the plain path would call: apply and release in one)
            t_node = _clock()
            outs = node._step(grads, keep_graph)
            t_node_end = _clock()
        else:
            t_node = _clock()
            outs = node._apply(grads, mask, create_graph)
            t_node_end = _clock()
            if not keep_graph:
                node.release_variables()
        if node._post_hooks:
            outs = _call_post_hooks(node, list(outs), grads, create_graph, batch_nd)
        if anomaly:
            check_nan(node, outs)
        if not keep_graph and prof is None:
            node.release_variables()
        if len(outs) != len(nodes):
            raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                               f"gradients (expected {len(nodes)}, got {len(outs)})")
        i = 0
        for child, nr in zip(nodes, node._next_nrs):
            g = outs[i]
            if child is not None and (mask is None or mask[i]):
                @validate(i, create_graph=yes)
                buf = buffers.get(child)
                if buf is None:
                    if child.__class__ is AccumulateGrad:
                        buf = buffers[child] = [None]
                    else:
                        buf = buffers[child] = [None] * len(child._out_meta)
                if g is not None:
                    @accumulate
                n = deps[child] - 1
                deps[child] = n
                if n == 0:
                    @push_child
            i += 1
        if prof is not None and node is not root:
            prof.backward_event(node, t_eval, t_node, t_node_end, _clock(), outs)
        outs = g = grads = data = prev = None  # drop references so AccumulateGrad can steal arrays
    if anomaly:
        tls.anomaly_node = None  # (final callbacks run outside any node)
    if prof is not None:
        prof.close_turn(_clock())
    return captured
'''


# NOTE [profiled backward]
# While a profiler is active on the thread (``tls.profiler``), ``execute`` decides once, at
# the start of the backward, to run it in the counting loop (``_run``), where each node is
# timed for PyTorch's "autograd::engine::evaluate_function: <node>" (the node's whole
# turn: hooks, apply, validating and buffering its gradients) around "<node>" (its apply;
# the ops a create_graph backward runs nest inside).  On the general path the loop takes
# the four timestamps itself (``backward_event``); on the short path the profiler's
# ``timed_step`` runs the node's step, and a turn ends where the next one begins
# (``close_turn``).  ``_run_by_seq`` never tests for a profiler.


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
# other node, in the order they were reached.  Only user code running inside the
# backward could tell the difference (a hook, a custom Function's backward or a
# saved-tensor unpack hook reading a leaf's .grad, or the order of hooks on leaves), so
# the loop hands over to the counting one before the first such code would run: before
# a node with a hook or user code (``_runs_user_code``), or right after the node that
# first sends a gradient to a leaf with hooks.  ``_resume_counting`` then replays
# PyTorch's ready queue up to that point (the same node order, with dependency counts),
# accumulates the leaves PyTorch would already have accumulated (no user code has run
# yet, so nothing could have seen the difference) and continues with ``_run`` from the
# replayed queue, which keeps PyTorch's timing exactly from there on.  A graph without
# such code never pays for the counts.  (retain_grad's hook reads only its own tensor's
# gradient: it does not hand over.)
_RUN_BY_SEQ_SOURCE = '''
def _run_by_seq(root, keep_graph, batch_nd, journal, only=None):
    """A plain backward (no inputs=, no create_graph, no anomaly mode) run in decreasing
    sequence_nr; AccumulateGrads last.

    Returns None when done, or, where user code is about to run (NOTE [Sequence order]),
    what ``_resume_counting`` needs to continue, in a list it empties: [node,
    include_node, grads, buffers, accs]: the replay stops before ``node`` (whose
    ``grads`` are in hand) or, with include_node, after it.  ``only``: a leaf (NOTE
    [backward into one leaf]): False, before anything is accumulated, at the first other
    leaf reached; the list before any node with hooks."""
    buffers = {}
    heap = []
    accs = []            # AccumulateGrads reached, in order
    ndarray = _ndarray
    getrefcount = refcount  # NOTE [buffer ownership]
    Acc = AccumulateGrad
    # nodes whose buffered gradient for input 0 is an array this loop made or checked
    # (nothing else refers to it): later gradients are added into it in place
    owned = set()
    node = root
    grads = None
    hooked_leaf = False  # a gradient reached a leaf with hooks: hand over after this node
    while True:
        if node._has_hooks:
            if node._pre_hooks or node._post_hooks or node._tensor_pre_hooks or \\
                    node._runs_user_code or only is not None:
                return [node, False, grads, buffers, accs]
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
                if child is not None and child.__class__ is not Acc and \\
                        child not in buffers:
                    @hand_to_child(k)
                    continue
        i = -1
        for child in nodes:
            i += 1
            if child is None:
                continue
            g = outs[i]
            nr = nrs[i]
            @validate(i)
            buf = buffers.get(child)
            if buf is None:  # reached for the first time: now waiting
                if child.__class__ is Acc:
                    v = child.variable
                    if only is not None and v is not only:
                        return False
                    buffers[child] = [g]
                    accs.append(child)
                    if v._hooks or v._post_acc_hooks or child._pre_hooks or child._post_hooks:
                        hooked_leaf = True
                    continue
                n = len(child._out_meta)
                if n == 1:
                    buffers[child] = [g]
                else:
                    buf = buffers[child] = [None] * n
                    buf[nr] = g
                @push_child
            elif g is not None:
                @accumulate
        if hooked_leaf:
            return [node, True, None, buffers, accs]
        @pop_node
        grads = buffers.pop(node)
    # (each name below is rebound before its next use in the loop: dropping its reference
    # once, here, lets AccumulateGrad steal the arrays it would otherwise have to copy)
    outs = g = grads = prev = None
    for node in accs:
        grads = buffers.pop(node)
        _before_node(node, grads, None, None, None, False, journal)
        grads = None
'''


# NOTE [backward into one leaf]
# graphgrad.func.grad(f)(x) differentiates f at a fresh leaf standing in for x (func/
# _grad.py).  When the output's graph reaches no other leaf that requires grad, the
# gradient is a plain backward's .grad of the stand-in; when it does (f closes over a
# tensor that requires grad, or an enclosing transform's stand-in), the gradient must be
# differentiable with respect to that leaf, and the other leaf's .grad must not change:
# autograd.grad's path with create_graph.  ``execute(..., only=stand_in)`` tells the two
# apart during the backward itself, instead of a walk over the graph before it:
# ``_run_by_seq`` stops where it first reaches another leaf (it accumulates every leaf
# only at its end, so nothing is accumulated yet), and the caller, which keeps the graph
# (keep_graph), takes the general path.  Before a node with hooks (a hook, a custom
# Function's backward, retain_grad: user-visible work that must not be done twice) it
# hands over as for user code; ``execute`` then walks the graph for another leaf (as the
# walk before the backward would have) and either stops or resumes in the counting loop.


LOOP_FILE = "<graphgrad engine loop>"


def _compile_loops():
    """Expand and compile ``_RUN_SOURCE`` and ``_RUN_BY_SEQ_SOURCE`` (NOTE [one per-edge
    block] in edge.py) into this module's globals, registered in ``linecache``."""
    lines = expand(_RUN_SOURCE) + expand(_RUN_BY_SEQ_SOURCE)
    src = "\n".join(lines) + "\n"
    # (mtime None: linecache.checkcache keeps the entry, there is no file to compare with)
    linecache.cache[LOOP_FILE] = (len(src), None, src.splitlines(True), LOOP_FILE)
    exec(compile(src, LOOP_FILE, "exec"), globals())
    return src


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


LOOP_SOURCE = None  # the expanded source, once compiled
_COMPILE_LOCK = threading.Lock()


def compile_loops():
    """Compile the loops into ``_run`` and ``_run_by_seq`` (once); returns their source."""
    global LOOP_SOURCE
    with _COMPILE_LOCK:
        if LOOP_SOURCE is None:
            stand_ins = {"_run": _run, "_run_by_seq": _run_by_seq}
            src = _compile_loops()  # (binds the compiled functions in globals())
            for name, fn in stand_ins.items():
                compiled = globals()[name]
                fn.__code__ = compiled.__code__
                fn.__defaults__ = compiled.__defaults__
                globals()[name] = fn
            LOOP_SOURCE = src
    return LOOP_SOURCE


def _run(root, deps, needed, captures, captured, keep_graph, create_graph, batch_nd,
         accumulate, journal, anomaly, resume=None, prof=None):
    """Stand-in until the first backward (NOTE [lazy engine loops])."""
    compile_loops()
    return _run(root, deps, needed, captures, captured, keep_graph, create_graph, batch_nd,
                accumulate, journal, anomaly, resume, prof)


def _run_by_seq(root, keep_graph, batch_nd, journal, only=None):
    """Stand-in until the first backward (NOTE [lazy engine loops])."""
    compile_loops()
    return _run_by_seq(root, keep_graph, batch_nd, journal, only)
