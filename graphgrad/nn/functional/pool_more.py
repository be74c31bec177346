"""The further pooling functions: *_with_indices, adaptive_max_pool3d, max_unpool1d/2d/3d,
lp_pool1d/2d/3d and dropout3d.

max_unpool{2,3}d is one table op (MaxUnpool2DBackward0 / MaxUnpool3DBackward0): each value
written at its flat position of a zero plane, its gradient the gather at the same indices
(max pooling's gather op); max_unpool1d is the 2-d op on an unsqueezed input, as PyTorch
computes it.  lp_pool is PyTorch's composite: (sign(a) * relu(|a|) * prod(kernel)) ** (1/p)
of a = avg_pool(x ** p).
"""
from __future__ import annotations

import warnings

from ...ops.dispatch import dispatch
from ...ops.registry import export
from ...ops.interpose import interposable
from ...ops.api.shape import squeeze as _squeeze, unsqueeze as _unsqueeze
from ._utils import _tensor_arg, _type_name
from .conv import _ntuple
from .pool import avg_pool2d, avg_pool3d, max_pool2d, max_pool3d
from .pool_adaptive import (_adaptive_input, _adaptive_sizes, adaptive_max_pool1d,
                            adaptive_max_pool2d, avg_pool1d, max_pool1d)
from .activation import relu
from .activation_extra import _feature_dropout, _p_check
from ...ops.derivatives.nn_pool_adaptive import ADAPTIVE_MAX_POOL3D
from ...ops.derivatives.nn_unpool import MAX_UNPOOL2D, MAX_UNPOOL3D

__all__ = ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d", "dropout3d"]


# ====================================================================== *_with_indices
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool1d`` returning (values, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool2d`` returning (values, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool3d`` returning (values, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` returning (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` returning (values, indices)."""
    return adaptive_max_pool2d(input, output_size, True)


@interposable("adaptive_max_pool3d")   # (autocast: float32)
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """``adaptive_max_pool3d(input, output_size, return_indices=False)`` on (N, C, D, H, W)
    or (C, D, H, W): each adaptive window's (first) maximum; indices are flat D*H*W
    positions (AdaptiveMaxPool3DBackward0)."""
    _tensor_arg("adaptive_max_pool3d", input)
    if isinstance(output_size, (list, tuple)) and len(output_size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be "
                           f"3 [got output_size={list(output_size)}; give one int or three]")
    out = _adaptive_sizes("adaptive_max_pool3d", input, output_size, 3)
    _adaptive_input("adaptive_max_pool3d", input, 3)
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f'"adaptive_max_pool3d_cpu" not implemented for '
                                  f"'{_type_name(input)}'")
    r = dispatch(ADAPTIVE_MAX_POOL3D, input, out)
    return (r[0], r[1]) if return_indices else r[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool3d`` returning (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)


# ====================================================================== max_unpool
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    k = len(kernel_size)
    shape = input._data.shape
    default = [(shape[len(shape) - k + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(k)]
    if output_size is None:
        return tuple(default)
    output_size = [int(v) for v in output_size]
    if len(output_size) == k + 2:
        output_size = output_size[2:]
    if len(output_size) != k:
        raise ValueError(f"output_size should be a sequence containing {k} or {k + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(k):
        lo = default[d] - stride[d]
        hi = default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{lo} and {hi})")
    return tuple(output_size)


def _max_unpool_nd(fname, k, input, indices, kernel_size, stride, padding, output_size):
    _tensor_arg(fname, input)
    _tensor_arg(fname, indices, "indices", 2)
    ks = _ntuple(kernel_size, k, "kernel_size")
    s = ks if stride is None else _ntuple(stride, k, "stride")
    p = _ntuple(padding, k, "padding")
    out = _unpool_output_size(input, ks, s, p, output_size)
    if indices._data.dtype.kind not in "iu" or indices._data.itemsize != 8:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{_type_name(indices)} [{fname}: pass the indices max_pool "
                           "returned (return_indices=True)]")
    nd = input._data.ndim
    if nd not in (k + 1, k + 2):
        raise RuntimeError(f"Input to max_unpooling{k}d should be a {k + 1}d or {k + 2}d "
                           f"Tensor, but got a tensor with {nd} dimensions.")
    if indices._data.shape != input._data.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input._data.shape)}) but got indices tensor with shape: "
                           f"{list(indices._data.shape)}")
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f'"max_unpool{k}d" not implemented for '
                                  f"'{_type_name(input)}'")
    # (the indices are checked in the kernel: their values may be vmap's batch)
    return dispatch(MAX_UNPOOL2D if k == 2 else MAX_UNPOOL3D, input, indices, out)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool1d(input, indices, kernel_size, stride=None, padding=0,
    output_size=None)``: max_unpool2d over the unsqueezed input (SqueezeBackward1 <-
    MaxUnpool2DBackward0, as PyTorch)."""
    _tensor_arg("max_unpool1d", input)
    k = _ntuple(kernel_size, 1, "kernel_size")[0]
    s = k if stride is None else _ntuple(stride, 1, "stride")[0]
    p = _ntuple(padding, 1, "padding")[0]
    out = _unpool_output_size(input, (k,), (s,), (p,), output_size)
    r = max_unpool2d(_unsqueeze(input, -1), _unsqueeze(indices, -1), (k, 1), (s, 1), (p, 0),
                     out + (1,))
    return _squeeze(r, -1)


@interposable("max_unpool2d")   # (autocast: float32)
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool2d(input, indices, kernel_size, stride=None, padding=0,
    output_size=None)``: the partial inverse of max_pool2d, each value at its index of a
    zero (H, W) plane (MaxUnpool2DBackward0)."""
    return _max_unpool_nd("max_unpool2d", 2, input, indices, kernel_size, stride, padding,
                          output_size)


@interposable("max_unpool3d")   # (autocast: float32)
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool3d(input, indices, kernel_size, stride=None, padding=0,
    output_size=None)``: the partial inverse of max_pool3d (MaxUnpool3DBackward0)."""
    return _max_unpool_nd("max_unpool3d", 3, input, indices, kernel_size, stride, padding,
                          output_size)


# ====================================================================== lp_pool
def _lp_pool(fname, k, pool, input, norm_type, kernel_size, stride, ceil_mode):
    _tensor_arg(fname, input)
    ks = _ntuple(kernel_size, k, "kernel_size")
    n = 1
    for v in ks:
        n *= v
    kw = {} if stride is None else {"stride": stride}
    a = pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode, **kw)
    return (a.sign() * relu(a.abs())).mul(n).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False)``: the
    power-average pool (sum over each window of x ** p) ** (1 / p), as PyTorch composes it
    from avg_pool1d."""
    return _lp_pool("lp_pool1d", 1, avg_pool1d, input, norm_type, kernel_size, stride,
                    ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False)``."""
    return _lp_pool("lp_pool2d", 2, avg_pool2d, input, norm_type, kernel_size, stride,
                    ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False)``."""
    return _lp_pool("lp_pool3d", 3, avg_pool3d, input, norm_type, kernel_size, stride,
                    ceil_mode)


# ====================================================================== dropout3d
def dropout3d(input, p=0.5, training=True, inplace=False):
    """``dropout3d(input, p=0.5, training=True, inplace=False)`` on (N, C, D, H, W) or
    (C, D, H, W): zero whole channels with probability p, scale the rest by 1 / (1 - p)
    (MulBackward0); other ranks with PyTorch's warning."""
    _tensor_arg("dropout3d", input)
    _p_check(p)
    nd = input._data.ndim
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).", UserWarning, stacklevel=2)
    if nd == 5:   # (PyTorch: any other rank is taken as unbatched)
        return _feature_dropout(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    r = _feature_dropout(x, p, training, inplace)
    return r.squeeze_(0) if inplace else r.squeeze(0)


export("max_pool1d_with_indices", method=False)(max_pool1d_with_indices)


# ---------------------------------------------------------------------- PyTorch's private names
# (torch.nn.functional's boolean_dispatch halves: the values only, whatever return_indices)
def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size)


def _adaptive_max_pool3d(input, output_size, return_indices=False):
    return adaptive_max_pool3d(input, output_size)
