"""The table, moments family: var_mean / std_mean: one op with two outputs.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/moments.py, public functions in ops/api/moments.py.
"""
from __future__ import annotations

from .. import formulas as F
from ._reduction_rules import _safe_half_inv, _sum_dims, _var_jvp, _var_vjp
from ..registry import defop
from ..kernels.moments import _kernel


# ====================================================== var_mean / std_mean: one node, two outputs
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
