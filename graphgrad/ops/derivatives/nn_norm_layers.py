"""The table, nn_norm_layers family: batch_norm, instance_norm, group_norm, rms_norm.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_norm_layers.py, public functions in nn/functional/norm_layers.py.
"""
from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import defop
from .nn_utils import _sumk
from ..kernels.nn_norm_layers import _bn_kernel, _gn_kernel


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
    vjp_order=("input", "weight", "bias"),   # (PyTorch: one formula for the three)
    input=_bn_input_vjp,
    weight=_bn_weight_vjp,
    bias=lambda grad, input_sym_sizes: _per_channel(
        _sumk(grad, _bn_axes(len(input_sym_sizes))), len(input_sym_sizes)),
    jvp=_bn_jvp, batched_jvp=True)


# ====================================================================== group_norm
def _grouped(x, group, nd):
    """(..., N, C, *) -> (..., N, G, C/G * prod(*)) (ndarray or Tensor, batch-safe)."""
    s = F.shape(x)
    lead = s[:len(s) - nd]
    n, c = s[len(s) - nd], s[len(s) - nd + 1]
    rest = F.numel(s[len(s) - nd + 1:]) // group if c else 0
    return F.reshape(x, lead + (n, group, rest))


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
    vjp_order=("input", "weight", "bias"),   # (PyTorch: one formula for the three)
    input=_gn_input_vjp,
    weight=_gn_weight_vjp,
    bias=lambda grad, bias, input_sym_sizes: _per_channel(
        _sumk(_as_param(grad, bias), _bn_axes(len(input_sym_sizes))), len(input_sym_sizes)),
    jvp=_gn_jvp, batched_jvp=True)
