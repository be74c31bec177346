"""``var_mean`` / ``std_mean``: both moments from one op with two outputs, as PyTorch's
``VarMeanBackward0`` / ``StdMeanBackward0`` (one node; a plain tuple of two tensors).

The rules are var's/std's (graphgrad/ops/api/reductions.py) plus mean's, summed over the two
outputs' gradients (a missing one counts as zeros).
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..dispatch import dispatch
from ..._core.opmath import half_in_float32
from .reductions import (_all_none, _dims, _mean, _safe_half_inv, _sum_dims, _var_args, _var_jvp,
                         _var_kernel, _var_vjp)
from ..registry import defop, export


def _kernel(sqrt):
    @half_in_float32
    def moments(a, dim, correction, keepdim):
        v = _var_kernel(a, dim, correction, keepdim)
        m = _mean(a, dim, keepdim)
        return (np.sqrt(v) if sqrt else v), m
    return moments


def _mean_vjp(g, self, dim, keepdim):
    sizes = F.shape(self)
    return F.div_count(F.expand_reduced(g, sizes, dim, keepdim), F.numel(sizes, dim))


def _mean_jvp(self_t, self, dim, keepdim):
    return _sum_dims(self_t, dim, keepdim, F.ndim(self)) / F.numel(F.shape(self), dim)


VAR_MEAN = defop(
    "var_mean.correction(self, *, dim, correction, keepdim)", _kernel(False), "VarMeanBackward0",
    n_outputs=2,
    self=lambda grads, self, dim, correction, keepdim:
        _var_vjp(grads[0], self, dim, correction, keepdim) +
        _mean_vjp(grads[1], self, dim, keepdim),
    jvp=lambda self_t, self, dim, correction, keepdim: (
        _var_jvp(self_t, self, dim, correction, keepdim), _mean_jvp(self_t, self, dim, keepdim)),
    batched_jvp=True)
STD_MEAN = defop(
    "std_mean.correction(self, *, dim, correction, keepdim)", _kernel(True), "StdMeanBackward0",
    n_outputs=2,
    self=lambda grads, self, result, dim, correction, keepdim:
        _var_vjp(_safe_half_inv(grads[0], result), self, dim, correction, keepdim) +
        _mean_vjp(grads[1], self, dim, keepdim),
    jvp=lambda self_t, self, result, dim, correction, keepdim: (
        _safe_half_inv(_var_jvp(self_t, self, dim, correction, keepdim), result),
        _mean_jvp(self_t, self, dim, keepdim)),
    batched_jvp=True)


@export(method=False)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """``(var, mean)`` over ``dim`` with ``correction`` (Bessel's by default), one node."""
    dims, c = _var_args("var_mean", input, dim, unbiased, keepdim, correction)
    return dispatch(VAR_MEAN, input, _all_none(dim, dims), c, bool(keepdim))


@export(method=False)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """``(std, mean)`` over ``dim``; std's gradient is 0 (not NaN) where std is 0."""
    dims, c = _var_args("std_mean", input, dim, unbiased, keepdim, correction)
    return dispatch(STD_MEAN, input, _all_none(dim, dims), c, bool(keepdim))


__all__ = ["var_mean", "std_mean", "_dims"]
