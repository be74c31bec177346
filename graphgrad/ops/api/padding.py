"""Padding: the table entries and the function behind ``nn.functional.pad``.

``constant`` pads (or crops, for negative pads) with a value (ConstantPadNdBackward0).
``reflect`` and ``replicate`` gather, along each padded dim, the source index of every output
position (Reflection/ReplicationPad{1,2,3}DBackward0); their backward scatter-adds through
the same index maps.  ``circular`` is composed of slices and cat.  Pads address trailing dims,
so the rules are batch-safe as written.
"""
from __future__ import annotations

from ..._tensor.tensor import Tensor
from ..dispatch import dispatch
from ..derivatives.padding import CONSTANT_PAD, PAD_OPS


# ------------------------------------------------------------ the public function
def _circular(input, pad):
    """Wrap-around padding as slices and cats (one cat per padded dim)."""
    from .copies import cat
    from .shape import _slice
    out = input
    for i in range(len(pad) // 2):
        nd = out._data.ndim
        d = nd - 1 - i
        n = out._data.shape[d]
        lo, hi = pad[2 * i], pad[2 * i + 1]
        # negative pads crop first; the wrapped parts come from the cropped core (PyTorch)
        core = _slice(out, d, max(-lo, 0), n - max(-hi, 0), 1) if lo < 0 or hi < 0 else out
        m = core._data.shape[d]
        parts = []
        if lo > 0:
            parts.append(_slice(core, d, m - lo, m, 1))
        parts.append(core)
        if hi > 0:
            parts.append(_slice(core, d, 0, hi, 1))
        out = cat(parts, d) if len(parts) > 1 else core
    return out


def pad(input, pad, mode="constant", value=None):
    """Pad (or, with negative values, crop) the trailing dims of ``input``.

    Args:
        pad: ``(left, right)`` widths for the last dim, then for the one before, ...
        mode: ``'constant'`` (with ``value``, default 0), ``'reflect'``, ``'replicate'`` or
            ``'circular'``.
    """
    pad = tuple(int(p) for p in pad)
    nd = input._data.ndim
    shp = input._data.shape
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if mode == "constant":
        if k > nd:
            raise RuntimeError(
                f"Padding length should be less than or equal to two times the input dimension "
                f"but got padding length {len(pad)} and input of dimension {nd}")
        for i in range(k):
            n = shp[nd - 1 - i]
            if n + pad[2 * i] + pad[2 * i + 1] < 0:
                raise RuntimeError(
                    f"The input size {n}, plus negative padding {pad[2 * i]} and "
                    f"{pad[2 * i + 1]} resulted in a negative output size, which is invalid. "
                    f"Check dimension {nd - 1 - i} of your input.")
        if isinstance(value, Tensor):
            value = value.item()
        if isinstance(value, complex) and input._data.dtype.kind != "c":
            raise RuntimeError(f"value cannot be converted to type {input.dtype} without "
                               "overflow")
        return dispatch(CONSTANT_PAD, input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    for i in range(k):
        n = shp[nd - 1 - i]
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {nd - 1 - i} of input "
                f"{list(shp)}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + lo + hi < 0 or (mode != "constant" and n == 0):
            raise RuntimeError(
                f"input size {n} with padding ({lo}, {hi}) at dimension {nd - 1 - i} gives an "
                f"empty or negative output size (input {list(shp)})")
    if mode == "circular":
        return _circular(input, pad)
    return dispatch(PAD_OPS[(mode, k)], input, pad)
