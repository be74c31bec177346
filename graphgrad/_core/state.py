"""Thread-local autograd state, read once per op on the hot path.

Every switch PyTorch keeps per thread lives on one ``threading.local``: grad
mode, inference mode, the forward-AD level, anomaly mode, saved-tensor hooks
and the profiler.  ``tls.extra`` is True whenever any of the rarely-used
features is on, and ``tls.fast`` when grad mode is on and ``extra`` is off, so the
dispatcher tests one flag to stay on its fast path.

Reading a ``threading.local`` attribute costs several times a plain attribute read
(measured ~650 instructions on CPython 3.11), so the hot path reads ``HOT.fast``
instead: a process-wide flag that is True while *every* thread is in the default
state (grad mode on, nothing extra).  A thread that leaves the default state holds a
``_Detour`` token in its ``tls``; while any token lives ``HOT.fast`` is False and all
threads take the (always correct) path that reads their own ``tls``.  The token is
dropped when the thread returns to the default state, or with the thread's locals
when the thread ends.
"""
from __future__ import annotations

import threading


class _Hot:
    __slots__ = ("fast",)


HOT = _Hot()
HOT.fast = True


class _Warnings:
    """``set_warn_always``: warnings PyTorch gives once per process (TORCH_WARN_ONCE) are
    given every time while ``always`` is set (process-wide, as in PyTorch)."""

    always = False


WARNINGS = _Warnings()


def set_warn_always(b):
    """PyTorch's ``torch.set_warn_always``: warn every time, not once per process."""
    WARNINGS.always = bool(b)


def is_warn_always_enabled():
    return WARNINGS.always


_detours = 0
_detour_lock = threading.Lock()


class _Detour:
    """Held in ``tls.detour`` while this thread is off the fast path."""

    __slots__ = ()

    def __init__(self):
        global _detours
        with _detour_lock:
            _detours += 1
            HOT.fast = False

    def __del__(self):
        global _detours
        with _detour_lock:
            _detours -= 1
            HOT.fast = _detours == 0


class _State(threading.local):
    # class attributes are each thread's starting values
    _grad_enabled = True
    fast = True             # grad_enabled and not extra: the dispatcher's one-flag test
    inference = False       # inside inference_mode(True)
    fw_level = None         # the active forward_ad level object, or None
    anomaly = False
    anomaly_check_nan = True
    anomaly_node = None     # anomaly mode: the node the innermost backward is processing
    saved_hooks = ()        # stack of (pack, unpack) pairs; innermost last
    saved_hooks_disabled = None  # message when disable_saved_tensors_hooks is on
    profiler = None         # the active profiler, or None
    interposers = ()        # ops/interpose.py: active interposers (profiler, autocast...)
    interpose_skip = False  # ops/interpose.py: the next op entry is the chain's own call
    mutation_ctx = None     # the active allow_mutation_on_saved_tensors, or None
    extra = False           # any of: inference, fw_level, saved_hooks, profiler, anomaly,
                            # interposers
    extra_ops = False       # any of what ops/extras.py's _extra handles (inference,
                            # fw_level, saved_hooks, anomaly): False under a profiler alone
    engine_depth = 0        # nesting of backward calls on this thread
    detour = None           # a _Detour while ``fast`` is False (see HOT)

    @property
    def grad_enabled(self):
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, mode):
        self._grad_enabled = mode
        self._set_fast(bool(mode) and not self.extra)

    def refresh(self):
        self.extra_ops = bool(self.inference or self.fw_level is not None or self.saved_hooks
                              or self.anomaly)
        self.extra = bool(self.extra_ops or self.profiler is not None
                          or self.saved_hooks_disabled or self.mutation_ctx is not None
                          or self.interposers)
        self._set_fast(bool(self._grad_enabled) and not self.extra)

    def _set_fast(self, fast):
        self.fast = fast
        if fast:
            self.detour = None
        elif self.detour is None:
            self.detour = _Detour()


tls = _State()
