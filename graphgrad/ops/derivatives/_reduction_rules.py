"""The rule helpers of the reductions family's table entries (ops/derivatives/reductions.py):
the VJP/JVP formulas and the polymorphic helpers they share (also used by the median and
moments families).  They reach the family's own entries by name (``_OP``), as formulas.py
does, so that the table imports them without a cycle.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..dispatch import dispatch
from ..._core.opmath import half_in_float32
from ..registry import OPS as _OP
from ..kernels.pointwise_unary import _complex_abs
from ..kernels.reductions import _INF, _cumprod_backward_np, _mean, _prod_others_np


# ============================================================ small polymorphic helpers
def _arr(x):
    """The ndarray behind ``x`` (constants such as masks are computed on plain data)."""
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _const(arr, like):
    """``arr`` as a constant of the same kind as ``like`` (Tensor or ndarray)."""
    return Tensor._wrap(np.asarray(arr)) if isinstance(like, Tensor) else arr


def _restore(x, sizes, dims, keepdim):
    """Reshape a reduced (maybe batched) value so it broadcasts against ``batch + sizes``."""
    n = len(sizes)
    if keepdim or n == 0:
        return x
    if dims is None:
        dims = range(n)
    gs = F.shape(x)
    nb = len(gs) - (n - len(dims))
    if isinstance(x, Tensor) and dims:
        # one unsqueeze per reduced dim, as PyTorch's unsqueeze_multiple (UnsqueezeBackward0
        # in a double backward's graph, not ViewBackward0)
        for d in sorted(dims):
            x = dispatch(_OP["unsqueeze"], x, nb + d)
        return x
    kept = list(gs[:nb])
    j = nb
    for i in range(n):
        if i in dims:
            kept.append(1)
        else:
            kept.append(gs[j])
            j += 1
    return F.reshape(x, tuple(kept))


def _sum_dims(x, dims, keepdim, nd=None):
    """Sum over non-negative ``dims`` (``None`` = all) of ``x``, which has ``nd`` dims plus
    any leading batch dims (``nd=None``: no batch dims)."""
    if nd is None:
        nd = F.ndim(x)
    lead = F.ndim(x) - nd
    dims = tuple(range(lead, lead + nd)) if dims is None else \
        tuple(d + lead if d >= 0 else d for d in dims)
    if isinstance(x, Tensor):
        return dispatch(_OP["sum.dim_IntList"], x, dims, keepdim, None)
    return np.sum(x, axis=dims, keepdims=keepdim)


def _rsum(x, neg_dims, keepdim=False):
    """Sum over dims counted from the end (works on batched values)."""
    nd = F.ndim(x)
    dims = tuple(sorted(d % nd for d in neg_dims))
    if isinstance(x, Tensor):
        return dispatch(_OP["sum.dim_IntList"], x, dims, keepdim, None)
    return np.sum(x, axis=dims, keepdims=keepdim)


def _neg(dim, n):
    return dim - n if dim >= 0 else dim


def _reduce_batched(op, self_t, self_sym_sizes, dim=None, keepdim=False, dtype=None):
    """The batched JVP of a linear reduction (sum, mean): ``op`` (the dim variant) on the
    tangent, over the dims (non-negative ones shifted past its leading batch dims)."""
    nd = len(self_sym_sizes)
    lead = F.ndim(self_t) - nd
    dims = tuple(range(lead, lead + nd)) if dim is None else \
        tuple(d + lead if d >= 0 else d for d in dim)
    return dispatch(op, self_t, dims, keepdim, dtype)


def _mean_keep(x, dims):
    if isinstance(x, Tensor):
        return dispatch(_OP["mean.dim"], x,
                        tuple(range(x._data.ndim)) if dims is None else dims, True, None)
    return _mean(x, dims, True)


def _abs(x):
    """|x| (real for complex x), differentiable on Tensors."""
    if not isinstance(x, Tensor):
        return _complex_abs(x) if x.dtype.kind == "c" else np.abs(x)
    op = F._OP.get("abs")
    if op is not None:
        return dispatch(op, x)
    if x._data.dtype.kind == "c":   # fallback until the pointwise family has abs
        return F.real(x * F.conj(x)) ** 0.5
    return F.where(Tensor._wrap(x._data < 0), -x, x)


def _sgn(x):
    """x / |x| (0 at 0); sign(x) for real x."""
    if not isinstance(x, Tensor):
        if x.dtype.kind == "c":
            a = _complex_abs(x)
            return np.where(a == 0, 0, x / np.where(a == 0, 1, a))
        return F.sign(x)  # (0 at NaN, as PyTorch's; np.sign gives NaN)
    op = F._OP.get("sgn")
    if op is not None:
        return dispatch(op, x)
    if x._data.dtype.kind != "c":   # the derivative of sign is zero: a constant is exact
        return Tensor._wrap(np.sign(x._data))
    zero = x._data == 0
    a = _abs(x)
    return F.where(Tensor._wrap(zero), 0.0, x / F.where(Tensor._wrap(zero), 1.0, a))


def _flip(x, d):
    if isinstance(x, Tensor):
        return dispatch(_OP["_flip_dim"], x, d)
    return np.flip(x, d)


def _cumsum_poly(x, d):
    if isinstance(x, Tensor):
        return dispatch(_OP["cumsum"], x, d % x._data.ndim, None)
    return np.cumsum(x, axis=d)


def _rev_cumsum(g, d):
    """Reversed cumulative sum along dim ``d`` (negative); row-major on ndarrays, like
    PyTorch's result (the flipped view is not)."""
    r = _flip(_cumsum_poly(_flip(g, d), d), d)
    return np.asarray(r, order="C") if r.__class__ is np.ndarray else r


def _to_last(x, d):
    """Swap dim ``d`` (negative) with the last one (an involution)."""
    if d == -1:
        return x
    if isinstance(x, Tensor):
        return F.transpose(x, d, -1)
    return np.swapaxes(x, d, -1)


def _others_matrix(xt, cumulative):
    """M[..., k, i] = prod_{j<=i, j!=k} x_j (cumulative) or prod_{j!=k} x_j, along the last dim.

    Built from differentiable ops only (expand, where, cumprod/prod), so its
    derivatives are exact even where x has zeros.
    """
    shp = F.shape(xt)
    n = shp[-1]
    X = F.expand(F.unsqueeze(xt, -2), shp[:-1] + (n, n))
    Xm = F.where(np.eye(n, dtype=bool), 1.0, X)
    if cumulative:
        return dispatch(_OP["cumprod"], Xm, len(shp), None) if isinstance(Xm, Tensor) \
            else np.cumprod(Xm, axis=-1)
    return dispatch(_OP["prod.dim_int"], Xm, len(shp), False, None) if isinstance(Xm, Tensor) \
        else np.prod(Xm, axis=-1)


# ============================================================ prod
def _prod_others(self, result, dim, keepdim):
    sizes = F.shape(self)
    xd = _arr(self)
    if not (xd == 0).any():
        return _restore(result, sizes, None if dim is None else (dim,), keepdim) / self
    if not isinstance(self, Tensor):
        return _prod_others_np(xd, dim)
    if dim is None:
        return F.reshape(_exclusive_products(F.reshape(self, (xd.size,))), sizes)
    d = dim - len(sizes)
    return _to_last(_exclusive_products(_to_last(self, d)), d)


def _exclusive_products(xt):
    """prod_{j != k} x_j along the last dim, as the product of the exclusive cumprods from
    both ends (PyTorch's prod_safe_zeros_backward), from differentiable ops: so its own
    derivative, under create_graph, has PyTorch's NaN pattern at zeros next to inf/NaN."""
    fwd = F.cumprod(F.constant_pad_nd(xt[..., :-1], (1, 0), 1), -1, None)
    rev = F.flip(xt[..., 1:], (-1,))
    rev = F.flip(F.cumprod(F.constant_pad_nd(rev, (1, 0), 1), -1, None), (-1,))
    return fwd * rev


def _prod_backward(grad, self, result, dim, keepdim):
    sizes = F.shape(self)
    if len(sizes) == 0:
        return grad
    if dim is None and not isinstance(self, Tensor) and np.count_nonzero(self == 0) > 1:
        # two zeros make every partial product 0: PyTorch returns zeros here (outside
        # create_graph), whatever inf or NaN the other entries hold
        return np.zeros(F.shape(grad)[:F.ndim(grad) - F.ndim(result)] + sizes,
                        np.result_type(grad, self))
    g = _restore(grad, sizes, None if dim is None else (dim,), keepdim)
    return g * F.conj(_prod_others(self, result, dim, keepdim))


def _prod_jvp(self_t, self, result, dim, keepdim):
    if F.ndim(self) == 0:
        return self_t
    t = self_t * _prod_others(self, result, dim, keepdim)
    return _sum_dims(t, None if dim is None else (dim,), keepdim, F.ndim(self))


# ============================================================ selection helpers (linear ops)
def _gather_keep(x, dim, indices, keepdim):
    """x.gather(dim, indices) (indices of a keepdim=``keepdim`` reduction), squeezed back."""
    if not keepdim:
        indices = np.expand_dims(indices, dim)
    r = F._gather_dim(x, dim, indices)
    return r if keepdim else F.squeeze_dims(r, (dim,))


def _select_backward(grad, indices, sizes, dim, keepdim):
    """The gradient of an op that picked ``indices`` along ``dim`` (max.dim, sort, topk)."""
    n = len(sizes)
    if n == 0:
        return grad
    return F.value_selecting_reduction_backward(grad, _neg(dim, n), _arr(indices), tuple(sizes),
                                                keepdim)


def _select_jvp(self_t, indices, dim, keepdim, n):
    """The tangent of the values an op picked at ``indices`` along ``dim`` of an ``n``-dim
    input (``self_t`` may have leading batch dims)."""
    if n == 0:
        return self_t
    return _gather_keep(self_t, _neg(dim, n), _arr(indices), keepdim)


# ============================================================ max / min / amax / amin
def _even_weights(self, result, dims, keepdim, nan_aware):
    """mask / count of the elements equal to the (restored) extreme value: ties share evenly."""
    x = _arr(self)
    res = _arr(result)
    r = _arr(_restore(res, x.shape, dims, keepdim))
    if nan_aware and x.dtype.kind not in "biu" and np.isnan(res).any():
        # a whole-tensor max/min that is NaN: the gradient goes to the NaNs (PyTorch's
        # evenly_distribute_backward); NaN == NaN is False, so x == r would find none
        mask = np.isnan(x)
    else:
        mask = x == r
    count = mask.sum(axis=None if dims is None else tuple(dims), keepdims=True)
    with np.errstate(all="ignore"):
        w = mask / count
    return w.astype(x.dtype, copy=False)


def _even_backward(grad, self, result, dims, keepdim, nan_aware=False):
    w = _even_weights(self, result, dims, keepdim, nan_aware)
    if nan_aware and F.ndim(grad) == 0:
        # max()/min() of the whole tensor: PyTorch fills grad / count in at the extreme
        # elements of zeros (masked_fill), so a NaN gradient does not spread to the others
        mask = w != 0
        return F.masked_fill_Tensor(_const(np.zeros(w.shape, w.dtype), grad),
                                    _const(mask, grad), grad / int(mask.sum()))
    return _restore(grad, w.shape, dims, keepdim) * _const(w, grad)


def _even_jvp(self_t, self, result, dims, keepdim, nan_aware=False, masked=False):
    w = _even_weights(self, result, dims, keepdim, nan_aware)
    if masked:
        # amax/amin: PyTorch's where(mask, t, 0): an inf or NaN tangent of an element that
        # is not the extreme does not reach the result (max() multiplies: NaN, as here)
        t = F.where(_const(w != 0, self_t), self_t * _const(w, self_t), 0.0)
        return _sum_dims(t, dims, keepdim, F.ndim(self))
    return _sum_dims(self_t * _const(w, self_t), dims, keepdim, F.ndim(self))


# ============================================================ logsumexp
def _logsumexp_vjp(grad, self, result, dim, keepdim):
    sizes = F.shape(self)
    return _restore(grad, sizes, dim, keepdim) * F.conj(
        F.exp(self - _restore(result, sizes, dim, keepdim)))


def _logsumexp_jvp(self_t, self, result, dim, keepdim):
    w = F.exp(self - _restore(result, F.shape(self), dim, keepdim))
    t = _sum_dims(self_t * w, dim, keepdim, F.ndim(self))
    if F.numel(F.shape(self)) == 0:
        # (PyTorch's tangent is sum(exp(x) * x_t) / sum(exp(x)): 0 / 0 = NaN over empty rows)
        return t / _sum_dims(F.exp(self), dim, keepdim, F.ndim(self))
    return t


# ============================================================ vector norm
def _vector_norm_unit(self, ord, dim, keepdim, result):
    """The VJP of the norm for a gradient of ones (d norm / d conj(self), doubled)."""
    sizes = F.shape(self)
    r = _restore(result, sizes, dim, keepdim)
    rd = _arr(r)
    if ord == 1:
        return _sgn(self)
    if ord == 2:
        # (the masked branch divides by 0: under double backward its gradient there is
        # 0 / 0 = NaN, as PyTorch's (self / norm).masked_fill_(norm == 0, 0) gives)
        return _masked_zero(self / r, rd == 0)
    if ord in (_INF, -_INF):
        xa = _abs(_arr(self))
        mask = (xa == rd) | np.isnan(xa)  # (PyTorch's: a NaN counts as the extreme)
        with np.errstate(all="ignore"):
            w = (mask / mask.sum(axis=dim, keepdims=True)).astype(xa.dtype, copy=False)
        return _sgn(self) * _const(w, self)
    return _norm_scaled(self, ord) * _norm_scale(r, ord)


def _norm_scaled(self, p):
    """The elementwise factor of a p-norm's derivative: x |x|^(p-2), 0 at x = 0."""
    ax = _abs(self)
    if p >= 2:
        return self * ax ** (p - 2)
    zero_x = _arr(self) == 0
    if p < 1 and zero_x.any():
        # (|x|^(p-1) is inf at 0: selected away, so its derivative there is 0 * inf = NaN
        # under create_graph, as PyTorch's masked_fill gives)
        return F.where(_const(zero_x, self), 0.0, _sgn(self) * ax ** (p - 1))
    return _sgn(self) * ax ** (p - 1)


def _norm_scale(r, p):
    """The norm's factor: r^(1-p), 0 where the norm is 0."""
    zero_r = _arr(r) == 0
    if zero_r.any():
        zc = _const(zero_r, r)
        return F.where(zc, 0.0, F.where(zc, 1.0, r) ** (1 - p))
    return r ** (1 - p)


def _masked_zero(value, mask):
    """``value`` with 0 where ``mask`` (an ndarray) is set: PyTorch's ``masked_fill_(mask,
    0)``.  On Tensors (a graph being built: create_graph) always the masked_fill node, as
    PyTorch's formulas make one whether or not any element is masked: the double backward's
    nodes, and so the order in which its engine sums the contributions to one gradient,
    are then PyTorch's (a different order left rounding residuals where PyTorch's sum of
    x / |x|'s terms is exactly 0: fuzz seeds 971435, 1072224)."""
    if isinstance(value, Tensor):
        return F.masked_fill_Scalar(value, Tensor._wrap(np.asarray(mask)), 0)
    if mask.any():
        return np.where(mask, 0, value).astype(value.dtype, copy=False)
    return value


def _zero_where_norm_is_zero(value, result):
    """0 where the norm is 0, whatever ``value`` is there (inf, NaN): PyTorch's
    ``masked_fill_(norm == 0, 0)``, applied after the gradient or tangent is in."""
    return _masked_zero(value, _arr(result) == 0)


def _norm_power(r, p):
    """r^(p-1), the divisor of a p > 1 norm's derivative (PyTorch divides by it, where
    multiplying by r^(1-p) can be 1 ulp off; at a zero norm the quotient is then masked)."""
    return r if p == 2 else r ** (p - 1)


def _vector_norm_vjp(grad, self, ord, dim, keepdim, result):
    if ord == 0:
        return None   # PyTorch: the 0-"norm" (a count) has no gradient
    sizes = F.shape(self)
    if ord > 1 and ord not in (2, _INF):
        # PyTorch's order for p > 1: grad / norm^(p-1), zero where the norm is 0, then the
        # elementwise factor (an infinite gradient at a zero norm gives 0, not 0 * inf)
        r = _restore(result, sizes, dim, keepdim)
        scale = _restore(grad, sizes, dim, keepdim) / _norm_power(r, ord)
        return _norm_scaled(self, ord) * _zero_where_norm_is_zero(scale, r)
    if ord < 1 and ord != -_INF:
        # PyTorch's order for p < 1: the elementwise factor times grad, then norm^(1-p)
        r = _restore(result, sizes, dim, keepdim)
        return (_norm_scaled(self, ord) * _restore(grad, sizes, dim, keepdim)) \
            * _norm_scale(r, ord)
    unit = _vector_norm_unit(self, ord, dim, keepdim, result)
    return _restore(grad, sizes, dim, keepdim) * unit


def _vector_norm_jvp(self_t, self, ord, dim, keepdim, result):
    if ord == 0:
        return F.zeros_like(result)
    if ord not in (1, _INF, -_INF):
        # PyTorch's order: the sum first, then the norm's factor (an inf norm times a zero
        # entry's 0 would be NaN); for p > 1 a division by norm^(p-1), then 0 where the
        # norm is 0, whatever the tangent (inf or NaN from an earlier op included)
        if ord > 2:
            # |x|^(p-2) Re(conj(x) t), the tangent taken first: x |x|^(p-2) overflows at
            # the largest values, and its inf times a zero tangent was NaN (PyTorch: 0;
            # fuzz seed 1231568)
            s = _sum_dims(_abs(self) ** (ord - 2) * F.real_if(F.conj(self) * self_t, True),
                          dim, keepdim, F.ndim(self))
        else:
            s = F.real_if(_sum_dims(F.conj(_norm_scaled(self, ord)) * self_t, dim, keepdim,
                                    F.ndim(self)), True)
        if ord > 1:
            return _zero_where_norm_is_zero(s / _norm_power(result, ord), result)
        return s * _norm_scale(result, ord)
    unit = _vector_norm_unit(self, ord, dim, keepdim, result)
    return F.real_if(_sum_dims(F.conj(unit) * self_t, dim, keepdim, F.ndim(self)), True)


# ============================================================ var / std
def _var_scaled(v, self, dim, correction):
    """(2 / dof) v (self - mean): var's derivative applied to ``v`` (a gradient, or a
    conjugated tangent), in PyTorch's order: ``v`` times the scalar first, the centred input
    last, so that 2 (self - mean) is never formed (it overflows near the largest finite
    values: a zero ``v`` then gave 0 * inf = NaN, PyTorch 0).

    As PyTorch's: the dof is not clamped here (a correction above the count gives a
    negative factor), and over all elements (``dim`` None, or a 0-d input) with dof <= 0
    the derivative is the constant where(self == mean, nan, inf), which has no derivative
    itself (graphgrad's (self - mean) * inf gave NaN in double backward)."""
    sizes = F.shape(self)
    dof = F.numel(sizes, dim) - correction
    if dof <= 0 and (dim is None or not sizes):
        x = _arr(self)
        return v * _const(np.where(x == _mean(x, dim, True), np.nan, np.inf).astype(
            np.empty(0, x.dtype).real.dtype), self)
    return (v * (2.0 / dof if dof else _INF)) * (self - _mean_keep(self, dim))


def _var_vjp(grad, self, dim, correction, keepdim):
    return _var_scaled(_restore(grad, F.shape(self), dim, keepdim), self, dim, correction)


def _var_jvp(self_t, self, dim, correction, keepdim):
    # Re sum(t conj(d var / d conj(x))) = Re sum(conj(conj(t) (2 / dof) (x - mean)))
    if F.is_complex(self_t):
        d = F.conj(_var_scaled(F.conj(self_t), self, dim, correction))
    else:
        d = _var_scaled(self_t, self, dim, correction)
    return F.real_if(_sum_dims(d, dim, keepdim, F.ndim(self)), True)


def _safe_half_inv(grad, result):
    """grad / (2 result), 0 where result == 0 (PyTorch's std rule). The untaken branch
    divides by 0 there, so under double backward its gradient is 0 / 0 = NaN, as
    PyTorch's (grad / (2 result)).masked_fill_(result == 0, 0) gives (seed 765507)."""
    return _masked_zero(grad / (2 * result), _arr(result) == 0)


# ============================================================ cumsum / cumprod
@half_in_float32
def _cumsum_vjp(grad, self_sym_sizes, dim):
    n = len(self_sym_sizes)
    if n == 0:
        return grad
    return _rev_cumsum(grad, _neg(dim, n))


def _cumprod_vjp(grad, self, result, dim):
    sizes = F.shape(self)
    n = len(sizes)
    if n == 0 or sizes[dim] <= 1:
        return grad
    d = _neg(dim, n)
    xd = _arr(self)
    if not (xd == 0).any():
        return _rev_cumsum(grad * F.conj(result), d) / F.conj(self)
    if not isinstance(self, Tensor) and not isinstance(grad, Tensor):
        return _cumprod_backward_np(grad, xd, _arr(result), d)
    # differentiable and exact: grad_k = sum_{i >= k} g_i conj(prod_{j<=i, j!=k} x_j)
    M = _others_matrix(_to_last(self, d), True)
    nn_ = sizes[dim]
    tri = np.triu(np.ones((nn_, nn_), dtype=bool))
    terms = F.where(tri, F.unsqueeze(_to_last(grad, d), -2) * F.conj(M), 0.0)
    return _to_last(_rsum(terms, (-1,)), d)


def _cumprod_jvp(self_t, self, result, dim):
    sizes = F.shape(self)
    n = len(sizes)
    if n == 0 or sizes[dim] <= 1:
        return self_t
    d = _neg(dim, n)
    general = result * _cumsum_poly(self_t / self, d)
    zeros = _arr(self) == 0
    if not zeros.any():
        return general
    # PyTorch's: from the first zero z on, the tangent is cumprod of x with x_z replaced by
    # its tangent (so later zeros and non-finite values keep PyTorch's NaN pattern)
    first = zeros & (np.cumsum(zeros, axis=d) == 1)
    after = np.cumsum(first, axis=d) > 0
    new = F.cumprod(F.where(_const(first, self), self_t, self), d, None)
    return F.where(_const(after, self), new, general)


# ============================================================ cummax / cummin
def _cumext_vjp(grad, result1, self_sym_sizes, dim):
    n = len(self_sym_sizes)
    if n == 0:
        return grad
    return F._scatter_add_dim(grad, _neg(dim, n), _arr(result1), tuple(self_sym_sizes))
