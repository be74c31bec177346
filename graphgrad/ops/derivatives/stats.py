"""The table, statistics family: nansum, aminmax, kthvalue, mode, logcumsumexp, dist, renorm.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/stats.py, public functions in ops/api/stats.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ._reduction_rules import (_arr, _const, _even_backward, _even_jvp, _neg,
                               _select_backward, _select_jvp, _sum_dims, _vector_norm_jvp,
                               _vector_norm_vjp)
from ..registry import ELEMENTWISE, defop
from ..._core.opmath import half_in_float32
from ..kernels.stats import (_isnan, _aminmax_kernel, _pdist_backward_kernel, _pdist_kernel, _dist_kernel, _kthvalue_kernel,
                             _logcumsumexp_kernel, _mode_kernel, _nansum_kernel, _renorm_kernel)
from ..kernels.unique import _unique2_kernel, _unique_consecutive_kernel, _unique_dim_kernel


# ============================================================ nansum
def _nan_mask(self, like):
    """1 where ``self`` is not NaN (PyTorch's ``self.isnan().logical_not()``), as a constant."""
    x = _arr(self)
    return _const(~_isnan(x), like)


def _nansum_vjp(grad, self, dim, keepdim):
    return F.expand_reduced(grad, F.shape(self), dim, keepdim) * _nan_mask(self, grad)


def _nansum_jvp(self_t, self, dim, keepdim, dtype):
    t = F.where(_const(_isnan(_arr(self)), self_t), 0.0, self_t)
    r = _sum_dims(t, dim, keepdim, F.ndim(self))
    return r if dtype is None else F.cast(r, dtype.np)


NANSUM = defop("nansum(self, *, dim, keepdim, dtype)", _nansum_kernel, "NansumBackward0",
               self=_nansum_vjp, jvp=_nansum_jvp, batched_jvp=True)


# ============================================================ aminmax
def _aminmax_vjp(grads, self, result, result1, dim, keepdim):
    g_min, g_max = grads
    out = None
    for g, r in ((g_min, result), (g_max, result1)):
        if g is None:
            continue
        term = _even_backward(g, self, r, dim, keepdim)
        out = term if out is None else out + term
    return out


AMINMAX = defop("aminmax(self, *, dim, keepdim)", _aminmax_kernel, "AminmaxBackward0",
                n_outputs=2,
                self=_aminmax_vjp,
                jvp=lambda self_t, self, result, result1, dim, keepdim:
                    (_even_jvp(self_t, self, result, dim, keepdim, masked=True),
                     _even_jvp(self_t, self, result1, dim, keepdim, masked=True)),
                batched_jvp=True)


# ============================================================ kthvalue / mode
def _select_op(sig, kernel, node):
    return defop(sig, kernel, node, n_outputs=2, nondiff_outputs=(1,),
                 self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                     _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                 jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                     (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                 batched_jvp=True)


KTHVALUE = _select_op("kthvalue(self, *, k, dim, keepdim)", _kthvalue_kernel, "KthvalueBackward0")
MODE = _select_op("mode(self, *, dim, keepdim)", _mode_kernel, "ModeBackward0")


# ============================================================ logcumsumexp
def _rev_logcumsumexp(x, d):
    return F._flip_dim(F.logcumsumexp(F._flip_dim(x, d), d), d)


def _logcumsumexp_vjp(grad, self, result, dim):
    n = F.ndim(self)
    if n == 0:
        return grad
    d = _neg(dim, n)
    if F.is_complex(self):
        # d out_j / d x_i = exp(x_i - out_j) (i <= j): grad_i = sum_j>=i grad_j conj(...)
        return _flip_cumsum(grad * F.conj(F.exp(-result)), d) * F.conj(F.exp(self))
    # PyTorch's stable form: the positive and negative parts of grad in log space
    g = _arr(grad)
    lo = np.finfo(g.dtype).min
    la = F.log(F.abs(grad))
    pos = F.where(_const(g > 0, grad), la, lo)
    neg = F.where(_const(g < 0, grad), la, lo)
    return F.exp(_rev_logcumsumexp(pos - result, d) + self) \
        - F.exp(_rev_logcumsumexp(neg - result, d) + self)


def _flip_cumsum(x, d):
    return F._flip_dim(F.cumsum(F._flip_dim(x, d), d, None), d)


def _logcumsumexp_jvp(self_t, self, result, dim):
    n = F.ndim(self)
    if n == 0:
        return self_t
    d = _neg(dim, n)
    x = _arr(self)
    if x.dtype.kind != "c" and not F.is_complex(self_t):
        # sum_{i<=j} t_i exp(x_i - out_j), the positive and negative parts of t in log space
        # (PyTorch's cumsum(t e) / (cumsum(e) + 1e-13), e = exp(x - max), loses the early
        # terms when exp(x_i - max) is below ~1e-13: docs/differences.md)
        t = _arr(self_t)
        lo = np.finfo(x.dtype).min
        la = F.log(F.abs(self_t))
        pos = F.where(_const(t > 0, self_t), la, lo)
        neg = F.where(_const(t < 0, self_t), la, lo)
        return F.exp(F.logcumsumexp(pos + self, d) - result) \
            - F.exp(F.logcumsumexp(neg + self, d) - result)
    m = (x.real if x.dtype.kind == "c" else x).max(axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0).astype(m.dtype)
    e = F.exp(self - _const(m, self))
    return F.cumsum(e * self_t, d, None) / (F.cumsum(e, d, None) + 1e-13)


LOGCUMSUMEXP = defop("logcumsumexp(self, *, dim)", _logcumsumexp_kernel,
                     "LogcumsumexpBackward0", self=_logcumsumexp_vjp, jvp=_logcumsumexp_jvp,
                     batched_jvp=True)


# ============================================================ dist
def _out_nd(self, other):
    return len(np.broadcast_shapes(F.shape(self), F.shape(other)))


def _dist_self(grad, self, other, p, result):
    g = _vector_norm_vjp(grad, self - other, p, None, False, result)
    return None if g is None else F.sum_to(g, F.shape(self), _out_nd(self, other))


def _dist_other(grad, self, other, p, result):
    g = _vector_norm_vjp(grad, self - other, p, None, False, result)
    return None if g is None else F.sum_to(-g, F.shape(other), _out_nd(self, other))


def _dist_batched_jvp(self_t, other_t, self, other, p, result):
    n = _out_nd(self, other)
    st = F.pad_batched(self_t, F.ndim(self), n)
    ot = F.pad_batched(other_t, F.ndim(other), n)
    return _vector_norm_jvp(st - ot, self - other, p, None, False, result)


DIST = defop("dist(self, other, *, p)", _dist_kernel, "DistBackward0", promote=True,
             self=_dist_self, other=_dist_other,
             jvp=lambda self_t, other_t, self, other, p, result:
                 _vector_norm_jvp(self_t - other_t, self - other, p, None, False, result),
             batched_jvp=_dist_batched_jvp)


# ============================================================ renorm
def _renorm_norm(self, p, dim):
    n = F.ndim(self)
    dims = tuple(i for i in range(n) if i != dim)
    return dims, F.linalg_vector_norm(self, p, dims, True, None)


def _renorm_vjp(grad, self, p, dim, maxnorm):
    n = F.ndim(self)
    dims, norm = _renorm_norm(self, p, dim)
    go = F.conj(self) * grad
    if F.is_complex(go):
        go = F.real(go)
    go = _sum_dims(go, dims, True, n)
    nb = _vector_norm_vjp(go, self, p, dims, True, norm)
    invnorm = 1.0 / (norm + 1e-7)
    factor = invnorm * maxnorm
    return F.where(_const(_arr(norm) > maxnorm, grad), factor * grad - factor * invnorm * nb,
                   grad)


def _renorm_jvp(self_t, self, p, dim, maxnorm):
    dims, norm = _renorm_norm(self, p, dim)
    dn = _vector_norm_jvp(self_t, self, p, dims, True, norm)
    invnorm = 1.0 / (norm + 1e-7)
    factor = invnorm * maxnorm
    return F.where(_const(_arr(norm) > maxnorm, self_t),
                   factor * self_t - factor * invnorm * dn * self, self_t)


RENORM = defop("renorm(self, *, p, dim, maxnorm)", _renorm_kernel, "RenormBackward0",
               self=_renorm_vjp, jvp=_renorm_jvp, batched_jvp=True)


# ============================================================ unique (no derivative in PyTorch)
def _no_derivative(name):
    def vjp(grad):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return vjp


UNIQUE2 = defop("_unique2(self, *, sorted, return_inverse, return_counts)", _unique2_kernel,
                "Unique2Backward0", n_outputs=3, nondiff_outputs=(1, 2),
                self=_no_derivative("_unique2"))
UNIQUE_DIM = defop("unique_dim(self, *, dim, sorted, return_inverse, return_counts)",
                   _unique_dim_kernel, "UniqueDimBackward0", n_outputs=3,
                   nondiff_outputs=(1, 2), self=_no_derivative("unique_dim"))
UNIQUE_CONSECUTIVE = defop("unique_consecutive(self, *, return_inverse, return_counts, dim)",
                           _unique_consecutive_kernel, "UniqueConsecutiveBackward0",
                           n_outputs=3, nondiff_outputs=(1, 2),
                           self=_no_derivative("unique_consecutive"))


# ============================================================ div.Scalar (trapezoid's ``t / 2.``)
# PyTorch's C++ ``tensor / 2.`` is div.Scalar, DivBackward1 (a Python ``t / 2.`` is div.Tensor)
DIV_SCALAR = defop("div.Scalar(self, *, other)", half_in_float32(np.divide), "DivBackward1",
                   self=lambda grad, other: grad / other, jvp=ELEMENTWISE)


# ============================================================ pdist (first derivative only, as PyTorch)
def _pdist_unit(grad, diff, p, pdist):
    return _vector_norm_vjp(grad, diff, p, (1,), False, pdist)


PDIST_BACKWARD = defop("_pdist_backward(grad, self, pdist, *, p)",
                       lambda grad, a, pdist, p: _pdist_backward_kernel(grad, a, pdist, p,
                                                                        _pdist_unit),
                       "PdistBackwardBackward0",
                       grad=_no_derivative("_pdist_backward"),
                       self=_no_derivative("_pdist_backward"),
                       pdist=_no_derivative("_pdist_backward"))
PDIST = defop("_pdist_forward(self, *, p)", _pdist_kernel, "PdistBackward0",
              self=lambda grad, self, p, result: F._pdist_backward(grad, self, result, p))
