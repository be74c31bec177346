"""Version counters: shared by a tensor and its views, bumped by every in-place op.

A saved tensor remembers the counter's value at save time (autograd/saved.py); unpacking
it after an in-place change raises.  The counter lives in layer 0 because the Tensor
(layer 1) holds one and the graph (layer 2) reads it.
"""
from __future__ import annotations

__all__ = ["VersionCounter", "INFERENCE"]


class VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place op."""

    __slots__ = ("value",)
    inference = False

    def __init__(self, value=0):
        self.value = value


class _InferenceCounter(VersionCounter):
    """Marker held by inference tensors, which track no version."""

    __slots__ = ()
    inference = True


INFERENCE = _InferenceCounter()
