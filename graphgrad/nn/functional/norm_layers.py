"""Normalisation ops for graphgrad.nn.functional: batch_norm, instance_norm, group_norm,
rms_norm.

batch_norm and group_norm are table ops with PyTorch's nodes (NativeBatchNormBackward0,
NativeGroupNormBackward0).  Their rules run on the saved statistics in an ordinary backward
and recompute them with graphgrad ops when they run on Tensors (create_graph, forward AD), so
the statistics are differentiated too, as layer_norm's.  rms_norm and instance_norm are
composites, as PyTorch's are (MulBackward0 / ViewBackward0 on top).
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ...ops import formulas as F
from ...ops.dispatch import dispatch
from ..._core.opmath import half_in_float32
from ...ops.registry import defop, export
from ._utils import _real_floating, _sumk, _tensor_arg, _type_name

__all__ = ["batch_norm", "instance_norm", "group_norm", "rms_norm"]


def _chan(t, nd):
    """A per-channel (C,) value (possibly batched) shaped to broadcast against an
    ``nd``-d (N, C, *) tensor (possibly batched)."""
    c = F.shape(t)[-1]
    return F.pad_batched(F.reshape_to(t, (c,) + (1,) * (nd - 2), 1), nd - 1, nd)


def _bn_axes(nd):
    """The reduction dims of an (N, C, *) input, counted from the end (batch-safe)."""
    return (-nd,) + tuple(range(-nd + 2, 0))


def _per_channel(s, nd):
    """A keepdim per-channel sum (..., 1, C, 1, ...) as (..., C)."""
    return F.reshape_to(s, (F.shape(s)[-(nd - 1)],), nd)


# ====================================================================== batch_norm
def _bn_kernel(x, w, b, rm, rv, training, eps):
    half = x.dtype if x.dtype.itemsize == 2 and x.dtype.kind in "fV" else None
    # (in float32; the statistics are stored in the half type, unless the parameters and
    # statistics are float32: PyTorch's mixed-type kernel keeps them in float32)
    mixed = half is not None and any(t is not None and t.dtype == np.float32
                                     for t in (w, b, rm, rv))
    if half is not None:
        f = np.float32
        x = x.astype(f)
        w, b, rm, rv = (None if t is None else t.astype(f) for t in (w, b, rm, rv))
    nd = x.ndim
    axes = (0,) + tuple(range(2, nd))
    shape = (x.shape[1],) + (1,) * (nd - 2)
    if training:
        mean = x.mean(axis=axes)
        xc = x - mean.reshape(shape)
        var = (xc * xc).mean(axis=axes)
    else:
        mean = rm.astype(x.dtype, copy=False)
        var = rv.astype(x.dtype, copy=False)
    invstd = 1.0 / np.sqrt(var + eps)
    if half is not None and training and not mixed:
        mean, invstd = (v.astype(half).astype(np.float32) for v in (mean, invstd))
    # x * alpha + beta per channel, as PyTorch's CPU kernel applies it
    alpha = invstd if w is None else invstd * w
    beta = -mean * alpha if b is None else b - mean * alpha
    out = x * alpha.reshape(shape)
    out += beta.reshape(shape)
    if half is not None:
        sd = np.float32 if mixed else half
        return out.astype(half), mean.astype(sd), invstd.astype(sd), var
    return out, mean, invstd, var


def _bn_stats(input, result1, result2, training, eps):
    """(xhat, invstd (C,)): from the saved statistics, or recomputed with graphgrad ops when
    the rule runs on Tensors (so that they are differentiated too)."""
    nd = F.ndim(input)
    if training and isinstance(input, Tensor):
        axes = _bn_axes(nd)
        n = F.numel(F.shape(input)) // F.shape(input)[1]
        xc = input - _sumk(input, axes) / n
        rstd = (_sumk(xc * xc, axes) / n + eps) ** -0.5
        return xc * rstd, rstd
    return (input - _chan(result1, nd)) * _chan(result2, nd), _chan(result2, nd)


def _bn_input_vjp(grad, input, weight, result1, result2, training, eps):
    nd = F.ndim(input)
    xhat, rstd = _bn_stats(input, result1, result2, training, eps)
    g = grad if weight is None else grad * _chan(weight, nd)
    if not training:
        return g * rstd
    axes = _bn_axes(nd)
    n = F.numel(F.shape(input)) // F.shape(input)[1]
    return rstd * (g - _sumk(g, axes) / n - xhat * (_sumk(g * xhat, axes) / n))


def _bn_weight_vjp(grad, input, result1, result2, training, eps):
    nd = F.ndim(input)
    xhat = _bn_stats(input, result1, result2, training, eps)[0]
    return _per_channel(_sumk(grad * xhat, _bn_axes(nd)), nd)


def _bn_jvp(input_t, weight_t, bias_t, input, weight, bias, result1, result2, training, eps):
    nd = F.ndim(input)
    xhat, rstd = _bn_stats(input, result1, result2, training, eps)
    if training:
        axes = _bn_axes(nd)
        n = F.numel(F.shape(input)) // F.shape(input)[1]
        xt = input_t - _sumk(input_t, axes) / n
        out_t = rstd * (xt - xhat * (_sumk(xhat * xt, axes) / n))
    else:
        out_t = input_t * rstd
    if weight is not None:
        out_t = out_t * _chan(weight, nd) + xhat * _chan(weight_t, nd)
    if bias is not None:
        out_t = out_t + _chan(bias_t, nd)
    return out_t


BATCH_NORM = defop(
    "native_batch_norm(input, weight, bias, running_mean, running_var, *, training, eps)",
    _bn_kernel, "NativeBatchNormBackward0", n_outputs=4, nondiff_outputs=(1, 2, 3),
    input=_bn_input_vjp,
    weight=_bn_weight_vjp,
    bias=lambda grad, input_sym_sizes: _per_channel(
        _sumk(grad, _bn_axes(len(input_sym_sizes))), len(input_sym_sizes)),
    jvp=_bn_jvp, batched_jvp=True)


def _check_vec(name, t, c):
    if t is not None and t._data.size != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")


def _update_running(t, new, momentum):
    """``t = (1 - momentum) * t + momentum * new`` in place (no graph; like PyTorch's kernel,
    which writes the statistics directly, the version counter is left alone)."""
    d = t._data
    d[...] = ((1.0 - momentum) * d.astype(np.float64) + momentum * new).astype(d.dtype)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """``batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
    momentum=0.1, eps=1e-05)`` on (N, C, *): normalise each channel by the batch's statistics
    (training) or by the running ones (eval); in training the running statistics (when given)
    are updated in place: ``(1 - momentum) * running + momentum * batch``, with the batch's
    unbiased variance (NativeBatchNormBackward0)."""
    _tensor_arg("batch_norm", input)
    if momentum is None or isinstance(momentum, bool) or \
            not isinstance(momentum, (int, float, np.floating, np.integer)):
        raise TypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    shape = input._data.shape
    nd = len(shape)
    c = shape[1] if nd > 1 else 0
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be "
                           "defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _check_vec(name, t, c)
    if training:
        n = input._data.size // c if c else 0
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
    if nd < 2:
        raise RuntimeError(f"batch_norm: expected an (N, C, *) input with at least 2 dims, got "
                           f"input of size {list(shape)}")
    if input._data.dtype.kind != "f" and input.dtype is not _dtype.bfloat16:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{_type_name(input)}'")
    dt = input._data.dtype
    half = dt.itemsize == 2
    pdt = {t._data.dtype for t in (weight, bias, running_mean, running_var) if t is not None}
    # (a float16/bfloat16 input may come with float32 parameters and statistics, all of them)
    if pdt and pdt != {dt} and not (half and pdt == {np.dtype(np.float32)}):
        raise RuntimeError(f"mixed dtype (CPU): all inputs must share same datatype. "
                           f"[batch_norm: input is {scalar_type_name(dt)}, the parameters and "
                           f"running statistics are "
                           f"{', '.join(sorted(scalar_type_name(d) for d in pdt))}]")
    out = dispatch(BATCH_NORM, input, weight, bias, running_mean, running_var, bool(training),
                   float(eps))
    if training and (running_mean is not None or running_var is not None):
        n = input._data.size // c
        mean, var = out[1]._data.astype(np.float64), out[3]._data.astype(np.float64)
        if running_mean is not None:
            _update_running(running_mean, mean, float(momentum))
        if running_var is not None:
            _update_running(running_var, var * (n / (n - 1)), float(momentum))
    return out[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """``instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
    use_input_stats=True, momentum=0.1, eps=1e-05)``: batch_norm of the (1, N*C, *) view
    (each instance's channel on its own), as PyTorch computes it; the running statistics
    get the mean over the batch of the per-instance updates (ViewBackward0 on top)."""
    _tensor_arg("instance_norm", input)
    shape = input._data.shape
    if use_input_stats:
        sp = int(np.prod(shape[2:])) if len(shape) > 2 else 1
        if len(shape) < 3 or sp <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {input.shape}")
    n, c = shape[0], shape[1]
    x = input.reshape((1, n * c) + tuple(shape[2:]))

    def rep(t):
        return None if t is None else t.repeat(n)
    # (the repeated statistics are new tensors in the parameters' dtype, as PyTorch's)
    sdt = (weight if weight is not None else input)._data.dtype
    rm = rv = None
    if running_mean is not None:
        rm = Tensor._wrap(np.tile(running_mean._data, n).astype(sdt))
    if running_var is not None:
        rv = Tensor._wrap(np.tile(running_var._data, n).astype(sdt))
    out = batch_norm(x, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        for src, dst in ((rm, running_mean), (rv, running_var)):
            if dst is not None:
                dst._data[...] = src._data.reshape(n, c).mean(axis=0).astype(dst._data.dtype)
                dst._bump_version()   # (PyTorch copies the means back in: copy_ bumps it)
    return out.view(shape)


# ====================================================================== group_norm
def _grouped(x, group, nd):
    """(..., N, C, *) -> (..., N, G, C/G * prod(*)) (ndarray or Tensor, batch-safe)."""
    s = F.shape(x)
    lead = s[:len(s) - nd]
    n, c = s[len(s) - nd], s[len(s) - nd + 1]
    rest = F.numel(s[len(s) - nd + 1:]) // group if c else 0
    return F.reshape(x, lead + (n, group, rest))


@half_in_float32
def _gn_kernel(x, w, b, group, eps):
    nd = x.ndim
    xg = x.reshape(x.shape[0], group, -1) if x.size else x.reshape(x.shape[0], group, 0)
    mean = xg.mean(axis=-1, keepdims=True)
    xc = xg - mean
    var = (xc * xc).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    out = (xc * rstd).reshape(x.shape)
    shape = (x.shape[1],) + (1,) * (nd - 2)
    if w is not None:
        out *= w.reshape(shape)
    if b is not None:
        out += b.reshape(shape)
    return out, mean[..., 0], rstd[..., 0]


def _gn_stats(input, result1, result2, group, eps):
    """(xhat grouped (.., N, G, M), rstd (.., N, G, 1))."""
    nd = F.ndim(input)
    xg = _grouped(input, group, nd)
    if isinstance(input, Tensor):
        m = F.shape(xg)[-1]
        xc = xg - _sumk(xg, (-1,)) / m
        rstd = (_sumk(xc * xc, (-1,)) / m + eps) ** -0.5
        return xc * rstd, rstd
    rstd = F.unsqueeze_last(result2)
    return (xg - F.unsqueeze_last(result1)) * rstd, rstd


def _gn_input_vjp(grad, input, weight, result1, result2, group, eps):
    nd = F.ndim(input)
    xhat, rstd = _gn_stats(input, result1, result2, group, eps)
    g = grad if weight is None else grad * _chan(weight, nd)
    gg = _grouped(g, group, nd)
    m = F.shape(gg)[-1]
    dx = rstd * (gg - _sumk(gg, (-1,)) / m - xhat * (_sumk(gg * xhat, (-1,)) / m))
    return F.reshape(dx, F.shape(grad))


def _as_param(grad, p):
    """A half-precision gradient taken to a float32 parameter's dtype first (PyTorch's
    mixed-type kernels reduce it in float32)."""
    pd = p.dtype if not isinstance(p, Tensor) else p._data.dtype
    gd = grad.dtype if not isinstance(grad, Tensor) else grad._data.dtype
    return grad if gd == pd else F.cast(grad, pd)


def _gn_weight_vjp(grad, input, weight, result1, result2, group, eps):
    grad = _as_param(grad, weight)
    nd = F.ndim(input)
    xhat = F.reshape(_gn_stats(input, result1, result2, group, eps)[0], F.shape(input))
    if F.shape(xhat) and not isinstance(xhat, Tensor) and xhat.dtype != grad.dtype:
        xhat = xhat.astype(grad.dtype)
    return _per_channel(_sumk(grad * xhat, _bn_axes(nd)), nd)


def _gn_jvp(input_t, weight_t, bias_t, input, weight, bias, result1, result2, group, eps):
    nd = F.ndim(input)
    xhat, rstd = _gn_stats(input, result1, result2, group, eps)
    xt = _grouped(input_t, group, nd)
    m = F.shape(xt)[-1]
    xt = xt - _sumk(xt, (-1,)) / m
    out_t = F.reshape(rstd * (xt - xhat * (_sumk(xhat * xt, (-1,)) / m)), F.shape(input_t))
    if weight is not None:
        out_t = out_t * _chan(weight, nd) + \
            F.reshape(xhat, F.shape(input)) * _chan(weight_t, nd)
    if bias is not None:
        out_t = out_t + _chan(bias_t, nd)
    return out_t


GROUP_NORM = defop(
    "native_group_norm(input, weight, bias, *, group, eps)", _gn_kernel,
    "NativeGroupNormBackward0", n_outputs=3, nondiff_outputs=(1, 2),
    input=_gn_input_vjp,
    weight=_gn_weight_vjp,
    bias=lambda grad, bias, input_sym_sizes: _per_channel(
        _sumk(_as_param(grad, bias), _bn_axes(len(input_sym_sizes))), len(input_sym_sizes)),
    jvp=_gn_jvp, batched_jvp=True)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """``group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)`` on (N, C, *):
    normalise each group of C / num_groups channels of each sample, then scale and shift per
    channel (NativeGroupNormBackward0)."""
    _tensor_arg("group_norm", input)
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{len(shape)}")
    num_groups = int(num_groups)
    if num_groups == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    c = shape[1]
    if num_groups < 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(t._data.shape)} and input of shape {list(shape)}")
    half = input._data.dtype.itemsize == 2 and input._data.dtype.kind in "fV"
    for t in (weight, bias):
        # (float32 parameters of a float16/bfloat16 input are fine: PyTorch's mixed type)
        if t is not None and t._data.dtype != input._data.dtype and \
                not (half and t._data.dtype == np.float32):
            raise RuntimeError(f"expected scalar type {_type_name(input)} but found "
                               f"{_type_name(t)} [group_norm: weight and bias must have the "
                               "input's dtype]")
    _real_floating("GroupNormKernelImpl", input)
    return dispatch(GROUP_NORM, input, weight, bias, num_groups, float(eps))[0]


# ====================================================================== rms_norm
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``rms_norm(input, normalized_shape, weight=None, eps=None)``: input /
    sqrt(mean(input^2 over the trailing normalized_shape dims) + eps), times weight; eps
    defaults to the dtype's machine epsilon (composite, as PyTorch's: PowBackward0,
    MeanBackward1, AddBackward1, RsqrtBackward0, MulBackward0; half precision is computed
    in float32, ToCopyBackward0 on top)."""
    _tensor_arg("rms_norm", input)
    if isinstance(normalized_shape, (int, np.integer)):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not int [pass ({normalized_shape},)]")
    ns = tuple(int(s) for s in normalized_shape)
    shape = input._data.shape
    if not ns or len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in ns)}], but got input of size"
                           f"{list(shape)}")
    if weight is not None and weight._data.shape != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight._data.shape)} and normalized_shape = "
                           f"{list(ns)}")
    _real_floating("rms_norm", input)
    half = input._data.dtype.itemsize == 2
    x = input.float() if half else input
    if eps is None:
        eps = float(np.finfo(np.float32 if half else input._data.dtype).eps)
    dims = tuple(range(-len(ns), 0))
    r = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        r = r * weight
    return r.to(input.dtype) if half else r


@export("batch_norm", method=False)
def _batch_norm_public(input, weight, bias, running_mean, running_var, training, momentum, eps,
                       cudnn_enabled=False):
    """``graphgrad.batch_norm(input, weight, bias, running_mean, running_var, training,
    momentum, eps, cudnn_enabled)``: torch.batch_norm's argument order."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@export("instance_norm", method=False)
def _instance_norm_public(input, weight, bias, running_mean, running_var, use_input_stats,
                          momentum, eps, cudnn_enabled=False):
    """``graphgrad.instance_norm(input, weight, bias, running_mean, running_var,
    use_input_stats, momentum, eps, cudnn_enabled)``: torch.instance_norm's argument order."""
    return instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                         momentum, eps)


_batch_norm_public.__name__ = _batch_norm_public.__qualname__ = "batch_norm"
_instance_norm_public.__name__ = _instance_norm_public.__qualname__ = "instance_norm"


@export("group_norm", method=False)
def _group_norm_public(input, num_groups, weight=None, bias=None, eps=1e-5,
                       cudnn_enabled=True):
    """``graphgrad.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
    cudnn_enabled=True)``."""
    return group_norm(input, num_groups, weight, bias, eps)


_group_norm_public.__name__ = _group_norm_public.__qualname__ = "group_norm"
export("rms_norm", method=False)(rms_norm)

