"""Transposed convolutions (conv_transpose1d / conv_transpose2d) for graphgrad.nn.functional.

A transposed convolution is the input-gradient map of the convolution whose weight it shares
(PyTorch's weight layout ``(C_in, C_out / groups, *kernel)`` is that convolution's
``(out, in / groups, *kernel)``), so its kernel is ``_conv_backward_input_kernel`` and its rules
are the other two maps of the same bilinear form (the kernel is the col2im of
``_conv_backward_input_kernel``): the input gradient is a convolution of the
gradient, the weight gradient is ``convolution_backward_weight`` with the roles swapped.  The
node is PyTorch's ``ConvolutionBackward0`` (``convolution(..., transposed=True)``).
"""
from __future__ import annotations

from ..._core import dtypes as _dtype
from ...ops.dispatch import dispatch
from ...ops.registry import export
from .conv import _conv_nd, _ntuple
from ...ops.api.shape import squeeze as _squeeze, unsqueeze as _unsqueeze
from ._utils import _tensor_arg, _type_name
from ...ops.derivatives.nn_conv_transpose import COL2IM, CONV_TRANSPOSE, IM2COL

from ...ops.interpose import interposable

_OUT = {1: "", 2: "", 3: "_out"}   # (PyTorch's kernel names)

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold"]


def _conv_transpose_nd(fname, k, input, weight, bias, stride, padding, output_padding, groups,
                       dilation):
    _tensor_arg(fname, input)
    _tensor_arg(fname, weight, "weight", 2)
    for name, v in (("stride", stride), ("padding", padding),
                    ("output_padding", output_padding), ("dilation", dilation)):
        if isinstance(v, str):
            raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not str")
    stride = _ntuple(stride, k, "stride")
    padding = _ntuple(padding, k, "padding")
    output_padding = _ntuple(output_padding, k, "output_padding")
    dilation = _ntuple(dilation, k, "dilation")
    groups = int(groups)
    nd = input._data.ndim
    wshape = weight._data.shape
    if nd not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to "
                           f"{fname}, but got input of size: {list(input._data.shape)}")
    if weight._data.ndim != k + 2:
        raise RuntimeError(f"Expected {weight._data.ndim}-dimensional input for "
                           f"{weight._data.ndim}-dimensional weight {list(wshape)}, but got "
                           f"{k + 2}-dimensional input of size {list(input._data.shape)} "
                           f"instead [{fname}: weight must be (in_channels, out_channels / "
                           f"groups, {', '.join(['k'] * k)})]")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        axes = ("depth", "height", "width")[-max(k, 2):]
        op2 = (0,) * (len(axes) - k) + output_padding
        s2 = (1,) * (len(axes) - k) + stride
        d2 = (1,) * (len(axes) - k) + dilation
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got " +
            " ".join(f"{name}_{a}: {v}" for name, vals in (
                ("output_padding", op2), ("stride", s2), ("dilation", d2))
                for a, v in zip(axes, vals)))
    x = input if nd == k + 2 else _unsqueeze(input, 0)
    xshape = x._data.shape
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {[list(wshape)]} instead")
    if xshape[1] != wshape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(wshape)}, expected "
                           f"input{list(xshape)} to have {wshape[0]} channels, but got "
                           f"{xshape[1]} channels instead")
    c_out = wshape[1] * groups
    if bias is not None and bias._data.shape != (c_out,):
        raise RuntimeError(f"Given transposed=1, weight of size {list(wshape)}, expected bias to "
                           f"be 1-dimensional with {c_out} elements, but got bias of size "
                           f"{list(bias._data.shape)} instead")
    out_sp = tuple((n - 1) * s - 2 * p + d * (kk - 1) + op + 1 for n, s, p, d, kk, op in zip(
        xshape[2:], stride, padding, dilation, wshape[2:], output_padding))
    if any(o < 1 for o in out_sp):
        raise RuntimeError(f"{fname}: the output size {list(out_sp)} (from input "
                           f"{list(xshape)}, weight {list(wshape)}, stride {list(stride)}, "
                           f"padding {list(padding)}, dilation {list(dilation)}) is too small; "
                           "reduce the padding")
    for t in (input, weight, bias):
        if t is not None and t._data.dtype.kind not in "fciu" and t.dtype is not _dtype.bfloat16:
            raise NotImplementedError(f'"slow_conv_transpose{k}d{_OUT[k]}_cpu" not '
                                      f"implemented for '{_type_name(t)}'")
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected scalar type {_type_name(t)} but found "
                               f"{_type_name(input)} [{fname}: input, weight and bias must have "
                               "the same dtype]")
    sizes = (xshape[0], c_out) + out_sp
    out = dispatch(CONV_TRANSPOSE, x, weight, bias, sizes, stride, padding, dilation, groups)
    return out if nd == k + 2 else _squeeze(out, 0)


@interposable("conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)`` on (N, C_in, L) or (C_in, L); weight (C_in, C_out / groups, k)
    (ConvolutionBackward0)."""
    return _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


@interposable("conv_transpose2d")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)`` on (N, C_in, H, W) or (C_in, H, W); weight
    (C_in, C_out / groups, kH, kW) (ConvolutionBackward0)."""
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


@interposable("conv_transpose3d")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)`` on (N, C_in, D, H, W) or (C_in, D, H, W); weight
    (C_in, C_out / groups, kD, kH, kW) (ConvolutionBackward0)."""
    return _conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """``torch.convolution(input, weight, bias, stride, padding, dilation, transposed,
    output_padding, groups)``: the generic convolution, conv{1,2,3}d or
    conv_transpose{1,2,3}d by the weight's number of spatial dims (ConvolutionBackward0)."""
    _tensor_arg("convolution", weight, "weight", 2)
    k = weight._data.ndim - 2
    if k < 1:
        raise RuntimeError(f"weight should have at least three dimensions [convolution: got "
                           f"weight of size {list(weight._data.shape)}; a weight is (out, "
                           "in / groups, *kernel)]")
    if k > 3:
        raise RuntimeError(f"convolution: expected a weight with 1, 2 or 3 spatial dims "
                           f"(3-D to 5-D), but got weight of size {list(weight._data.shape)}")
    if transposed:
        return _conv_transpose_nd(f"conv_transpose{k}d", k, input, weight, bias, stride,
                                  padding, output_padding, groups, dilation)
    # (as PyTorch's, output_padding is ignored when not transposed)
    return _conv_nd(f"conv{k}d", k, input, weight, bias, stride, padding, dilation, groups)


export("conv_transpose1d", method=False)(conv_transpose1d)
export("conv_transpose3d", method=False)(conv_transpose3d)
export("convolution", method=False)(convolution)
export("conv_transpose2d", method=False)(conv_transpose2d)


# ====================================================================== unfold / fold
def _fold_args(fname, kernel_size, dilation, padding, stride):
    k = _ntuple(kernel_size, 2, "kernel_size")
    d = _ntuple(dilation, 2, "dilation")
    p = _ntuple(padding, 2, "padding")
    s = _ntuple(stride, 2, "stride")
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{k[0]} kernel_width: {k[1]}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} "
                           f"stride_width: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{d[0]} dilation_width: {d[1]}")
    if any(v < 0 for v in p):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} "
                           f"pad_width: {p[1]}")
    return k, d, p, s


def _blocks(sizes, k, d, p, s):
    return tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1
                 for n, kk, dd, pp, ss in zip(sizes, k, d, p, s))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """``unfold(input, kernel_size, dilation=1, padding=0, stride=1)``: the sliding blocks of
    an (N, C, H, W) or (C, H, W) input as columns (N, C * kh * kw, L) (Im2ColBackward0)."""
    _tensor_arg("unfold", input)
    k, d, p, s = _fold_args("unfold", kernel_size, dilation, padding, stride)
    shape = input._data.shape
    if len(shape) < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(len(shape), 1)}, {max(len(shape), 1) - 1}], but got "
                         f"{len(shape)}) [unfold needs an (N, C, H, W) or (C, H, W) input]")
    if len(shape) != 3 and len(shape) != 4:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(shape)}")
    blocks = _blocks(shape[-2:], k, d, p, s)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size ({shape[-2]}, {shape[-1]}), "
                           f"kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), "
                           f"padding=({p[0]}, {p[1]}), calculated shape of the array of sliding "
                           f"blocks as ({blocks[0]}, {blocks[1]}), but its components must be "
                           "at least one.")
    if input._data.dtype.kind not in "fcVb":
        raise NotImplementedError(f'"im2col_out_cpu" not implemented for '
                                  f"'{_type_name(input)}'")
    return dispatch(IM2COL, input, k, d, p, s)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)``: sum the
    columns of an (N, C * kh * kw, L) or (C * kh * kw, L) input back into (N, C, H, W)
    (Col2ImBackward0; the adjoint of unfold)."""
    _tensor_arg("fold", input)
    out = _ntuple(output_size, 2, "output_size")
    k, d, p, s = _fold_args("fold", kernel_size, dilation, padding, stride)
    shape = input._data.shape
    if len(shape) not in (2, 3) or any(v == 0 for v in shape[len(shape) - 2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    kk = k[0] * k[1]
    if shape[-2] % kk:
        raise RuntimeError(f"Expected size of input's dimension {len(shape) - 2} to be divisible "
                           f"by the product of kernel_size, but got input.size"
                           f"({len(shape) - 2})={shape[-2]} and kernel_size=({k[0]}, {k[1]}).")
    blocks = _blocks(out, k, d, p, s)
    if any(b < 1 for b in blocks) or blocks[0] * blocks[1] != shape[-1]:
        raise RuntimeError(f"Given output_size=({out[0]}, {out[1]}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), "
                           f"stride=({s[0]}, {s[1]}), expected size of input's dimension "
                           f"{len(shape) - 1} to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size({len(shape) - 1})={shape[-1]}.")
    if input._data.dtype.kind not in "fcVb":
        raise NotImplementedError(f'"col2im_out_cpu" not implemented for '
                                  f"'{_type_name(input)}'")
    return dispatch(COL2IM, input, out, k, d, p, s)
