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

import itertools

import numpy as np

from .. import _dtype
from .._ops import formulas as F
from .._ops import registry as _registry
from .._ops.dispatch import dispatch
from .._ops.opmath import half_in_float32
from .._ops.registry import defop, export
from .functional import (_conv_bias_grad, _ntuple, _prod, _pub, _tensor_arg,
                         _type_name)

__all__ = ["conv_transpose1d", "conv_transpose2d"]


def _col2im(x, w, output_sizes, stride, padding, dilation, groups, acc_dtype=None):
    """The transposed convolution of ``x`` (columns ``w^T x``, added back onto the output
    positions they come from), as ``_conv_backward_input_kernel``; ``acc_dtype``: the columns
    are rounded to it and added up in it, offset by offset, as PyTorch's float16 kernel
    (gemm into half-precision columns, then col2im in half precision) does."""
    k = len(stride)
    n, c = output_sizes[-k - 2], output_sizes[-k - 1]
    out_sp = tuple(output_sizes[len(output_sizes) - k:])
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    og = o // groups
    in_sp = x.shape[x.ndim - k:]
    nl = x.ndim - k - 2
    xm = x.reshape(x.shape[:nl] + (n, groups, og) + in_sp)
    perm = list(range(nl)) + [nl + 1, nl + 2, nl] + list(range(nl + 3, nl + 3 + k))
    xm = np.ascontiguousarray(
        xm.transpose(perm).reshape(x.shape[:nl] + (groups, og, n * _prod(in_sp))))
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (groups, og, cg * _prod(w_sp)))
    cols = np.matmul(np.swapaxes(wm, -1, -2), xm)                        # (*L, G, K, M)
    if acc_dtype is not None:
        cols = cols.astype(acc_dtype)
    lead = cols.shape[:-3]
    cols = cols.reshape(lead + (groups, cg) + w_sp + (n,) + in_sp)
    sp = tuple(s + 2 * p for s, p in zip(out_sp, padding))
    yp = np.zeros(lead + (groups, cg, n) + sp, dtype=cols.dtype)
    tail = (slice(None),) * (k + 1)
    for off in itertools.product(*[range(kk) for kk in w_sp]):
        sl = tuple(slice(i * d, i * d + s * (m - 1) + 1, s)
                   for i, d, s, m in zip(off, dilation, stride, in_sp))
        yp[(Ellipsis,) + sl] += cols[(Ellipsis,) + off + tail]
    nl = len(lead)
    yp = yp.transpose(list(range(nl)) + [nl + 2, nl, nl + 1] + list(range(nl + 3, nl + 3 + k)))
    crop = tuple(slice(p, p + s) for p, s in zip(padding, out_sp))
    return np.asarray(yp[(Ellipsis,) + crop], order="C").reshape(lead + (n, c) + out_sp)


@half_in_float32(float16=False)   # (bfloat16: in float32, one rounding; float16: below)
def _conv_transpose_kernel(x, w, b, output_sizes, stride, padding, dilation, groups):
    k = len(stride)
    if x.dtype == np.float16:
        f = np.float32
        out = _col2im(x.astype(f), w.astype(f), output_sizes, stride, padding, dilation, groups,
                      np.float16)
    else:
        out = _col2im(x, w, output_sizes, stride, padding, dilation, groups)
    if b is not None:
        out += b.reshape((b.shape[-1],) + (1,) * k)
    return out


def _pads(padding):
    return tuple((p, p) for p in padding)


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


CONV_TRANSPOSE = defop(
    "conv_transpose(input, weight, bias, *, output_sizes, stride, padding, dilation, groups)",
    _conv_transpose_kernel, "ConvolutionBackward0",
    input=lambda grad, weight, stride, padding, dilation, groups:
        F.convolution(grad, F.conj(weight), None, stride, _pads(padding), dilation, groups),
    weight=lambda grad, input, weight_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_weight(F.conj(input), grad, tuple(weight_sym_sizes), stride,
                                      _pads(padding), dilation, groups),
    bias=lambda grad, stride: _conv_bias_grad(grad, len(stride)),
    jvp=_conv_transpose_jvp, batched_jvp=True)


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
        op2 = (0,) * (2 - k) + output_padding
        s2 = (1,) * (2 - k) + stride
        d2 = (1,) * (2 - k) + dilation
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {op2[0]} output_padding_width: {op2[1]} stride_height: "
            f"{s2[0]} stride_width: {s2[1]} dilation_height: {d2[0]} dilation_width: {d2[1]}")
    x = input if nd == k + 2 else _pub("unsqueeze")(input, 0)
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
            raise NotImplementedError(f'"slow_conv_transpose{k}d_cpu" not implemented for '
                                      f"'{_type_name(t)}'")
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected scalar type {_type_name(t)} but found "
                               f"{_type_name(input)} [{fname}: input, weight and bias must have "
                               "the same dtype]")
    sizes = (xshape[0], c_out) + out_sp
    out = dispatch(CONV_TRANSPOSE, x, weight, bias, sizes, stride, padding, dilation, groups)
    return out if nd == k + 2 else _pub("squeeze")(out, 0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)`` on (N, C_in, L) or (C_in, L); weight (C_in, C_out / groups, k)
    (ConvolutionBackward0)."""
    return _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)`` on (N, C_in, H, W) or (C_in, H, W); weight
    (C_in, C_out / groups, kH, kW) (ConvolutionBackward0)."""
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


export("conv_transpose1d", method=False)(conv_transpose1d)
export("conv_transpose2d", method=False)(conv_transpose2d)

F.install(_registry.OPS)
F._bind(_registry.OPS)
