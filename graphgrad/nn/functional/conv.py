"""Convolution (conv1d, conv2d) by im2col; its backward ops are the adjoint pair
(the input gradient a transposed convolution, whose gradient is a convolution again).
"""
from __future__ import annotations

import itertools
import numpy as np

from ..._core import dtypes as _dtype
from ...ops import formulas as F
from ...ops.dispatch import dispatch
from ...ops.registry import defop
from ..._core.opmath import half_in_float32
from ...ops.api.shape import squeeze as _squeeze, unsqueeze as _unsqueeze
from ._utils import _tensor_arg, _type_name, _sumk

# ====================================================================== convolution
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


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _pad_spatial(x, pads, value=0):
    if not any(lo or hi for lo, hi in pads):
        return x
    k = len(pads)
    return np.pad(x, [(0, 0)] * (x.ndim - k) + [tuple(p) for p in pads], constant_values=value)


def _windows(xp, out_sp, ksz, stride, dilation):
    """Strided view ``(..., *out_sp, *ksz)`` of the sliding windows over the last dims."""
    k = len(ksz)
    st = xp.strides[xp.ndim - k:]
    shape = xp.shape[:xp.ndim - k] + tuple(out_sp) + tuple(ksz)
    strides = xp.strides[:xp.ndim - k] + tuple(s * t for s, t in zip(stride, st)) + \
        tuple(d * t for d, t in zip(dilation, st))
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def _conv_out_sizes(in_sp, w_sp, stride, padding, dilation):
    return tuple((n + lo + hi - d * (kk - 1) - 1) // s + 1
                 for n, kk, s, (lo, hi), d in zip(in_sp, w_sp, stride, padding, dilation))


def _im2col(x, w_sp, stride, padding, dilation, groups, out_sp):
    """(*lead, N, C, *S) -> columns (*lead, N, G, C/G * prod(kernel), prod(out)).

    One copy of the sliding-window view, laid out so that the innermost axis runs along
    the output's last spatial axis (rows of the input, read with unit stride when the
    stride is 1), and so that the per-sample products ``weight @ columns`` come out in
    the convolution's own (N, C_out, *out) layout, with no transpose afterwards."""
    k = len(w_sp)
    nl = x.ndim - k - 2
    lead = x.shape[:nl]
    n, c = x.shape[nl], x.shape[nl + 1]
    win = _windows(_pad_spatial(x, padding), out_sp, w_sp, stride, dilation)
    # (*lead, n, c, *out, *ksz) -> (*lead, n, c, *ksz, *out)
    perm = list(range(nl + 2)) + list(range(nl + 2 + k, nl + 2 + 2 * k)) + \
        list(range(nl + 2, nl + 2 + k))
    return win.transpose(perm).reshape(
        lead + (n, groups, (c // groups) * _prod(w_sp), _prod(out_sp)))


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_kernel(x, w, b, stride, padding, dilation, groups):
    """Convolution (cross-correlation) via im2col + one (grouped) matmul per sample.
    Either operand may carry extra leading dims (batched rules); they broadcast."""
    k = len(stride)
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    out_sp = _conv_out_sizes(x.shape[x.ndim - k:], w_sp, stride, padding, dilation)
    n = x.shape[x.ndim - k - 2]
    og = o // groups
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, N, G, K, P)
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (1, groups, og, cg * _prod(w_sp)))
    res = np.matmul(wm, cols)                                          # (*L, N, G, Og, P)
    # row-major (N, C_out, *out), as PyTorch's (so that e.g. out.view(n, -1) works)
    out = res.reshape(res.shape[:-4] + (n, o) + out_sp)
    if b is not None:
        out += b.reshape((o,) + (1,) * k)
    return out


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_weight_kernel(g, x, weight_sizes, stride, padding, dilation, groups):
    """The weight gradient of a convolution: ``g`` contracted with the columns of ``x``,
    one product per sample, then summed over the samples."""
    k = len(stride)
    weight_sizes = tuple(weight_sizes[len(weight_sizes) - k - 2:])
    w_sp = weight_sizes[2:]
    og = weight_sizes[0] // groups
    out_sp = g.shape[g.ndim - k:]
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, N, G, K, P)
    nl = g.ndim - k - 2
    lead, n = g.shape[:nl], g.shape[nl]
    gm = g.reshape(lead + (n, groups, og, _prod(out_sp)))
    res = np.matmul(gm, np.swapaxes(cols, -1, -2)).sum(axis=-4)        # (*L, G, Og, K)
    return res.reshape(res.shape[:-3] + weight_sizes)


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_input_kernel(g, w, input_sizes, stride, padding, dilation, groups):
    """The input gradient of a convolution: a transposed convolution of ``g``."""
    return col2im(g, w, input_sizes, stride, padding, dilation, groups)


def col2im(g, w, input_sizes, stride, padding, dilation, groups, acc_dtype=None):
    """The transposed convolution of ``g`` (the input gradient of a convolution, and
    conv_transpose's forward): one matmul to columns, then the columns are added back onto
    the (padded, ``padding`` as (lo, hi) pairs) input positions they were read from.
    ``acc_dtype``: the columns are rounded to it and added up in it, offset by offset, as
    PyTorch's float16 transposed convolution (gemm into half-precision columns, then col2im
    in half precision) does."""
    k = len(stride)
    input_sizes = tuple(input_sizes[len(input_sizes) - k - 2:])
    n, c = input_sizes[0], input_sizes[1]
    in_sp = input_sizes[2:]
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    og = o // groups
    out_sp = g.shape[g.ndim - k:]
    nl = g.ndim - k - 2
    gm = g.reshape(g.shape[:nl] + (n, groups, og, _prod(out_sp)))
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (1, groups, og, cg * _prod(w_sp)))
    # columns (*L, N, G, K, out) = (*L, N, C, *ksz, *out): per sample, W^T @ g
    cols = np.matmul(np.swapaxes(wm, -1, -2), gm)
    if acc_dtype is not None:
        cols = cols.astype(acc_dtype)
    lead = cols.shape[:-4]
    cols = cols.reshape(lead + (n, c) + w_sp + out_sp)
    sp = tuple(s + lo + hi for s, (lo, hi) in zip(in_sp, padding))
    xp = np.zeros(lead + (n, c) + sp, dtype=cols.dtype)
    tail = (slice(None),) * k
    for off in itertools.product(*[range(kk) for kk in w_sp]):
        sl = tuple(slice(i * d, i * d + s * (m - 1) + 1, s)
                   for i, d, s, m in zip(off, dilation, stride, out_sp))
        xp[(Ellipsis,) + sl] += cols[(Ellipsis,) + off + tail]
    if not any(lo or hi for lo, hi in padding):
        return xp
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(padding, in_sp))
    return np.ascontiguousarray(xp[(Ellipsis,) + crop])


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


# for complex operands the VJPs conjugate the other factor (the conv is bilinear, no conj)
CONVOLUTION = defop(
    "convolution(input, weight, bias, *, stride, padding, dilation, groups)", _conv_kernel,
    "ConvolutionBackward0",
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
    grad_output=lambda grad, input, stride, padding, dilation, groups:
        F.convolution(F.conj(input), grad, None, stride, padding, dilation, groups),
    input=lambda grad, grad_output, input_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_input(F.conj(grad_output), grad, tuple(input_sym_sizes), stride,
                                     padding, dilation, groups),
    jvp=lambda grad_output_t, input_t, grad_output, input, weight_sizes, stride, padding,
    dilation, groups:
        F.convolution_backward_weight(grad_output_t, input, weight_sizes, stride, padding,
                                      dilation, groups)
        + F.convolution_backward_weight(grad_output, input_t, weight_sizes, stride, padding,
                                        dilation, groups), batched_jvp=True)


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
            raise NotImplementedError(f'"slow_conv{k}d_cpu" not implemented for '
                                      f"'{_type_name(t)}'")
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"{fname}: input type ({_type_name(input)}) and "
                               f"{'weight' if t is weight else 'bias'} type ({_type_name(t)}) "
                               "should be the same")
    out = dispatch(CONVOLUTION, x, weight, bias, stride, pads, dilation, int(groups))
    return out if nd == k + 2 else _squeeze(out, 0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, L) or (C, L) inputs; ``padding`` may be 'valid' or 'same' (ConvolutionBackward0)."""
    return _conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, H, W) or (C, H, W) inputs; ``padding`` may be 'valid' or 'same'
    (ConvolutionBackward0)."""
    return _conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)
