"""Small torch.autograd names: multithreading switch, version bump, SavedTensor guard.

graphgrad's engine always runs a backward on the calling thread (PyTorch's CPU engine
does the same; only its device threads are affected by the multithreading switch), so
``set_multithreading_enabled`` only records the flag that ``is_multithreading_enabled``
reports, per thread, as PyTorch's is.
"""
from __future__ import annotations

import threading

from .grad_mode import _DecoratorContextManager
from .._tensor.tensor import Tensor
from .._core.version import INFERENCE

__all__ = ["set_multithreading_enabled", "is_multithreading_enabled", "increment_version",
           "SavedTensor"]

_mt = threading.local()


def is_multithreading_enabled():
    """Whether multithreaded backward is enabled (the default); a flag only in graphgrad."""
    return getattr(_mt, "enabled", True)


class set_multithreading_enabled(_DecoratorContextManager):
    """Enable/disable multithreaded backward: a function call takes effect at once; also
    a context manager restoring the previous setting.  No effect on how graphgrad runs
    backward (always on the calling thread)."""

    def __init__(self, mode):
        self.prev = is_multithreading_enabled()
        self.mode = bool(mode)
        _mt.enabled = self.mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _mt.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place op would: saved copies of it then fail the backward version check.
    Inference tensors have no version counter and are skipped."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tuple(tensor)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"increment_version(): expected a Tensor or an iterable of Tensors, "
                            f"got {type(t).__name__}")
        if t._vc is not INFERENCE:
            t._bump_version()


class SavedTensor:
    """The type of the entries of ``grad_fn._raw_saved_tensors``; only autograd makes them."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
