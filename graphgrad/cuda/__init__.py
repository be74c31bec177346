"""``graphgrad.cuda``: there is no CUDA device (graphgrad runs on NumPy, on the CPU).

Queries answer as PyTorch's CPU build does (``is_available()`` is False, ``device_count()`` 0);
seeding is a silent no-op, as PyTorch's is without CUDA; anything that needs a device raises
PyTorch's ``AssertionError("Torch not compiled with CUDA enabled")``.
"""
from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "current_device", "synchronize", "device"]


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _lazy_seed(*args, **kwargs):
    return None


manual_seed = manual_seed_all = seed = seed_all = _lazy_seed


def _no_cuda(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled (graphgrad runs on the CPU only)")


current_device = synchronize = get_device_name = get_device_properties = set_device = _no_cuda


class device:
    """``with graphgrad.cuda.device(0):`` -- raises: there is no CUDA device."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        _no_cuda()

    def __exit__(self, *exc):
        return False


from . import amp  # noqa: E402,F401  (graphgrad.cuda.amp: names that raise, see there)
