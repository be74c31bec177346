"""Thread-local autograd state, read once per op on the hot path.

Every switch PyTorch keeps per thread lives on one ``threading.local``: grad
mode, inference mode, the forward-AD level, anomaly mode, saved-tensor hooks
and the profiler.  ``tls.extra`` is True whenever any of the rarely-used
features is on, so the dispatcher tests one flag to stay on its fast path.
"""
from __future__ import annotations

import threading


class _State(threading.local):
    # class attributes are each thread's starting values
    grad_enabled = True
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

    def refresh(self):
        self.extra = bool(self.inference or self.fw_level is not None or self.saved_hooks
                          or self.profiler is not None or self.saved_hooks_disabled
                          or self.anomaly or self.mutation_ctx is not None)


tls = _State()
