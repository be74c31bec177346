"""The modes a fast path must agree with its general path in, for tests that run one
program on graphgrad and on torch: ``grad_modes(lib)[name]()`` is a context manager."""
import contextlib

GRAD_MODES = ("plain", "no_grad", "anomaly", "saved_hooks", "inference", "dual")


def grad_modes(lib):
    """plain (grad mode on, nothing extra: a plain thread), no_grad, anomaly mode,
    identity saved-tensor hooks, inference mode and a forward-AD level."""
    fa = lib.autograd.forward_ad
    return {
        "plain": contextlib.nullcontext,
        "no_grad": lib.no_grad,
        "anomaly": lambda: lib.autograd.detect_anomaly(check_nan=False),
        "saved_hooks": lambda: lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
        "inference": lib.inference_mode,
        "dual": fa.dual_level,
    }
