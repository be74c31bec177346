"""Pooling ops for graphgrad.nn.functional: max_pool1d, avg_pool1d, adaptive_avg_pool1d/2d,
adaptive_max_pool1d/2d.

The 1-d pools are the 2-d ones on an unsqueezed input, squeezed back, as PyTorch computes
them (SqueezeBackward1 on top).  adaptive_avg_pool2d is one linear table op
(AdaptiveAvgPool2DBackward0): window sums are two small contractions with 0/1 window
matrices (window i of n -> m covers [floor(i n / m), ceil((i + 1) n / m))), divided by the
window sizes; its backward is the adjoint contraction, an op whose own derivative is the
pool again.  adaptive_max_pool2d gathers every window padded to the longest one with -inf
and reuses max_pool2d's scatter/gather ops for its rules.
"""
from __future__ import annotations

from ...ops.dispatch import dispatch
from ...ops.registry import export
from ...ops.api.shape import squeeze as _squeeze, unsqueeze as _unsqueeze
from ._utils import _tensor_arg, _type_name
from .pool import avg_pool2d, max_pool2d
from ...ops.derivatives.nn_pool_adaptive import (ADAPTIVE_AVG_POOL2D, ADAPTIVE_AVG_POOL3D,
                                                 ADAPTIVE_MAX_POOL2D)


__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d"]


def _one(fname, v, name):
    """A 1-d pool's int argument (an int or a 1-sequence)."""
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            raise RuntimeError(f"{fname}() {name} must be an int, list of ints or tuple of ints "
                               f"of size 1 but got size {len(v)}")
        v = v[0]
    return int(v)


def _pool1d_input(fname, input):
    _tensor_arg(fname, input)
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{fname})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)`` on (N, C, L) or (C, L): max_pool2d over the unsqueezed input
    (SqueezeBackward1 <- MaxPool2DWithIndicesBackward0, as PyTorch)."""
    _tensor_arg("max_pool1d", input)
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input._data.shape)}")
    k = _one("max_pool1d", kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _one("max_pool1d", stride, "stride")
    p = _one("max_pool1d", padding, "padding")
    d = _one("max_pool1d", dilation, "dilation")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    L = input._data.shape[-1]
    num = L + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    o = num // s + 1
    if ceil_mode and (o - 1) * s >= L + p:
        o -= 1
    if o <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {o}")
    if input._data.dtype.kind not in "fV" and not return_indices:   # (PyTorch's own kernel)
        raise NotImplementedError(f'"max_pool1d_impl" not implemented for '
                                  f"'{_type_name(input)}'")
    r = max_pool2d(_unsqueeze(input, -2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                   True)
    sq = _squeeze
    return (sq(r[0], -2), sq(r[1], -2)) if return_indices else sq(r[0], -2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True)`` on (N, C, L) or (C, L): avg_pool2d over the unsqueezed input
    (SqueezeBackward1 <- AvgPool2DBackward0, as PyTorch)."""
    _pool1d_input("avg_pool1d", input)
    k = _one("avg_pool1d", kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _one("avg_pool1d", stride, "stride")
    p = _one("avg_pool1d", padding, "padding")
    r = avg_pool2d(_unsqueeze(input, -2), (1, k), (1, s), (0, p), ceil_mode,
                   count_include_pad)
    return _squeeze(r, -2)


# ====================================================================== adaptive pools
def _adaptive_sizes(fname, input, output_size, k):
    shape = input._data.shape
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != k:
            raise RuntimeError(f"{fname}: output_size must be {k}")
        out = tuple(shape[len(shape) - k + i] if v is None else int(v)
                    for i, v in enumerate(output_size))
    else:
        out = (int(output_size),) * k
    if any(v < 0 for v in out):
        raise RuntimeError(f"{fname}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(str(v) for v in out)}}}")
    return out


def _adaptive_input(fname, input, k):
    nd = input._data.ndim
    if nd not in (k + 1, k + 2):
        raise RuntimeError(f"{fname}(): Expected {k + 1}D or {k + 2}D tensor, but got "
                           f"{list(input._data.shape)}")
    shape = input._data.shape
    for i in range(1 if nd == k + 2 else 0, nd):
        if shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(shape)} with dimension "
                               f"{i} being empty")


def adaptive_avg_pool2d(input, output_size):
    """``adaptive_avg_pool2d(input, output_size)`` on (N, C, H, W) or (C, H, W); an entry of
    ``output_size`` may be None (keep that size).  Output (1, 1) is a mean over the last two
    dims (MeanBackward1), as in PyTorch; otherwise AdaptiveAvgPool2DBackward0."""
    _tensor_arg("adaptive_avg_pool2d", input)
    out = _adaptive_sizes("adaptive_avg_pool2d", input, output_size, 2)
    _adaptive_input("adaptive_avg_pool2d", input, 2)
    if out == (1, 1):
        return input.mean((-2, -1), keepdim=True)
    if input._data.dtype.kind not in "fcV":
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for '
                                  f"'{_type_name(input)}'")
    return dispatch(ADAPTIVE_AVG_POOL2D, input, out)


def adaptive_avg_pool3d(input, output_size):
    """``adaptive_avg_pool3d(input, output_size)`` on (N, C, D, H, W) or (C, D, H, W)
    (interpolate's 'area' mode of a 5-D input); an entry of ``output_size`` may be None.
    Output (1, 1, 1) is a mean over the last three dims (MeanBackward1), as in PyTorch;
    otherwise AdaptiveAvgPool3DBackward0."""
    _tensor_arg("adaptive_avg_pool3d", input)
    out = _adaptive_sizes("adaptive_avg_pool3d", input, output_size, 3)
    _adaptive_input("adaptive_avg_pool3d", input, 3)
    if out == (1, 1, 1):
        return input.mean((-3, -2, -1), keepdim=True)
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f'"adaptive_avg_pool3d_cpu" not implemented for '
                                  f"'{_type_name(input)}'")
    return dispatch(ADAPTIVE_AVG_POOL3D, input, out)


def adaptive_avg_pool1d(input, output_size):
    """``adaptive_avg_pool1d(input, output_size)`` on (N, C, L) or (C, L): the 2-d pool over
    the unsqueezed input (SqueezeBackward1 on top)."""
    _pool1d_input("adaptive_avg_pool1d", input)
    o = _one("adaptive_avg_pool1d", output_size, "output_size")
    if o < 0:
        raise RuntimeError(f"adaptive_avg_pool1d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{1, {o}}}")
    return _squeeze(adaptive_avg_pool2d(_unsqueeze(input, -2), (1, o)), -2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """``adaptive_max_pool2d(input, output_size, return_indices=False)`` on (N, C, H, W) or
    (C, H, W): each adaptive window's (first) maximum; indices are flat H*W positions
    (AdaptiveMaxPool2DBackward0)."""
    _tensor_arg("adaptive_max_pool2d", input)
    out = _adaptive_sizes("adaptive_max_pool2d", input, output_size, 2)
    _adaptive_input("adaptive_max_pool2d", input, 2)
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for '
                                  f"'{_type_name(input)}'")
    r = dispatch(ADAPTIVE_MAX_POOL2D, input, out)
    return (r[0], r[1]) if return_indices else r[0]


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """``adaptive_max_pool1d(input, output_size, return_indices=False)`` on (N, C, L) or
    (C, L): the 2-d pool over the unsqueezed input (SqueezeBackward1 on top)."""
    _pool1d_input("adaptive_max_pool1d", input)
    o = _one("adaptive_max_pool1d", output_size, "output_size")
    r = adaptive_max_pool2d(_unsqueeze(input, -2), (1, o), True)
    sq = _squeeze
    return (sq(r[0], -2), sq(r[1], -2)) if return_indices else sq(r[0], -2)


export("max_pool1d", method=False)(max_pool1d)
export("avg_pool1d", method=False)(avg_pool1d)
export("adaptive_avg_pool1d", method=False)(adaptive_avg_pool1d)


@export("adaptive_max_pool1d", method=False)
def _adaptive_max_pool1d_public(input, output_size):
    """``graphgrad.adaptive_max_pool1d(input, output_size)``: (values, indices), as torch's."""
    return adaptive_max_pool1d(input, output_size, True)


_adaptive_max_pool1d_public.__name__ = "adaptive_max_pool1d"
_adaptive_max_pool1d_public.__qualname__ = "adaptive_max_pool1d"
