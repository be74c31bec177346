"""Thread-local autograd state, read once per op on the hot path.

Every switch PyTorch keeps per thread lives on one ``threading.local``: grad
mode, inference mode, the forward-AD level, anomaly mode, saved-tensor hooks
and the profiler.  ``tls.extra`` is True whenever any of the rarely-used
features is on, and ``tls.fast`` when grad mode is on and ``extra`` is off, so the
dispatcher tests one flag to stay on its fast path.
"""
from __future__ import annotations

import threading


class _State(threading.local):
    # class attributes are each thread's starting values
    _grad_enabled = True
    fast = True             # grad_enabled and not extra: the dispatcher's one-flag test
    inference = False       # inside inference_mode(True)
    fw_level = None         # the active forward_ad level object, or None
    anomaly = False
    anomaly_check_nan = True
    saved_hooks = ()        # stack of (pack, unpack) pairs; innermost last
    saved_hooks_disabled = None  # message when disable_saved_tensors_hooks is on
    profiler = None         # the active profiler, or None
    mutation_ctx = None     # the active allow_mutation_on_saved_tensors, or None
    extra = False           # any of: inference, fw_level, saved_hooks, profiler, anomaly
    engine_depth = 0        # nesting of backward calls on this thread

    @property
    def grad_enabled(self):
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, mode):
        self._grad_enabled = mode
        self.fast = bool(mode) and not self.extra

    def refresh(self):
        self.extra = bool(self.inference or self.fw_level is not None or self.saved_hooks
                          or self.profiler is not None or self.saved_hooks_disabled
                          or self.anomaly or self.mutation_ctx is not None)
        self.fast = bool(self._grad_enabled) and not self.extra


tls = _State()
