"""Padding: the table entries and the function behind ``nn.functional.pad``.

``constant`` pads (or crops, for negative pads) with a value (ConstantPadNdBackward0).
``reflect`` and ``replicate`` gather, along each padded dim, the source index of every output
position (Reflection/ReplicationPad{1,2,3}DBackward0); their backward scatter-adds through
the same index maps.  ``circular`` is composed of slices and cat.  Pads address trailing dims,
so the rules are batch-safe as written.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..dispatch import dispatch
from ..registry import defop


# ------------------------------------------------------------ constant
def _constant_pad_kernel(a, pad, value):
    nd = a.ndim
    key = [slice(None)] * nd
    widths = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        ax = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        key[ax] = slice(max(-lo, 0), a.shape[ax] - max(-hi, 0))
        widths[ax] = (max(lo, 0), max(hi, 0))
    return np.pad(a[tuple(key)], widths, mode="constant",
                  constant_values=0 if value is None else value)


CONSTANT_PAD = defop("constant_pad_nd(self, *, pad, value)", _constant_pad_kernel,
                     "ConstantPadNdBackward0",
                     self=lambda grad, pad: F.constant_pad_nd(grad, tuple(-p for p in pad), 0),
                     jvp=lambda self_t, pad: F.constant_pad_nd(self_t, pad, 0), batched_jvp=True)


# ------------------------------------------------------------ reflect / replicate
def _source_index(n, lo, hi, mode):
    """For each output position along a padded dim, the input position it copies."""
    p = np.arange(-lo, n + hi)
    if mode == "reflect":
        p = np.abs(p)
        return np.where(p >= n, 2 * (n - 1) - p, p)
    if mode == "replicate":
        return np.clip(p, 0, n - 1)
    return p % n


def _index_pad_kernel(mode):
    def kernel(a, pad):
        for i in range(len(pad) // 2):
            ax = a.ndim - 1 - i
            a = np.take(a, _source_index(a.shape[ax], pad[2 * i], pad[2 * i + 1], mode), axis=ax)
        return a
    return kernel


def _index_pad_backward_kernel(mode):
    def kernel(grad, sizes, pad):
        g = grad
        for i in reversed(range(len(pad) // 2)):
            n = sizes[len(sizes) - 1 - i]
            idx = _source_index(n, pad[2 * i], pad[2 * i + 1], mode)
            shp = list(g.shape)
            shp[g.ndim - 1 - i] = n
            z = np.zeros(shp, g.dtype)
            np.add.at(z, (Ellipsis, idx) + (slice(None),) * i, g)
            g = z
        return g
    return kernel


def _defpad(mode, cls, k):
    name = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d"
    fwd_poly, bwd_poly = [], []
    fwd = defop(f"{name}(self, *, pad)", _index_pad_kernel(mode), f"{cls}Pad{k}DBackward0",
                self=lambda grad, self_sym_sizes, pad:
                    bwd_poly[0](grad, tuple(self_sym_sizes), pad),
                jvp=lambda self_t, pad: fwd_poly[0](self_t, pad), batched_jvp=True)
    bwd = defop(f"{name}_backward(grad, *, sizes, pad)", _index_pad_backward_kernel(mode),
                f"{cls}Pad{k}DBackwardBackward0",
                grad=lambda grad, pad: fwd_poly[0](grad, pad),
                jvp=lambda grad_t, sizes, pad: bwd_poly[0](grad_t, sizes, pad), batched_jvp=True)
    fwd_poly.append(F.make_poly(fwd))
    bwd_poly.append(F.make_poly(bwd))
    return fwd


PAD_OPS = {(mode, k): _defpad(mode, cls, k)
           for mode, cls in (("reflect", "Reflection"), ("replicate", "Replication"))
           for k in (1, 2, 3)}


# ------------------------------------------------------------ the public function
def _circular(input, pad):
    """Wrap-around padding as slices and cats (one cat per padded dim)."""
    from .indexing import cat
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
