"""PyTorch's ``torch.profiler``: ``profile`` with ``schedule``/``on_trace_ready``/``step()``,
``ProfilerActivity``, ``ProfilerAction``, ``schedule`` and ``tensorboard_trace_handler``.

Each recording cycle of a ``profile`` is one ``graphgrad.autograd.profiler.profile``
session (NOTE [profiler] there); the schedule decides, step by step, when a session is
started, stopped and handed to ``on_trace_ready``, with PyTorch's transitions.
"""
from __future__ import annotations

import enum
import os
import time
import warnings

from ..autograd import profiler as _ap
from ..autograd.profiler import record_function  # noqa: F401

__all__ = ["profile", "schedule", "ProfilerAction", "ProfilerActivity", "record_function",
           "tensorboard_trace_handler", "supported_activities", "_KinetoProfile"]


class ProfilerActivity(enum.Enum):
    """The kinds of activity a profiler records (graphgrad has the CPU only)."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step: nothing, warm up, record, record and hand over."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The profiler's action at each step: ``skip_first`` steps of nothing, then cycles
    of ``wait`` idle, ``warmup`` warm-up and ``active`` recording steps (the last one
    RECORD_AND_SAVE), ``repeat`` times (0: for ever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        k = step % cycle
        if k < wait:
            return ProfilerAction.NONE
        if k < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False,
                              use_python_export=False):
    """An ``on_trace_ready`` that writes each trace as
    ``<dir_name>/<worker_name>.<time ns>.pt.trace.json[.gz]`` (TensorBoard's logdir);
    ``worker_name`` defaults to ``<hostname>_<pid>``."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            import socket   # (imported here: ~3 ms of every import graphgrad)
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class _KinetoProfile:
    """One profiler whose sessions are started and stopped by hand."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        acts = set()
        for a in (activities if activities is not None else supported_activities()):
            if isinstance(a, dict):
                acts.update(a.keys())
            elif isinstance(a, ProfilerActivity):
                acts.add(a)
            else:
                raise TypeError("profile(): activities must be ProfilerActivity values "
                                f"(e.g. ProfilerActivity.CPU), got {type(a).__name__}")
        if acts - {ProfilerActivity.CPU}:
            warnings.warn("CUDA is not available, disabling CUDA profiling (graphgrad "
                          "records the CPU activity only)", stacklevel=3)
        if ProfilerActivity.CPU not in acts:
            raise AssertionError("No activities specified for the profiler: graphgrad "
                                 "records ProfilerActivity.CPU only; pass "
                                 "activities=[ProfilerActivity.CPU]")
        self.activities = acts
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.profiler = None
        self.use_device = None
        self._metadata = {}

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is None or not self.acc_events:
            self.profiler = _ap.profile(record_shapes=self.record_shapes,
                                        profile_memory=self.profile_memory,
                                        with_stack=self.with_stack,
                                        with_flops=self.with_flops,
                                        with_modules=self.with_modules,
                                        acc_events=self.acc_events)

    def start_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler.entered = False
        self.profiler.__enter__()

    def stop_trace(self):
        if self.profiler is not None:
            self.profiler.__exit__(None, None, None)

    def _results(self):
        if self.profiler is None:
            raise RuntimeError("profiler: no results; nothing was recorded (run the code "
                               "inside `with profile(...)`, or check the schedule)")
        return self.profiler

    def export_chrome_trace(self, path):
        return self._results().export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        return self._results().key_averages(group_by_input_shape, group_by_stack_n,
                                            group_by_overload_name)

    def events(self):
        return self._results().function_events

    def add_metadata(self, key, value):
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        self._metadata[key] = value


class profile(_KinetoProfile):
    """PyTorch's ``torch.profiler.profile``: records while the block runs, or, with a
    ``schedule``, in the cycles it gives, calling ``on_trace_ready`` after each."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        if activities is None:
            activities = supported_activities()
        activities = set(a for a in activities) if not isinstance(activities, set) \
            else set(activities)
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                activities.add(ProfilerActivity.CUDA)
            else:
                activities.discard(ProfilerActivity.CUDA)
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules,
                         acc_events=acc_events)
        if schedule is not None:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        A = ProfilerAction
        warn_after = {A.WARMUP: "Incorrect schedule: WARMUP followed by NONE",
                      A.RECORD: "Incorrect schedule: RECORD followed by NONE"}
        self._warn_after = warn_after
        save = [self.stop_trace, self._trace_ready]
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [lambda: warnings.warn(warn_after[A.WARMUP]),
                                 self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [lambda: warnings.warn(warn_after[A.RECORD]),
                                 self.stop_trace],
            (A.RECORD, A.WARMUP): [lambda: warnings.warn(
                "Incorrect schedule: RECORD followed by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): save,
            (A.RECORD_AND_SAVE, A.WARMUP): save + [self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): save + [self.prepare_trace, self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): save + [self.prepare_trace,
                                                           self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): save,
            (A.RECORD_AND_SAVE, None): save,
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signal that the next step has started (the schedule's clock)."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if not isinstance(self.current_action, ProfilerAction):
            raise TypeError("profile(schedule=...): the schedule must return a "
                            f"ProfilerAction, got {type(self.current_action).__name__}")
        self._transit_action(prev, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), ()):
            action()
