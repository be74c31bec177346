"""Convolution (conv1d, conv2d, conv3d; torch.convolution) by im2col; its backward ops are the adjoint pair
(the input gradient a transposed convolution, whose gradient is a convolution again).
"""
from __future__ import annotations

from ..._core import dtypes as _dtype
from ...ops.dispatch import dispatch
from ...ops.api.shape import squeeze as _squeeze, unsqueeze as _unsqueeze
from ._utils import _tensor_arg, _type_name
from ...ops.derivatives.nn_conv import CONVOLUTION

from ...ops.interpose import interposable

# ====================================================================== convolution
_KERNEL = {1: "slow_conv1d_cpu", 2: "slow_conv2d_cpu", 3: "compute_columns3d"}   # (PyTorch's)


def _ntuple(v, k, name):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            v = tuple(v) * k
        if len(v) != k:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(v)}")
        return tuple(int(x) for x in v)
    return (int(v),) * k


def _conv_nd(fname, k, input, weight, bias, stride, padding, dilation, groups):
    _tensor_arg(fname, input)
    _tensor_arg(fname, weight, "weight", 2)
    stride = _ntuple(stride, k, "stride")
    dilation = _ntuple(dilation, k, "dilation")
    wshape = weight._data.shape
    if weight._data.ndim != k + 2:
        raise RuntimeError(f"Expected {k + 2}-dimensional weight for {k + 2}-dimensional input "
                           f"{list(input._data.shape)}, but got {weight._data.ndim}-dimensional "
                           f"weight of size {list(wshape)} instead")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    w_sp = wshape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * k
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            # PyTorch puts the odd extra element of the total padding on the right
            pads = tuple((t // 2, t - t // 2) for t in (d * (kk - 1)
                                                        for d, kk in zip(dilation, w_sp)))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = _ntuple(padding, k, "padding")
        if any(v < 0 for v in p):
            raise RuntimeError("negative padding is not supported")
        pads = tuple((v, v) for v in p)
    nd = input._data.ndim
    if nd not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to "
                           f"{fname}, but got input of size: {list(input._data.shape)}")
    x = input if nd == k + 2 else _unsqueeze(input, 0)
    xshape = x._data.shape
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {list(wshape)} instead")
    if xshape[1] != wshape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(wshape)}, expected "
                           f"input{list(xshape)} to have {wshape[1] * groups} channels, but got "
                           f"{xshape[1]} channels instead")
    if bias is not None and bias._data.shape != (wshape[0],):
        raise RuntimeError(f"Given weight of size {list(wshape)}, expected bias to be "
                           f"1-dimensional with {wshape[0]} elements, but got bias of size "
                           f"{list(bias._data.shape)} instead")
    padded = [s + lo + hi for s, (lo, hi) in zip(xshape[2:], pads)]
    eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, w_sp)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           "actual input size")
    for t in (input, weight, bias):
        if t is not None and t._data.dtype.kind not in "fciu" and t.dtype is not _dtype.bfloat16:
            raise NotImplementedError(f'"{_KERNEL[k]}" not implemented for '
                                      f"'{_type_name(t)}'")
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"{fname}: input type ({_type_name(input)}) and "
                               f"{'weight' if t is weight else 'bias'} type ({_type_name(t)}) "
                               "should be the same")
    out = dispatch(CONVOLUTION, x, weight, bias, stride, pads, dilation, int(groups))
    return out if nd == k + 2 else _squeeze(out, 0)


@interposable("conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, L) or (C, L) inputs; ``padding`` may be 'valid' or 'same' (ConvolutionBackward0)."""
    return _conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@interposable("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, H, W) or (C, H, W) inputs; ``padding`` may be 'valid' or 'same'
    (ConvolutionBackward0)."""
    return _conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@interposable("conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, D, H, W) or (C, D, H, W) inputs; ``padding`` may be 'valid' or 'same'
    (ConvolutionBackward0)."""
    return _conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)
