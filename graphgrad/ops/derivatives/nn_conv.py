"""The table, nn_conv family: conv1d/conv2d by im2col; their backward ops are the adjoint pair.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_conv.py, public functions in nn/functional/conv.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from .nn_utils import _sumk
from ..kernels.nn_conv import (
    _conv_backward_input_kernel, _conv_backward_weight_kernel, _conv_kernel)


# ====================================================================== convolution
def _conv_bias_grad(grad, k):
    s = _sumk(grad, (-(k + 2),) + tuple(range(-k, 0)))
    return F.reshape_to(s, (F.shape(s)[-(k + 1)],), k + 2)


def _conv_jvp(input_t, weight_t, bias_t, input, weight, bias, stride, padding, dilation, groups):
    r = F.convolution(input_t, weight, None, stride, padding, dilation, groups) + \
        F.convolution(input, weight_t, None, stride, padding, dilation, groups)
    if bias is not None:   # (batch-safe: a batched bias tangent keeps its leading dims)
        k = len(stride)
        b = F.reshape_to(bias_t, (F.shape(bias)[0],) + (1,) * k, 1)
        r = r + F.pad_batched(b, k + 1, F.ndim(input))
    return r


def _crop_to(r, sizes, k):
    """``r`` cut to the last ``k`` of ``sizes`` on its last k dims (contiguous): a
    transposed convolution with output_padding >= stride has outputs past the last input
    position, so the convolution that maps back to that input reaches past it."""
    sizes = tuple(sizes[len(sizes) - k:])
    if tuple(F.shape(r)[-k:]) == sizes:
        return r
    return F.clone_contiguous(r[(Ellipsis,) + tuple(slice(0, n) for n in sizes)])


# for complex operands the VJPs conjugate the other factor (the conv is bilinear, no conj)
CONVOLUTION = defop(
    "convolution(input, weight, bias, *, stride, padding, dilation, groups)", _conv_kernel,
    "ConvolutionBackward0",
    vjp_order=("input", "weight", "bias"),   # (PyTorch: one formula for the three)
    input=lambda grad, weight, input_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_input(grad, F.conj(weight), tuple(input_sym_sizes), stride,
                                     padding, dilation, groups),
    weight=lambda grad, input, weight_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_weight(grad, F.conj(input), tuple(weight_sym_sizes), stride,
                                      padding, dilation, groups),
    bias=lambda grad, stride: _conv_bias_grad(grad, len(stride)),
    jvp=_conv_jvp, batched_jvp=True)
# the two adjoints of the bilinear convolution; each one's rules are the other two maps
CONVOLUTION_BACKWARD_INPUT = defop(
    "convolution_backward_input(grad_output, weight, *, input_sizes, stride, padding, dilation, "
    "groups)", _conv_backward_input_kernel, "ConvolutionBackwardBackward0",
    grad_output=lambda grad, weight, stride, padding, dilation, groups:
        F.convolution(grad, F.conj(weight), None, stride, padding, dilation, groups),
    weight=lambda grad, grad_output, weight_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_weight(F.conj(grad_output), grad, tuple(weight_sym_sizes), stride,
                                      padding, dilation, groups),
    jvp=lambda grad_output_t, weight_t, grad_output, weight, input_sizes, stride, padding,
    dilation, groups:
        F.convolution_backward_input(grad_output_t, weight, input_sizes, stride, padding,
                                     dilation, groups)
        + F.convolution_backward_input(grad_output, weight_t, input_sizes, stride, padding,
                                       dilation, groups), batched_jvp=True)
CONVOLUTION_BACKWARD_WEIGHT = defop(
    "convolution_backward_weight(grad_output, input, *, weight_sizes, stride, padding, "
    "dilation, groups)", _conv_backward_weight_kernel, "ConvolutionBackwardBackward0",
    grad_output=lambda grad, input, grad_output_sym_sizes, stride, padding, dilation, groups:
        _crop_to(F.convolution(F.conj(input), grad, None, stride, padding, dilation, groups),
                 grad_output_sym_sizes, len(stride)),
    input=lambda grad, grad_output, input_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_input(F.conj(grad_output), grad, tuple(input_sym_sizes), stride,
                                     padding, dilation, groups),
    jvp=lambda grad_output_t, input_t, grad_output, input, weight_sizes, stride, padding,
    dilation, groups:
        F.convolution_backward_weight(grad_output_t, input, weight_sizes, stride, padding,
                                      dilation, groups)
        + F.convolution_backward_weight(grad_output, input_t, weight_sizes, stride, padding,
                                        dilation, groups), batched_jvp=True)
