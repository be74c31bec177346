"""Version counters: shared by a tensor and its views, bumped by every in-place op.

A saved tensor remembers the counter's value at save time (autograd/saved.py); unpacking
it after an in-place change raises.  The counter lives in layer 0 because the Tensor
(layer 1) holds one and the graph (layer 2) reads it.
"""
from __future__ import annotations

import weakref

__all__ = ["VersionCounter", "INFERENCE"]


class VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place op."""

    __slots__ = ("value", "__weakref__")
    inference = False

    def __init__(self, value=0):
        self.value = value


# NOTE [detach_ of a saved tensor]
# PyTorch refuses to unpack a saved non-leaf input that was detached in place since it was
# saved, and accepts a detached saved output.  Nodes store a saved input inline as the
# tensor and its version, and compare only the version in the hot path; so ``detach_()``
# of a tensor with history bumps its version counter, which sends the next unpack of anything
# saved from it to the slow path (``SavedVariable._check``).  There the bumps made by
# ``detach_()`` are told apart from real in-place changes: ``_DETACH_BUMPS`` maps a counter
# to the values it had right after each such bump, and ``_version`` does not count them.
_DETACH_BUMPS = weakref.WeakKeyDictionary()

DETACHED_MSG = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead")


def bump_for_detach(t):
    """``t.detach_()`` of a tensor with history: bump its counter (see the NOTE above)."""
    vc = t._vc
    if vc is None:
        vc = t._vc = VersionCounter()
    vc.value += 1
    _DETACH_BUMPS.setdefault(vc, []).append(vc.value)
    t._detached_at = vc.value


def detach_bumps_after(vc, version):
    """How many of ``vc``'s bumps after ``version`` were made by ``detach_()``."""
    bumps = _DETACH_BUMPS.get(vc)
    return 0 if bumps is None else sum(1 for b in bumps if b > version)


def user_version(vc):
    """The version PyTorch shows (``t._version``): in-place changes, not detach_ bumps."""
    return vc.value - detach_bumps_after(vc, 0)


class _InferenceCounter(VersionCounter):
    """Marker held by inference tensors, which track no version."""

    __slots__ = ()
    inference = True


INFERENCE = _InferenceCounter()
