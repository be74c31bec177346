"""``graphgrad.cpu``: PyTorch's ``torch.cpu`` (graphgrad runs on the CPU only)."""
from . import amp  # noqa: F401

__all__ = ["amp", "is_available", "device_count", "current_device", "synchronize"]


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    return None
