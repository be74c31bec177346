"""The autograd profiler: PyTorch's ``torch.autograd.profiler`` (``profile``,
``record_function``, ``EventList``, ``FunctionEvent``, ``FunctionEventAvg``).

NOTE [profiler]: while a ``profile`` is active on a thread it is that thread's
``tls.profiler`` and one of its interposers (ops/interpose.py, NOTE [interposition]):

- every op call passes through the interposer, which takes a timestamp on each side of
  the call and appends one tuple to a list (the op, the two times, the sequence number of
  the output's backward node, and the shapes/allocations/stack when asked for);
- a backward started on the thread runs in the engine's counting loop with each node
  timed (NOTE [profiled backward] in engine/loop.py), which appends PyTorch's
  "autograd::engine::evaluate_function: <node>" and "<node>" events;
- ``record_function`` appends a user annotation.

Nothing else happens while the program runs: the events' nesting, self times, sequence
numbers of the forward ops, allocations and flow links are worked out once, when the
results are first asked for.  The profiler's own bookkeeping (the interposer's frames,
the timestamps, the appends) costs a fixed time per event, measured once per process
(``_calibrate``); it is taken out of every reported time by a clock that stops while
the profiler works (``_virtual_times``), so a parent's time does not grow with the
number of events inside it.
"""
from __future__ import annotations

import functools
import gzip
import json
import os
import sys
import threading
import time
import warnings
from collections import defaultdict

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor
from ..autograd import graph as _graph
from ..ops.interpose import Composite, Timer, interposing
from ..ops.registry import PUBLIC
from ..ops.inplace import dispatch_inplace as _dispatch_inplace

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList",
           "FunctionEvent", "FunctionEventAvg", "DeviceType", "kineto_available"]

_clock = time.perf_counter_ns
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NO_SEQ = (1 << 64) - 1  # AccumulateGrad's number: no forward op made it


class DeviceType:
    """PyTorch's ``torch.autograd.DeviceType`` (only the CPU exists here)."""
    CPU = "CPU"
    CUDA = "CUDA"


def kineto_available():
    return False


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
    _sin = PUBLIC["sin"]
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


# ------------------------------------------------------------------ events
def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb = 1024
    mb = kb * 1024
    gb = mb * 1024
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return f"{nbytes} B"


class Interval:
    """PyTorch's ``time_range``: start and end in microseconds."""

    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start:.3f}, end={self.end:.3f})"


class _TimesMixin:
    """The ``*_str`` properties PyTorch's table prints."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0

    cuda_time = device_time

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    device_time_total = 0.0
    self_device_time_total = 0.0
    cuda_time_total = 0.0
    self_cuda_time_total = 0.0
    device_memory_usage = 0
    self_device_memory_usage = 0
    cuda_memory_usage = 0
    self_cuda_memory_usage = 0


class FunctionEvent(_TimesMixin):
    """One recorded event: an op (``aten::mul``), a backward node (``MulBackward0`` and
    its ``autograd::engine::evaluate_function: MulBackward0``) or a ``record_function``
    range.  Times are in microseconds."""

    count = 1
    node_id = -1
    is_async = False
    is_remote = False
    is_legacy = False
    use_device = None
    device_type = DeviceType.CPU
    overload_name = ""
    flops = 0
    scope = 0
    kernels = ()
    device_index = 0
    trace_name = None
    concrete_inputs = ()

    def __init__(self, id, name, thread, start_us, end_us, fwd_thread=None,
                 input_shapes=None, stack=None, sequence_nr=-1, cpu_memory_usage=0,
                 is_user_annotation=False, category="cpu_op"):
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.fwd_thread = fwd_thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.sequence_nr = sequence_nr
        self.cpu_memory_usage = cpu_memory_usage
        self.is_user_annotation = is_user_annotation
        self.category = category
        self.cpu_children = []
        self.cpu_parent = None

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return max(0.0, self.cpu_time_total - sum(c.cpu_time_total
                                                  for c in self.cpu_children))

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"seq_nr={self.sequence_nr}>")


class FunctionEventAvg(_TimesMixin):
    """Events of one key added up (``key_averages``)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_parent = None
        self.cpu_children = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise TypeError("FunctionEventAvg.add(): expected a FunctionEvent or a "
                            f"FunctionEventAvg, got {type(other).__name__}")
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.device_type = other.device_type
            self.is_user_annotation = other.is_user_annotation
        elif other.key != self.key:
            raise ValueError(f"FunctionEventAvg.add(): keys differ ({other.key!r} vs "
                             f"{self.key!r}); add events of one key only")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        self.flops += other.flops or 0
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str}"
                f" cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events with PyTorch's summaries: ``key_averages``, ``table``,
    ``total_average``, ``self_cpu_time_total``, ``export_chrome_trace``."""

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False
        self._trace = None  # (recorder, flows) for export_chrome_trace

    def _build_tree(self):
        """Parents and children from the events' time ranges (each thread's events
        nest)."""
        by_thread = defaultdict(list)
        for e in self:
            by_thread[e.thread].append(e)
        for events in by_thread.values():
            events.sort(key=lambda e: (e.time_range.start, -e.time_range.end, e.id))
            stack = []
            for e in events:
                while stack and stack[-1].time_range.end < e.time_range.end:
                    stack.pop()
                while stack and e.time_range.start >= stack[-1].time_range.end and \
                        e.time_range.start != e.time_range.end:
                    stack.pop()
                if stack:
                    e.cpu_parent = stack[-1]
                    stack[-1].cpu_children.append(e)
                stack.append(e)
        self._tree_built = True

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False, *, group_by_input_shapes=None):
        """Events added up per name (and input shapes, and top stack frames)."""
        if group_by_input_shapes is not None:  # (PyTorch's EventList spells it so)
            group_by_input_shape = group_by_input_shapes
        if not isinstance(group_by_stack_n, int) or group_by_stack_n < 0:
            raise ValueError("key_averages(): group_by_stack_n must be a non-negative int, "
                             f"got {group_by_stack_n!r}")
        stats = {}
        for e in self:
            key = [str(e.key), str(e.node_id), str(e.device_type), str(e.is_legacy),
                   str(e.is_user_annotation)]
            if group_by_input_shape:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += list(e.stack[:group_by_stack_n])
            key = tuple(key)
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg()
            avg.add(e)
        out = EventList(stats.values(), use_device=self._use_device,
                        profile_memory=self._profile_memory, with_flops=self._with_flops)
        for avg in out:
            avg.stack = list(avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shape:
                avg.input_shapes = ""
            if not group_by_overload_name:
                avg.overload_name = ""
        return out

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.key = None
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """PyTorch's table: one row per event, sorted by the attribute ``sort_by``."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            profile_memory=self._profile_memory,
                            top_level_events_only=top_level_events_only,
                            time_unit=time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as Trace Event Format JSON (chrome://tracing, Perfetto)."""
        _write_trace(self, path)


_SORT_KEYS = ("cpu_time", "cuda_time", "xpu_time", "cpu_time_total", "cuda_time_total",
              "xpu_time_total", "cpu_memory_usage", "cuda_memory_usage",
              "xpu_memory_usage", "self_cpu_memory_usage", "self_cuda_memory_usage",
              "self_xpu_memory_usage", "count", "self_cpu_time_total",
              "self_cuda_time_total", "self_xpu_time_total", "device_time",
              "device_time_total", "self_device_time_total", "device_memory_usage",
              "self_device_memory_usage")


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device")
        if sort_by not in _SORT_KEYS or not hasattr(events[0], attr):
            raise AttributeError(f"table(): cannot sort by {sort_by!r}; use one of "
                                 + ", ".join(_SORT_KEYS))
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    if time_unit not in (None, "s", "ms", "us"):
        raise ValueError(f"table(): time_unit must be 's', 'ms' or 'us', got {time_unit!r}")

    def fmt_time(us):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return _format_time(us)

    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    src_w = None
    if stacks:
        src_w = max(len(entry) for s in stacks for entry in s) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [(name_w, ">")] + [(12, ">")] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_w, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_w, "<"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    header_sep = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]

    def trim(path):
        if len(path) > src_w:
            path = path[len(path) - src_w:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total_self),
               fmt_time(e.self_cpu_time_total),
               _format_time_share(e.cpu_time_total, total_self) if not e.is_async else 0,
               fmt_time(e.cpu_time_total), fmt_time(e.cpu_time)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage),
                    _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if stacks:
            row.append(trim(e.stack[0]) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [trim(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(header_sep)
    lines.append(f"Self CPU time total: {fmt_time(total_self)}")
    return "".join(s + "\n" for s in lines)


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


def _write_trace(events, path):
    rec, flows = events._trace if events._trace is not None else (None, [])
    pid = os.getpid()
    tid = rec.tid if rec is not None else threading.get_native_id()
    base_us = 0.0
    trace = []
    trace.append({"ph": "M", "name": "process_name", "ts": base_us, "pid": pid, "tid": 0,
                  "args": {"name": "python"}})
    trace.append({"ph": "M", "name": "process_labels", "ts": base_us, "pid": pid, "tid": 0,
                  "args": {"labels": "CPU"}})
    trace.append({"ph": "M", "name": "thread_name", "ts": base_us, "pid": pid, "tid": tid,
                  "args": {"name": f"thread {tid} (python)"}})
    flow_ids = {}
    for e in sorted(events, key=lambda e: (e.time_range.start, e.id)):
        args = {"External id": e.id, "Record function id": 0, "Ev Idx": e.id - 1}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
            args["Fwd thread id"] = e.fwd_thread
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace.append({"ph": "X", "cat": e.category, "name": e.trace_name or e.name,
                      "pid": pid,
                      "tid": e.thread, "ts": round(e.time_range.start, 3),
                      "dur": round(max(0.0, e.cpu_time_total), 3), "args": args})
    for fwd, bwd in flows:
        fid = flow_ids.get(id(fwd))
        if fid is None:
            fid = flow_ids[id(fwd)] = len(flow_ids) + 1
            trace.append({"ph": "s", "id": fid, "pid": pid, "tid": fwd.thread,
                          "ts": round(fwd.time_range.start, 3), "cat": "fwdbwd",
                          "name": "fwdbwd"})
        trace.append({"ph": "f", "id": fid, "pid": pid, "tid": bwd.thread,
                      "ts": round(bwd.time_range.start, 3), "cat": "fwdbwd",
                      "name": "fwdbwd", "bp": "e"})
    doc = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
           "baseTimeNanoseconds": rec.wall_start_ns if rec is not None else 0,
           "traceEvents": trace, "traceName": str(path)}
    data = json.dumps(doc)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(data)
    else:
        with open(path, "w") as f:
            f.write(data)


# ------------------------------------------------------------------ profile
class profile:
    """Profile the ops, backward nodes and ``record_function`` ranges a block runs on
    this thread (PyTorch's ``torch.autograd.profiler.profile``)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False,
                 with_modules=False, use_kineto=False, use_cpu=True, use_mtia=False,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        self.enabled = bool(enabled)
        if not self.enabled:
            return
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
        if use_cuda or use_device not in (None, "cpu"):
            warnings.warn("CUDA is not available, disabling CUDA profiling "
                          "(graphgrad profiles the CPU only)", stacklevel=2)
        if not use_cpu:
            raise AssertionError("profile(use_cpu=False): graphgrad profiles the CPU only, "
                                 "so no activities would be recorded; pass use_cpu=True")
        self.use_device = None
        self.record_shapes = bool(record_shapes)
        self.with_flops = bool(with_flops)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_modules = bool(with_modules)
        self.use_cpu = True
        self.acc_events = bool(acc_events)
        self.entered = False
        self._rec = None
        self._running = False
        self._function_events = None
        self._old_events = None

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        return self

    def _start(self):
        if tls.profiler is not None:
            raise RuntimeError(
                "profile(): a profiler is already running on this thread; finish it "
                "before starting another one (graphgrad profiles one session per thread)")
        self.entered = True
        rec = _Recorder(self.record_shapes, self.profile_memory, self.with_stack)
        rec.overhead = _calibrate(rec)
        if self.acc_events and self._rec is not None:  # (keep the earlier sessions')
            self._old_events = self._ensure_function_events()
        self._function_events = None
        self._rec = rec
        self._running = True
        rec.seq_start = _seq_now()
        rec.wall_start_ns = time.time_ns()
        tls.profiler = rec
        tls.interposers = tls.interposers + (rec.interposer,)
        tls.refresh()
        rec.t_start = _clock()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        self._stop()
        return False

    def _stop(self):
        rec = self._rec
        if rec is None or not self._running:
            return
        rec.t_end = _clock()
        self._running = False
        if tls.profiler is rec:
            tls.profiler = None
        tls.interposers = tuple(i for i in tls.interposers if i is not rec.interposer)
        tls.refresh()

    def _ensure_function_events(self):
        if self._running:
            raise RuntimeError("Profiler didn't finish running: read the results after the "
                               "`with profile(...)` block (or after stop())")
        if self._function_events is None:
            if self._rec is None:
                raise RuntimeError("Profiler didn't finish running: it was never started; "
                                   "run the code inside `with profile(...) as prof:`")
            self._function_events = _build_events(self._rec)
            if self._old_events is not None:
                self._function_events.extend(self._old_events)
                self._old_events = None
        return self._function_events

    @property
    def function_events(self):
        return self._ensure_function_events()

    def events(self):
        return self._ensure_function_events()

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        return self._ensure_function_events().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path):
        return self._ensure_function_events().export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        return self._ensure_function_events().key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        return self._ensure_function_events().total_average()

    @property
    def self_cpu_time_total(self):
        return self._ensure_function_events().self_cpu_time_total

    def __repr__(self):
        if self._running or self._rec is None:
            return "<unfinished graphgrad.autograd.profile>"
        return repr(self._ensure_function_events())

    def __str__(self):
        if self._running or self._rec is None:
            return "<unfinished graphgrad.autograd.profile>"
        return str(self._ensure_function_events())


class record_function:
    """Label a block (``with record_function("name"):``) or a function
    (``@record_function("name")``) as one event of the active profiler."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise RuntimeError("record_function(): name must be a str, got "
                               f"{type(name).__name__}: record_function('my_block')")
        if args is not None and not isinstance(args, str):
            raise RuntimeError("record_function(): args must be a str or None, got "
                               f"{type(args).__name__}")
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self.record = None

    def __enter__(self):
        self.record = (tls.profiler, _clock())
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return False
        record = self.record
        if record is None:
            raise AssertionError("record_function: __exit__ without __enter__; use it as "
                                 "`with record_function(name):` or as a decorator")
        self.record = None
        rec, t0 = record
        if rec is not None:
            t1 = _clock()
            rec.raw.append((_USER, t0, t1, -1, self.name, None))
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


class _NoOpRanges:
    _what = ""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError(f"{type(self).__name__} context manager is not reentrant")
        self.entered = True
        warnings.warn(f"{type(self).__name__}: {self._what} is not available in graphgrad; "
                      "the block runs unprofiled (use graphgrad.autograd.profiler.profile)",
                      UserWarning, stacklevel=2)
        return self

    def __exit__(self, *exc):
        self.entered = False
        return False


class emit_nvtx(_NoOpRanges):
    """PyTorch's NVTX ranges for nvprof: no CUDA here, so a no-op with a warning."""
    _what = "NVTX (CUDA) ranges"


class emit_itt(_NoOpRanges):
    """PyTorch's ITT ranges for VTune: a no-op with a warning."""
    _what = "ITT (VTune) ranges"
