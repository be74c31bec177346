"""Resampling for graphgrad.nn.functional: interpolate (nearest, nearest-exact, linear,
bilinear, bicubic, trilinear, area, lanczos) for 3-D, 4-D and 5-D inputs, the deprecated
upsample / upsample_nearest / upsample_bilinear, and pixel_shuffle / pixel_unshuffle.

Each mode and rank is one table op with PyTorch's node (UpsampleNearest2DBackward0,
UpsampleBilinear2DBackward0, ...; kernels in ops/kernels/nn_upsample.py); 'area' is
adaptive average pooling, as in PyTorch.  The argument handling follows PyTorch's
interpolate step by step: one of size / scale_factor, the output size int(in * scale), the
scale factors passed on to the kernel unless recompute_scale_factor (then the kernel uses
in / out).  antialias=True (bilinear, bicubic, and the lanczos mode, which requires it) is
PyTorch's separable filter, widened by the scale when downsampling.
"""
from __future__ import annotations

import operator
import warnings

from ...ops.dispatch import dispatch
from ...ops.registry import export
from ._utils import _tensor_arg, _type_name
from .pool_adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from ...ops.derivatives import nn_upsample as _U

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"

# (mode, input rank) -> op
_OPS = {
    ("nearest", 3): _U.UPSAMPLE_NEAREST1D, ("nearest", 4): _U.UPSAMPLE_NEAREST2D,
    ("nearest", 5): _U.UPSAMPLE_NEAREST3D,
    ("nearest-exact", 3): _U.UPSAMPLE_NEAREST_EXACT1D,
    ("nearest-exact", 4): _U.UPSAMPLE_NEAREST_EXACT2D,
    ("nearest-exact", 5): _U.UPSAMPLE_NEAREST_EXACT3D,
    ("linear", 3): _U.UPSAMPLE_LINEAR1D, ("bilinear", 4): _U.UPSAMPLE_BILINEAR2D,
    ("trilinear", 5): _U.UPSAMPLE_TRILINEAR3D, ("bicubic", 4): _U.UPSAMPLE_BICUBIC2D,
    ("bilinear-aa", 4): _U.UPSAMPLE_BILINEAR2D_AA, ("bicubic-aa", 4): _U.UPSAMPLE_BICUBIC2D_AA,
    ("lanczos-aa", 4): _U.UPSAMPLE_LANCZOS2D_AA,
}
_WRONG_RANK = {("bilinear", 3): 4, ("trilinear", 3): 5, ("linear", 4): 3, ("trilinear", 4): 5,
               ("linear", 5): 3, ("bilinear", 5): 4}


def _is_integer(x):
    if isinstance(x, bool):
        return True
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def _as_int(fname, v):
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}() received an invalid combination of arguments: output_size "
                        f"must be ints, got {type(v).__name__} [interpolate: pass size as an "
                        "int or a tuple of ints]") from None


def _as_float(fname, v):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise TypeError(f"{fname}() received an invalid combination of arguments: "
                        f"scale_factors must be floats, got {type(v).__name__} [interpolate: "
                        "pass scale_factor as a float or a tuple of floats]")
    return float(v)


def _check_sizes(fname, input, output_size):
    """PyTorch's upsample_Nd_common_check and the non-empty check of its kernels."""
    shape = tuple(input.shape)
    k = len(output_size)
    names = ("D", "H", "W")[3 - k:]
    in_sp = shape[2:]
    if any(v <= 0 for v in in_sp) or any(v <= 0 for v in output_size):
        ins = ", ".join(f"{n}: {v}" for n, v in zip(names, in_sp))
        outs = ", ".join(f"{n}: {v}" for n, v in zip(names, output_size))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}) output ({outs})")
    rest = 1
    for v in shape[1:]:
        rest *= v
    if input._data.size == 0 and rest == 0:
        raise RuntimeError(f"Non-empty {len(shape)}D data tensor expected but got a tensor with "
                           f"sizes {list(shape)}")


def _check_dtype(fname, input, mode):
    kind = input._data.dtype.kind
    if input.dtype.is_complex or kind in "biu":
        if kind == "u" and input.dtype.name == "uint8" and mode.startswith("nearest"):
            return
        if kind == "u" and input.dtype.name == "uint8" and mode in ("bilinear", "bicubic",
                                                                  "lanczos"):
            raise NotImplementedError(
                f"{fname}: uint8 inputs are not supported by graphgrad (PyTorch has a "
                "fixed-point uint8 kernel for this mode); convert the input with .float() and "
                "round the result")
        raise NotImplementedError(f'"{fname}" not implemented for \'{_type_name(input)}\'')


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """``interpolate(input, size=None, scale_factor=None, mode='nearest',
    align_corners=None, recompute_scale_factor=None, antialias=False)``: resample the
    spatial dims of an (N, C, d1[, d2[, d3]]) input to ``size`` or by ``scale_factor``."""
    _tensor_arg("interpolate", input)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input.dim()
    dim = nd - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and output "
                    f"size of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, "
                                f"int] or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = [operator.index(x) for x in size]
        else:
            output_size = [_as_int("interpolate", size)] * max(dim, 0)
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    f"Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * max(dim, 0)
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * _as_float("interpolate", scale_factors[i]))
                       for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and nd == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and nd == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if mode == "area" and nd in (3, 4, 5):
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 3]
        return pool(input, output_size)
    op = _OPS.get((mode + "-aa" if antialias else mode, nd))
    if op is None:
        want = _WRONG_RANK.get((mode, nd))
        if want is not None:
            raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {want}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {nd}D) for the modes: {_MODES} (got {mode})")
    fname = op.name.lstrip("_")
    if output_size is None:
        scales = tuple(_as_float(fname, s) for s in scale_factors)
        output_size = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
    else:
        scales = None
        output_size = [_as_int(fname, v) for v in output_size]
    _check_sizes(fname, input, output_size)
    _check_dtype(fname, input, mode)
    if antialias and input.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f'"compute_index_ranges_weights" not implemented for '
                                  f"'{_type_name(input)}' [interpolate(antialias=True): "
                                  "convert the input with .float()]")
    ac = bool(align_corners) if mode not in ("nearest", "nearest-exact") else None
    return dispatch(op, input, tuple(output_size), ac, scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns, as PyTorch's)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ====================================================================== pixel shuffle
def _factor(fname, name, v, pos=2):
    if isinstance(v, bool) or not _is_integer(v):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(v).__name__}")
    v = operator.index(v)
    if v <= 0:
        raise RuntimeError(f"{fname} expects a positive {name}, but got {v}")
    return v


def pixel_shuffle(input, upscale_factor):
    """``pixel_shuffle(input, upscale_factor)``: (*, C r^2, H, W) -> (*, C, H r, W r)
    (PixelShuffleBackward0; its backward is pixel_unshuffle)."""
    _tensor_arg("pixel_shuffle", input)
    r = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    nd = input._data.ndim
    if nd < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {nd} dimension(s)")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    return dispatch(_U.PIXEL_SHUFFLE, input, r)


def pixel_unshuffle(input, downscale_factor):
    """``pixel_unshuffle(input, downscale_factor)``: (*, C, H r, W r) -> (*, C r^2, H, W)
    (PixelUnshuffleBackward0; its backward is pixel_shuffle)."""
    _tensor_arg("pixel_unshuffle", input)
    r = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    nd = input._data.ndim
    if nd < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {nd} dimension(s)")
    h, w = input._data.shape[-2:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    return dispatch(_U.PIXEL_UNSHUFFLE, input, r)


export("pixel_shuffle", method=False)(pixel_shuffle)
export("pixel_unshuffle", method=False)(pixel_unshuffle)
