"""Pooling: max_pool2d (gather/scatter by the argmax indices) and avg_pool2d."""
from __future__ import annotations

from ...ops.dispatch import dispatch
from ._utils import _tensor_arg, _type_name
from .conv import _ntuple
from ...ops.derivatives.nn_pool import AVG_POOL2D, MAX_POOL2D
from ...ops.kernels.nn_pool import _pool_geometry


# ====================================================================== pooling
def _pool_args(fname, input, kernel_size, stride, padding, dilation=1):
    _tensor_arg(fname, input)
    k = _ntuple(kernel_size, 2, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _ntuple(stride, 2, "stride")
    p = _ntuple(padding, 2, "padding")
    d = _ntuple(dilation, 2, "dilation")
    if input._data.ndim not in (3, 4) or input._data.size == 0 and input._data.ndim != 4:
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got "
                           f"input of size {list(input._data.shape)}")
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel_size must be greater than zero, but got kH: {k[0]} kW: "
                           f"{k[1]}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} "
                           f"dilationW: {d[1]}")
    return k, s, p, d


def _check_pool_out(input, out_sp):
    shape = input._data.shape
    if any(o < 1 for o in out_sp):
        c = shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{shape[-2]}x{shape[-1]}). Calculated output "
                           f"size: ({c}x{out_sp[0]}x{out_sp[1]}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)`` on (N, C, H, W) or (C, H, W): the gradient goes to each window's
    (first) maximum (MaxPool2DWithIndicesBackward0); indices are flat H*W positions."""
    k, s, p, d = _pool_args("max_pool2d", input, kernel_size, stride, padding, dilation)
    for pv, kv, dv in zip(p, k, d):
        if pv > ((kv - 1) * dv + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pv}, kernel_size={kv} and dilation={dv}")
    _check_pool_out(input, _pool_geometry(input._data.shape[-2:], k, s, p, d, ceil_mode)[0])
    if input._data.dtype.kind not in "fiuV":
        raise NotImplementedError(f'"max_pool2d" not implemented for \'{_type_name(input)}\'')
    out, idx = dispatch(MAX_POOL2D, input, k, s, p, d, bool(ceil_mode))
    return (out, idx) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """``avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`` on (N, C, H, W) or (C, H, W)
    (AvgPool2DBackward0)."""
    k, s, p, _ = _pool_args("avg_pool2d", input, kernel_size, stride, padding)
    for pv, kv in zip(p, k):
        if pv > kv // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pv}, kernel_size={kv} and dilation=1")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool_out(input, _pool_geometry(input._data.shape[-2:], k, s, p, (1, 1),
                                          ceil_mode)[0])
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f"avg_pool2d: {_type_name(input)} (integer) inputs are not supported by graphgrad "
            "(PyTorch divides in integer arithmetic); convert the input to a floating dtype")
    return dispatch(AVG_POOL2D, input, k, s, p, bool(ceil_mode), bool(count_include_pad),
                    divisor_override)
