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
import time
import warnings

from .._core.state import tls
from ._profiler_events import (  # noqa: F401  (re-exported: profiler_util, the tests)
    DeviceType, EventList, FunctionEvent, FunctionEventAvg, Interval, _build_table,
    _format_memory, _format_time, _format_time_share)
from ._profiler_record import (_USER, _Recorder, _build_events, _calibrate,  # noqa: F401
                               _clock, _seq_now, _virtual_times)

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList",
           "FunctionEvent", "FunctionEventAvg", "DeviceType", "kineto_available"]


def kineto_available():
    return False


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
