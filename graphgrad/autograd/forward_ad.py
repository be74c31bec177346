"""Forward-mode AD (seed 004): dual levels, make_dual / unpack_dual, tangent propagation.

A dual tensor carries ``_fw = (level, tangent)``.  The dispatcher calls
``push_tangents`` after an op when a level is active; it evaluates the op's
JVP rule from the table (``LINEAR``, ``ELEMENTWISE`` or an explicit rule)
with the tangents, with the level switched off while it does so.  Tangents
are Tensors, so the JVP computation is itself recorded by reverse mode when
grad mode is on (forward-over-reverse).  A tangent belongs to one level;
once the level exits, the tangent is no longer seen.

Batched tangents (private: ``_batched_dual_level(n)``, used by
``functional.jacobian(strategy="forward-mode")``): every tangent of the level
has one extra leading dim of size n -- n tangents pushed through the function
in one pass, a small vmap for tangents only.  Each op declares in the table
how its JVP takes them (``batched_jvp``, see ``ops/registry.py``); an op
without a declaration goes through the fallback, which runs the unbatched
JVP once per batch entry and stacks the results, and is counted in
``_fallback_calls`` (tests assert that common functions never need it).
The zeros standing in for inputs without a tangent stay unbatched;
broadcasting covers them.
"""
from __future__ import annotations

import itertools

from collections import namedtuple
from .._core.state import tls
from .._tensor.tensor import Tensor
from .._core.version import INFERENCE
from ..ops.dispatch import dispatch
from ..ops.derivatives.shape import ALIAS, VIEW
from ..ops.forward_mode import _fallback_calls, tangent_of  # noqa: F401 (the counter of
# batched JVPs that took the per-entry fallback, read by the tests)

__all__ = ["dual_level", "make_dual", "unpack_dual", "enter_dual_level", "exit_dual_level",
           "UnpackedDualTensor"]

_level_ids = itertools.count()


class _Level:
    __slots__ = ("idx", "alive", "batch")

    def __init__(self, idx, batch=None):
        self.idx = idx
        self.alive = True
        self.batch = batch   # None, or the size of the leading batch dim of every tangent


def enter_dual_level():
    """Start a new forward-AD level and return its index (nesting is not supported)."""
    return _enter_level(None)


def _enter_level(batch):
    if tls.fw_level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    # levels are numbered by nesting depth, as in PyTorch (only one can be active: 0)
    lvl = _Level(0, batch)
    tls.fw_level = lvl
    tls.refresh()
    return lvl.idx


def exit_dual_level(*, level=None):
    lvl = tls.fw_level
    if lvl is None or (level is not None and level != lvl.idx):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    lvl.alive = False
    tls.fw_level = None
    tls.refresh()


def __getattr__(name):
    # PyTorch's module variable ``_current_level``: the active level's index, -1 outside
    # any (code checks ``fwAD._current_level >= 0`` to know it runs under forward AD)
    if name == "_current_level":
        lvl = tls.fw_level
        return -1 if lvl is None else lvl.idx
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class dual_level:
    """Context manager for a forward-AD level: tangents made inside vanish on exit."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


class _batched_dual_level:
    """A dual level whose tangents all carry a leading batch dim of ``batch_size``
    (private; ``make_dual`` then takes tangents of shape ``(batch_size, *primal.shape)``
    and ``unpack_dual`` returns such tangents)."""

    def __init__(self, batch_size):
        self.batch_size = int(batch_size)

    def __enter__(self):
        return _enter_level(self.batch_size)

    def __exit__(self, *exc):
        exit_dual_level()


UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def _current(level):
    lvl = tls.fw_level
    if lvl is None:
        return None
    if level is not None and level != lvl.idx:
        raise RuntimeError(f"level {level} is not the current forward AD level ({lvl.idx})")
    return lvl


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` as its forward gradient."""
    lvl = _current(level)
    if lvl is None:
        raise RuntimeError(
            "To create a dual Tensor, you need to be in a forward-mode AD level. Use `with "
            "graphgrad.autograd.forward_ad.dual_level():` (or enter_dual_level()) first.")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("make_dual expects Tensors for both the primal and the tangent")
    if tensor._data.dtype.kind not in "fcV" or (tensor.dtype.category < 2):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if tangent._data.dtype.kind not in "fcV" or (tangent.dtype.category < 2):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    want = tensor._data.shape if lvl.batch is None else (lvl.batch,) + tensor._data.shape
    if tangent._data.shape != want:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}."
            + ("" if lvl.batch is None else f" (a batched level: expected {list(want)})"))
    if tangent._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"Expected tangent to have the same dtype as the primal "
                           f"({tensor.dtype}), got {tangent.dtype}")
    if tangent_of(tangent, lvl) is not None:
        raise RuntimeError(
            f"Setting a forward grad that itself has a forward gradient at the same level "
            f"{lvl.idx} is not supported. (make_dual: pass the tangent's primal, "
            "unpack_dual(tangent).primal, or nest a second dual_level)")
    if tls.inference:
        # PyTorch sets no forward grad in inference mode: the result is a view of a normal
        # tensor, and a plain alias of an inference tensor's memory (no views are tracked on
        # those), without a tangent; in-place ops on it still change ``tensor``
        if tensor._vc is INFERENCE:
            return Tensor._wrap(tensor._data)
        return _alias_no_fw(tensor, view=True)
    out = _alias_no_fw(tensor, view=True)  # PyTorch's _make_dual: a view (ViewBackward0)
    out._fw = (lvl, tangent)
    return out


def _alias_no_fw(tensor, view=False):
    saved = tls.fw_level
    tls.fw_level = None
    tls.refresh()
    try:
        out = dispatch(VIEW, tensor, tensor._data.shape) if view else dispatch(ALIAS, tensor)
        out._fw_nondiff = True  # (PyTorch's _fw_primal: never takes its base's tangent)
        return out
    finally:
        tls.fw_level = saved
        tls.refresh()


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of a dual tensor; tangent is None if it has none at this level."""
    lvl = _current(level)
    if lvl is None:
        return UnpackedDualTensor(tensor, None)
    # (the primal is always a view that never takes a tangent, as PyTorch's _fw_primal: a
    # view of it must not see one its base gets later)
    return UnpackedDualTensor(_alias_no_fw(tensor), tangent_of(tensor, lvl))
