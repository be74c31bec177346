"""The table, nn_conv_transpose family: conv_transpose1d/2d, unfold, fold.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_conv_transpose.py, public functions in nn/functional/conv_transpose.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import LINEAR, defop
from .nn_conv import _conv_bias_grad, _crop_to
from ..kernels.nn_conv_transpose import (
    _col2im_kernel, _conv_transpose_kernel, _im2col_kernel, _pads)


def _conv_transpose_jvp(input_t, weight_t, bias_t, input, weight, bias, output_sizes, stride,
                        padding, dilation, groups):
    r = F.conv_transpose(input_t, weight, None, output_sizes, stride, padding, dilation,
                         groups) + \
        F.conv_transpose(input, weight_t, None, output_sizes, stride, padding, dilation, groups)
    if bias is not None:   # (batch-safe: a batched bias tangent keeps its leading dims)
        k = len(stride)
        b = F.reshape_to(bias_t, (F.shape(bias)[0],) + (1,) * k, 1)
        r = r + F.pad_batched(b, k + 1, F.ndim(input))
    return r


def _conv_transpose_input_grad(grad, weight, input_sym_sizes, stride, padding, dilation,
                               groups):
    """The input gradient: a convolution of the gradient, cropped to the input's sizes
    (an output_padding of at least the stride, allowed when it is below the dilation,
    adds outputs that reach past the last input position)."""
    return _crop_to(F.convolution(grad, F.conj(weight), None, stride, _pads(padding), dilation,
                                  groups), input_sym_sizes, len(stride))


CONV_TRANSPOSE = defop(
    "conv_transpose(input, weight, bias, *, output_sizes, stride, padding, dilation, groups)",
    _conv_transpose_kernel, "ConvolutionBackward0",
    vjp_order=("input", "weight", "bias"),   # (PyTorch: one formula for the three)
    input=_conv_transpose_input_grad,
    weight=lambda grad, input, weight_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_weight(F.conj(input), grad, tuple(weight_sym_sizes), stride,
                                      _pads(padding), dilation, groups),
    bias=lambda grad, stride: _conv_bias_grad(grad, len(stride)),
    jvp=_conv_transpose_jvp, batched_jvp=True)


# ====================================================================== unfold / fold
IM2COL = defop(
    "im2col(self, *, kernel_size, dilation, padding, stride)", _im2col_kernel,
    "Im2ColBackward0",
    self=lambda grad, self_sym_sizes, kernel_size, dilation, padding, stride:
        F.col2im(grad, tuple(self_sym_sizes[-2:]), kernel_size, dilation, padding, stride),
    jvp=LINEAR, batched_jvp=True)
COL2IM = defop(
    "col2im(self, *, output_size, kernel_size, dilation, padding, stride)", _col2im_kernel,
    "Col2ImBackward0",
    self=lambda grad, kernel_size, dilation, padding, stride:
        F.im2col(grad, kernel_size, dilation, padding, stride),
    jvp=LINEAR, batched_jvp=True)
