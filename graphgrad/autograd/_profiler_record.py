"""The profiler's recording (autograd/profiler.py, NOTE [profiler]): the raw event kinds,
the recorder and its interposer, the calibration of the profiler's own cost, and the
raw tuples turned into FunctionEvents once the results are asked for."""
from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

from .._tensor.tensor import Tensor
from ..autograd import graph as _graph
from ..ops.interpose import Composite, Timer, interposing
from ..ops.api.pointwise import sin as _sin
from ..ops.inplace import dispatch_inplace as _dispatch_inplace
from ._profiler_events import EventList, FunctionEvent

_clock = time.perf_counter_ns
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NO_SEQ = (1 << 64) - 1  # AccumulateGrad's number: no forward op made it


# ------------------------------------------------------------------ raw event kinds
class _Kind:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


_EVAL = _Kind("evaluate_function")  # (EVAL, t0, t1, seq, node name)
_NODE = _Kind("node")               # (NODE, t0, t1, seq, (node name, allocations))
_USER = _Kind("user_annotation")    # (USER, t0, t1, -1, name)
# as recorded, a backward node's two events are one tuple (one append):
_BWD = _Kind("backward")  # (BWD, t0, t1, seq, (node name, node t0, node t1, allocations))
# a forward op: (op, t0, t1, seq of its output's node or -1, info or None), info being
# (input shapes, allocations, stack)


def _seq_now():
    """The sequence number the next backward node will get (not consuming it)."""
    try:
        return _graph._sequence_nr.__reduce__()[1][0]
    except Exception:  # pragma: no cover - a counter without __reduce__
        return int(repr(_graph._sequence_nr)[6:-1])


def _out_seq(r):
    """The sequence number of the backward node of an op's (first) output, or -1."""
    if r.__class__ is tuple or r.__class__ is list or isinstance(r, tuple):
        for x in r:
            if isinstance(x, Tensor):
                r = x
                break
        else:
            return -1
    if isinstance(r, Tensor):
        g = r._grad_fn
        if g is not None:
            s = g._seq
            return -1 if s == _NO_SEQ else s
    return -1


def _shapes(op, args, kwargs):
    out = []
    for a in args:
        if a is op:
            continue
        out.append(list(a._data.shape) if isinstance(a, Tensor) else [])
    for k, a in kwargs.items():
        if k == "out" and a is None:  # (PyTorch's .out overload is another op)
            continue
        out.append(list(a._data.shape) if isinstance(a, Tensor) else [])
    return out


def _allocations(r, args):
    """(id, nbytes) of each array an op's outputs own that is none of its inputs'."""
    outs = r if isinstance(r, (tuple, list)) else (r,)
    ins = None
    found = []
    for o in outs:
        if isinstance(o, Tensor):
            d = o._data
            if d.base is None:
                if ins is None:
                    ins = {id(a._data) for a in args if isinstance(a, Tensor)}
                if id(d) not in ins:
                    found.append((id(d), d.nbytes))
    return found


def _user_stack(skip):
    """The Python frames of the user's call, innermost first (PyTorch's ``stack``):
    graphgrad's own frames are left out."""
    f = sys._getframe(skip)
    out = []
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_PKG_DIR) and not fn.startswith("<graphgrad"):
            out.append(f"{fn}({f.f_lineno}): {f.f_code.co_name}")
        f = f.f_back
    return out


# ------------------------------------------------------------------ the recorder
_Node = _graph.Node
_NODE_NAMES = {}  # node class -> its name(), for the classes whose name is the class's

class _Recorder:
    """What one profiling session collects (NOTE [profiler]).  It is ``tls.profiler``
    while the session runs; the engine calls its ``backward_event``."""

    def __init__(self, record_shapes, profile_memory, with_stack):
        self.raw = []
        self.pending = None  # a backward node's turn not yet ended (timed_step)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.tid = threading.get_native_id()
        self.t_start = self.t_end = 0
        self.wall_start_ns = 0
        self.seq_start = 0
        self.overhead = None
        self.interposer = self._make_interposer()

    def _make_interposer(self):
        detailed = self.record_shapes or self.profile_memory or self.with_stack
        if not detailed:
            return Timer(self.raw.append, _out_seq)  # (interposed() times the calls itself)
        shapes, memory, stack = self.record_shapes, self.profile_memory, self.with_stack

        def before(op, args, kwargs):
            return (_shapes(op, args, kwargs) if shapes else None,
                    _user_stack(3) if stack else None)

        def after(info, r, args):
            return (info[0], _allocations(r, args) if memory else None, info[1])
        return Timer(self.raw.append, _out_seq, before, after)

    def timed_step(self, node, grads, keep_graph):
        """Run a node's plain step (the engine's short path, NOTE [profiled backward]);
        its turn stays open until the next one begins (``close_turn``)."""
        p = self.pending
        if p is not None:  # (the previous turn ends here; its bookkeeping is outside)
            self.backward_event(p[0], p[1], p[1], p[2], _clock(), p[3])
        t0 = _clock()
        outs = node._step(grads, keep_graph)
        t1 = _clock()
        self.pending = (node, t0, t1, outs if self.profile_memory else None)
        return outs

    def close_turn(self, t):
        p = self.pending
        if p is not None:
            self.pending = None
            self.backward_event(p[0], p[1], p[1], p[2], t, p[3])

    def backward_event(self, node, t_eval, t_node, t_node_end, t_end, outs):
        """One backward node's turn (engine NOTE [profiled backward])."""
        cls = node.__class__
        name = _NODE_NAMES.get(cls)
        if name is None:
            name = node.name()
            if cls.name is _Node.name or cls.name is _graph.AccumulateGrad.name:
                _NODE_NAMES[cls] = name  # (a class whose name() is fixed)
        seq = node._seq
        if seq == _NO_SEQ:
            seq = -1
        allocs = None
        if self.profile_memory and outs:
            allocs = []
            for g in outs:
                d = g._data if isinstance(g, Tensor) else g
                if isinstance(d, np.ndarray) and d.base is None:
                    allocs.append((id(d), d.nbytes))
        self.raw.append((_BWD, t_eval, t_end, seq, (name, t_node, t_node_end, allocs), None))


# ------------------------------------------------------------------ calibration
_calibrated = {}


def _calibrate(rec):
    """The profiler's own time per event, measured once per process and configuration
    (NOTE [profiler]): ``inner`` (inside an op's recorded interval but not the op's:
    the interposition of the call), ``outer`` (around it: the interposer's frame and its
    bookkeeping), ``clock`` (one timestamp) and ``bwd`` (recording a backward node)."""
    key = (rec.record_shapes, rec.profile_memory, rec.with_stack)
    got = _calibrated.get(key)
    if got is not None:
        return got
    # (with grad recording: the op's own path under a profiler is part of what the
    # profiler costs, e.g. the dispatcher's slow path while any interposer is on)
    x = Tensor._wrap(np.zeros(1))
    x.requires_grad_(True)
    n = 100
    plain = []
    prof = []
    recorded = []
    probe = _Recorder(*key)
    for _ in range(7):
        t = _clock()
        for _ in range(n):
            _sin(x)
        plain.append((_clock() - t) / n)
        del probe.raw[:]
        with interposing(probe.interposer):
            t = _clock()
            for _ in range(n):
                _sin(x)
            t = _clock() - t
        prof.append(t / n)
        recorded.append(sum(e[2] - e[1] for e in probe.raw) / n)
    wall_plain = min(plain)
    wall_prof = min(prof)
    rec_mean = min(recorded)
    inner = max(0.0, rec_mean - wall_plain)
    outer = max(0.0, wall_prof - rec_mean)
    clocks = []
    for _ in range(5):
        t = _clock()
        for _ in range(n):
            _clock()
        clocks.append((_clock() - t) / n)
    clock = min(clocks)

    class _Probe:
        _seq = 0

        def name(self):
            return "probe"
    node = _Probe()
    bwd = []
    for _ in range(5):
        del probe.raw[:]
        t = _clock()
        for _ in range(n):
            probe.backward_event(node, 0, 0, 0, 0, None)
        bwd.append((_clock() - t) / n)
    got = _calibrated[key] = {"inner": inner, "outer": outer, "clock": clock,
                              "bwd": min(bwd)}
    return got


def _virtual_times(raw, oh):
    """Each raw event's start and end on a clock that stops while the profiler works
    (NOTE [profiler]): every event's bookkeeping is placed where it happens (before its
    start, before its end, after its end) and subtracted from all later times."""
    n = len(raw)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    t0 = np.array([e[1] for e in raw], dtype=np.float64)
    t1 = np.array([e[2] for e in raw], dtype=np.float64)
    pre = np.empty(n)
    inner = np.empty(n)
    post = np.empty(n)
    c = oh["clock"]
    for i, e in enumerate(raw):
        k = e[0]
        if k is _EVAL:
            pre[i], inner[i], post[i] = 0.0, 1.5 * c, oh["bwd"] + 0.5 * c
        elif k is _NODE or k is _USER:
            pre[i], inner[i], post[i] = 0.0, c, 0.0
        else:
            pre[i], inner[i], post[i] = oh["outer"] / 2, oh["inner"], oh["outer"] / 2
    # (half a nanosecond before the start, before the end, after the end)
    pts = np.concatenate([t0 - 0.5, t1 - 0.5, t1 + 0.5])
    o = np.argsort(pts, kind="stable")
    pts = pts[o]
    cum = np.concatenate([[0.0], np.cumsum(np.concatenate([pre, inner, post])[o])])
    # v(t) = t - (bookkeeping placed before t); made non-decreasing so that nesting holds
    q = np.concatenate([t0, t1])
    idx = np.searchsorted(pts, q, side="left")
    v = q - cum[idx]
    oq = np.argsort(q, kind="stable")
    v[oq] = np.maximum.accumulate(v[oq])
    return v[:n], v[n:]


# ------------------------------------------------------------------ building events
def _op_name(op, entry=None):
    """PyTorch's name of an op's event: ``aten::`` and the op's name before the overload
    (``mul.Tensor``: ``aten::mul``); ``aten::mul_`` when it ran in place."""
    if op.__class__ is Composite:
        return "aten::" + op.name
    name = getattr(op, "name", None) or getattr(op, "__name__", str(op))
    name = "aten::" + name.split(".")[0]
    if entry is _dispatch_inplace and not name.endswith("_"):
        name += "_"
    return name


def _build_events(rec):
    """The recorder's raw tuples as FunctionEvents, with their tree, self times,
    forward sequence numbers, allocations and the forward op of each backward node."""
    raw = []
    for e in rec.raw:
        if e[0] is _BWD:
            name, n0, n1, allocs = e[4]
            raw.append((_EVAL, e[1], e[2], e[3], name, None))
            raw.append((_NODE, n0, n1, e[3], (name, allocs), None))
        else:
            if e[0].__class__ is Composite and raw:
                # a composite public function of the name of the table op it ends with
                # (graphgrad's mm checks, then dispatches mm): one aten::mm, as PyTorch's
                p = raw[-1]
                if p[0].__class__ is not Composite and p[0] is not _EVAL and \
                        p[0] is not _NODE and p[0] is not _USER and \
                        p[1] >= e[1] and p[2] <= e[2] and \
                        _op_name(p[0], p[5]) == _op_name(e[0]):
                    raw.pop()
                    if e[3] < 0 <= p[3]:
                        e = e[:3] + (p[3],) + e[4:]
            raw.append(e)
    oh = rec.overhead or {"inner": 0.0, "outer": 0.0, "clock": 0.0, "bwd": 0.0}
    v0, v1 = _virtual_times(raw, oh)
    base = rec.t_start
    # the op that made each backward node, and which forward events carry its number:
    # walking events by end time, the first one whose output has node s made it (it
    # ended first: the innermost); an enclosing op (a composite) carries s too, a later
    # op merely returning that tensor does not
    order = sorted(range(len(raw)), key=lambda i: (raw[i][2], -raw[i][1]))
    creator = {}
    seqs = [-1] * len(raw)
    allocs = [0] * len(raw)
    seen = set()
    for i in order:
        kind, t0, t1, s, info, entry = raw[i]
        if kind is _EVAL or kind is _USER:
            seqs[i] = s
            continue
        if kind is _NODE:
            seqs[i] = s
            found = info[1]
        else:
            if s >= rec.seq_start:
                c = creator.get(s)
                if c is None:
                    creator[s] = i
                    seqs[i] = s
                elif raw[c][1] >= t0 and raw[c][2] <= t1:
                    seqs[i] = s
            found = info[1] if info is not None else None
        if found:
            n = 0
            for key, nbytes in found:
                if key not in seen:
                    seen.add(key)
                    n += nbytes
            allocs[i] = n
    events = EventList(profile_memory=rec.profile_memory)
    start_order = sorted(range(len(raw)), key=lambda i: (raw[i][1], -raw[i][2]))
    ev_of = [None] * len(raw)
    for k, i in enumerate(start_order):
        kind, t0, t1, s, info, entry = raw[i]
        start = (v0[i] - base) / 1000.0
        end = (v1[i] - base) / 1000.0
        if kind is _EVAL:
            e = FunctionEvent(k + 1, "autograd::engine::evaluate_function: " + info,
                              rec.tid, start, end, sequence_nr=seqs[i],
                              fwd_thread=1 if seqs[i] >= 0 else None)
        elif kind is _NODE:
            e = FunctionEvent(k + 1, info[0], rec.tid, start, end, sequence_nr=seqs[i],
                              fwd_thread=1 if seqs[i] >= 0 else None)
        elif kind is _USER:
            # (PyTorch's events name every step "ProfilerStep*", so that key_averages adds
            # them up; the trace keeps each one's number)
            e = FunctionEvent(k + 1, "ProfilerStep*" if info.startswith("ProfilerStep#")
                              else info, rec.tid, start, end, is_user_annotation=True,
                              category="user_annotation")
            e.trace_name = info
        else:
            shapes = stack = None
            if info is not None:
                shapes, _, stack = info
            e = FunctionEvent(k + 1, _op_name(kind, entry), rec.tid, start, end,
                              input_shapes=shapes, stack=stack, sequence_nr=seqs[i],
                              fwd_thread=0 if seqs[i] >= 0 else None)
        e._raw = (t0, t1)
        e.time_range.start = float(e.time_range.start)
        e.time_range.end = float(e.time_range.end)
        e.cpu_memory_usage = allocs[i]
        ev_of[i] = e
        events.append(e)
    # tree from the raw times (exact nesting); then memory totals include the children's
    by_raw = sorted(events, key=lambda e: (e._raw[0], -e._raw[1], e.id))
    stack = []
    for e in by_raw:
        while stack and stack[-1]._raw[1] < e._raw[1]:
            stack.pop()
        if stack:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
    for e in reversed(by_raw):  # children before parents
        if e.cpu_children:
            e.cpu_memory_usage += sum(c.cpu_memory_usage for c in e.cpu_children)
    events._tree_built = True
    # flow links: each backward node to the forward op that made it
    flows = []
    for i, e in enumerate(ev_of):
        if raw[i][0] is _NODE and e.sequence_nr >= 0:
            c = creator.get(e.sequence_nr)
            if c is not None:
                flows.append((ev_of[c], e))
    events._trace = (rec, flows)
    return events

