"""NumPy kernels of the nn_conv_transpose family: conv_transpose1d/2d, unfold, fold.

Functions of ndarrays; the entries that use them are in
ops/derivatives/nn_conv_transpose.py, the public functions in
nn/functional/conv_transpose.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32
from .nn_conv import _conv_out_sizes, _pad_spatial, _prod, _windows, col2im


def _col2im(x, w, output_sizes, stride, padding, dilation, groups):
    """conv_transpose's forward: the convolution's col2im with symmetric padding."""
    return col2im(x, w, output_sizes, stride, [(p, p) for p in padding], dilation, groups)


@half_in_float32   # (half precision: in float32, one rounding; docs/differences.md)
def _conv_transpose_kernel(x, w, b, output_sizes, stride, padding, dilation, groups):
    k = len(stride)
    out = _col2im(x, w, output_sizes, stride, padding, dilation, groups)
    if b is not None:
        out += b.reshape((b.shape[-1],) + (1,) * k)
    return out


def _pads(padding):
    return tuple((p, p) for p in padding)


# ====================================================================== unfold / fold
def _im2col_kernel(x, kernel_size, dilation, padding, stride):
    """(*lead, C, H, W) -> (*lead, C * kh * kw, L): the sliding blocks, channel-major."""
    out_sp = _conv_out_sizes(x.shape[-2:], kernel_size, stride, _pads(padding), dilation)
    win = _windows(_pad_spatial(x, _pads(padding)), out_sp, kernel_size, stride, dilation)
    nl = x.ndim - 3
    perm = list(range(nl + 1)) + [nl + 3, nl + 4, nl + 1, nl + 2]
    c = x.shape[-3]
    return np.ascontiguousarray(win.transpose(perm)).reshape(
        x.shape[:-3] + (c * _prod(kernel_size), _prod(out_sp)))


def _col2im_kernel(cols, output_size, kernel_size, dilation, padding, stride):
    """The adjoint: (*lead, C * kh * kw, L) blocks added back onto (*lead, C, H, W), offset by
    offset (each output position sums its blocks in PyTorch's order, in the input's dtype)."""
    H, W = output_size
    out_sp = _conv_out_sizes((H, W), kernel_size, stride, _pads(padding), dilation)
    kk = _prod(kernel_size)
    c = cols.shape[-2] // kk
    lead = cols.shape[:-2]
    blocks = cols.reshape(lead + (c,) + tuple(kernel_size) + tuple(out_sp))
    sp = (H + 2 * padding[0], W + 2 * padding[1])
    out = np.zeros(lead + (c,) + sp, cols.dtype)
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            hs = slice(i * dilation[0], i * dilation[0] + stride[0] * (out_sp[0] - 1) + 1,
                       stride[0])
            ws = slice(j * dilation[1], j * dilation[1] + stride[1] * (out_sp[1] - 1) + 1,
                       stride[1])
            out[..., hs, ws] += blocks[..., i, j, :, :]
    return np.ascontiguousarray(out[..., padding[0]:padding[0] + H, padding[1]:padding[1] + W])
