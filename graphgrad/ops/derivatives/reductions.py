"""The table, reductions family: sum/mean/prod, max/min, norms, var/std, scans, sorting.

Only entries (vocabulary: ops/derivatives/__init__.py); their rule helpers in
ops/derivatives/_reduction_rules.py, kernels in ops/kernels/reductions.py, public functions in
ops/api/reductions.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..._core.opmath import half_in_float32
from ..registry import LINEAR, defop
from ..kernels.reductions import (
    _amax_kernel, _argext_kernel, _argsort_np, _cumext_kernel, _extreme_dim_kernel,
    _extreme_kernel, _gather_kernel, _sum_all, _logical_kernel, _logsumexp_kernel, _mean,
    _mean_kernel, _prod_dim_kernel, _prod_kernel, _scan_kernel, _scatter_add_kernel,
    _sort_kernel, _sum_as_is, _sum_kernel, _topk_kernel, _var_std_kernel, _vector_norm_kernel,
    _vsrb_kernel)
from ._reduction_rules import (
    _cumext_vjp, _cumprod_jvp, _cumprod_vjp, _cumsum_vjp, _even_backward, _even_jvp,
    _gather_keep, _logsumexp_jvp, _logsumexp_vjp, _neg, _prod_backward, _prod_jvp,
    _reduce_batched, _safe_half_inv, _select_backward, _select_jvp, _var_jvp, _var_vjp,
    _vector_norm_jvp, _vector_norm_vjp)


# ============================================================ sum / mean
SUM = defop("sum(self)", _sum_all,
            "SumBackward0",
            self=lambda grad, self_sym_sizes: F.expand_reduced(grad, self_sym_sizes, None, False),
            jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes:
                _reduce_batched(SUM_DIM, self_t, self_sym_sizes))
SUM_DTYPE = defop("sum.dtype(self, *, dtype)",
                  lambda a, dtype: _sum_as_is(a.astype(dtype.np, copy=False), None, False),
                  "SumBackward0",
                  self=lambda grad, self_sym_sizes:
                      F.expand_reduced(grad, self_sym_sizes, None, False),
                  jvp=LINEAR,
                  batched_jvp=lambda self_t, self_sym_sizes, dtype:
                      _reduce_batched(SUM_DIM, self_t, self_sym_sizes, dtype=dtype))
SUM_DIM = defop("sum.dim_IntList(self, *, dim, keepdim, dtype)", _sum_kernel, "SumBackward1",
                self=lambda grad, self_sym_sizes, dim, keepdim:
                    F.expand_reduced(grad, self_sym_sizes, dim, keepdim),
                jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes, dim, keepdim, dtype:
                    _reduce_batched(SUM_DIM, self_t, self_sym_sizes, dim, keepdim, dtype))
MEAN = defop("mean(self)", _mean, "MeanBackward0",
             self=lambda grad, self_sym_sizes:
                 F.div_count(F.expand_reduced(grad, self_sym_sizes, None, False),
                             F.numel(self_sym_sizes)),
             jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes:
                 _reduce_batched(MEAN_DIM, self_t, self_sym_sizes))
MEAN_DTYPE = defop("mean.dtype(self, *, dtype)",
                   lambda a, dtype: _mean(a.astype(dtype.np, copy=False)),
                   "MeanBackward0",
                   self=lambda grad, self_sym_sizes:
                       F.div_count(F.expand_reduced(grad, self_sym_sizes, None, False),
                                   F.numel(self_sym_sizes)),
                   jvp=LINEAR,
                   batched_jvp=lambda self_t, self_sym_sizes, dtype:
                       _reduce_batched(MEAN_DIM, self_t, self_sym_sizes, dtype=dtype))
MEAN_DIM = defop("mean.dim(self, *, dim, keepdim, dtype)", _mean_kernel, "MeanBackward1",
                 self=lambda grad, self_sym_sizes, dim, keepdim:
                     F.div_count(F.expand_reduced(grad, self_sym_sizes, dim, keepdim),
                                 F.numel(self_sym_sizes, dim)),
                 jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes, dim, keepdim, dtype:
                     _reduce_batched(MEAN_DIM, self_t, self_sym_sizes, dim, keepdim, dtype))


# ============================================================ prod


PROD = defop("prod(self, *, dtype)", _prod_kernel, "ProdBackward0",
             self=lambda grad, self, result: _prod_backward(grad, self, result, None, False),
             jvp=lambda self_t, self, result: _prod_jvp(self_t, self, result, None, False),
             batched_jvp=True)
PROD_DIM = defop("prod.dim_int(self, *, dim, keepdim, dtype)", _prod_dim_kernel, "ProdBackward1",
                 self=lambda grad, self, result, dim, keepdim:
                     _prod_backward(grad, self, result, dim, keepdim),
                 jvp=lambda self_t, self, result, dim, keepdim:
                     _prod_jvp(self_t, self, result, dim, keepdim), batched_jvp=True)


# ============================================================ selection helpers (linear ops)


# dims are negative (counted from the end) in these three, so batch dims pass through
VSRB = defop("value_selecting_reduction_backward(grad, *, dim, indices, sizes, keepdim)",
             _vsrb_kernel, "ScatterBackward0",
             grad=lambda grad, dim, indices, keepdim: _gather_keep(grad, dim, indices, keepdim),
             jvp=LINEAR, batched_jvp=True)
GATHER_DIM = defop("_gather_dim(self, *, dim, index)", _gather_kernel, "GatherBackward0",
                   self=lambda grad, self_sym_sizes, dim, index:
                       F._scatter_add_dim(grad, dim, index, tuple(self_sym_sizes)),
                   jvp=LINEAR, batched_jvp=True)
SCATTER_ADD_DIM = defop("_scatter_add_dim(grad, *, dim, index, sizes)", _scatter_add_kernel,
                        "ScatterAddBackward0",
                        grad=lambda grad, dim, index: F._gather_dim(grad, dim, index),
                        jvp=LINEAR, batched_jvp=True)
FLIP_DIM = defop("_flip_dim(self, *, dim)", lambda a, dim: np.flip(a, dim).copy(),
                 "FlipBackward0", self=lambda grad, dim: F._flip_dim(grad, dim), jvp=LINEAR,
                 batched_jvp=lambda self_t, self_sym_sizes, dim:
                     F._flip_dim(self_t, _neg(dim, len(self_sym_sizes))))


# ============================================================ max / min / amax / amin


MAX = defop("max(self)", _extreme_kernel(np.max), "MaxBackward1",
            self=lambda grad, self, result: _even_backward(grad, self, result, None, False, True),
            jvp=lambda self_t, self, result: _even_jvp(self_t, self, result, None, False),
            batched_jvp=True)
MIN = defop("min(self)", _extreme_kernel(np.min), "MinBackward1",
            self=lambda grad, self, result: _even_backward(grad, self, result, None, False, True),
            jvp=lambda self_t, self, result: _even_jvp(self_t, self, result, None, False),
            batched_jvp=True)
MAX_DIM = defop("max.dim(self, *, dim, keepdim)", _extreme_dim_kernel(np.argmax), "MaxBackward0",
                n_outputs=2, nondiff_outputs=(1,),
                self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                    _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                    (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                batched_jvp=True)
MIN_DIM = defop("min.dim(self, *, dim, keepdim)", _extreme_dim_kernel(np.argmin), "MinBackward0",
                n_outputs=2, nondiff_outputs=(1,),
                self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                    _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                    (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                batched_jvp=True)
AMAX = defop("amax(self, *, dim, keepdim)", _amax_kernel(np.amax), "AmaxBackward0",
             self=lambda grad, self, result, dim, keepdim:
                 _even_backward(grad, self, result, dim, keepdim),
             jvp=lambda self_t, self, result, dim, keepdim:
                 _even_jvp(self_t, self, result, dim, keepdim, masked=True), batched_jvp=True)
AMIN = defop("amin(self, *, dim, keepdim)", _amax_kernel(np.amin), "AminBackward0",
             self=lambda grad, self, result, dim, keepdim:
                 _even_backward(grad, self, result, dim, keepdim),
             jvp=lambda self_t, self, result, dim, keepdim:
                 _even_jvp(self_t, self, result, dim, keepdim, masked=True), batched_jvp=True)


ARGMAX = defop("argmax(self, *, dim, keepdim)", _argext_kernel(np.argmax))
ARGMIN = defop("argmin(self, *, dim, keepdim)", _argext_kernel(np.argmin))


# ============================================================ logsumexp


LOGSUMEXP = defop("logsumexp(self, *, dim, keepdim)", _logsumexp_kernel, "LogsumexpBackward0",
                  self=_logsumexp_vjp, jvp=_logsumexp_jvp, batched_jvp=True)


# ============================================================ vector norm


VECTOR_NORM = defop("linalg_vector_norm(self, *, ord, dim, keepdim, dtype)", _vector_norm_kernel,
                    "LinalgVectorNormBackward0", self=_vector_norm_vjp, jvp=_vector_norm_jvp,
                    batched_jvp=True)


# ============================================================ var / std


# (bfloat16: a fractional correction would make the division float32; PyTorch accumulates
# in float32 and rounds once)
VAR = defop("var.correction(self, *, dim, correction, keepdim)",
            half_in_float32(lambda a, dim, correction, keepdim:
                                _var_std_kernel(a, dim, correction, keepdim)),
            "VarBackward0", self=_var_vjp, jvp=_var_jvp, batched_jvp=True)
STD = defop("std.correction(self, *, dim, correction, keepdim)",
            half_in_float32(lambda a, dim, correction, keepdim:
                                _var_std_kernel(a, dim, correction, keepdim, True)),
            "StdBackward0",
            self=lambda grad, self, result, dim, correction, keepdim:
                _var_vjp(_safe_half_inv(grad, result), self, dim, correction, keepdim),
            jvp=lambda self_t, self, result, dim, correction, keepdim:
                _safe_half_inv(_var_jvp(self_t, self, dim, correction, keepdim), result),
            batched_jvp=True)


# ============================================================ cumsum / cumprod


CUMSUM = defop("cumsum(self, *, dim, dtype)", _scan_kernel(np.cumsum), "CumsumBackward0",
               self=_cumsum_vjp, jvp=LINEAR,
               batched_jvp=lambda self_t, self_sym_sizes, dim, dtype:
                   F.cumsum(self_t, dim + F.lead(self_t, len(self_sym_sizes)) if dim >= 0
                            else dim, dtype)
                   if self_sym_sizes else F.clone(self_t))
CUMPROD = defop("cumprod(self, *, dim, dtype)", _scan_kernel(np.cumprod), "CumprodBackward0",
                self=_cumprod_vjp, jvp=_cumprod_jvp, batched_jvp=True)


# ============================================================ cummax / cummin


CUMMAX = defop("cummax(self, *, dim)", _cumext_kernel(np.maximum.accumulate), "CummaxBackward0",
               n_outputs=2, nondiff_outputs=(1,), self=_cumext_vjp,
               jvp=lambda self_t, self_sym_sizes, result1, dim:
                   (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
               batched_jvp=True)
CUMMIN = defop("cummin(self, *, dim)", _cumext_kernel(np.minimum.accumulate), "CumminBackward0",
               n_outputs=2, nondiff_outputs=(1,), self=_cumext_vjp,
               jvp=lambda self_t, self_sym_sizes, result1, dim:
                   (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
               batched_jvp=True)


# ============================================================ sort / topk / argsort
SORT = defop("sort(self, *, stable, dim, descending)", _sort_kernel, "SortBackward0",
             n_outputs=2, nondiff_outputs=(1,),
             self=lambda grad, result1, self_sym_sizes, dim:
                 _select_backward(grad, result1, self_sym_sizes, dim, True),
             jvp=lambda self_t, self_sym_sizes, result1, dim:
                 (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
             batched_jvp=True)
TOPK = defop("topk(self, *, k, dim, largest, sorted)", _topk_kernel, "TopkBackward0",
             n_outputs=2, nondiff_outputs=(1,),
             self=lambda grad, result1, self_sym_sizes, dim:
                 _select_backward(grad, result1, self_sym_sizes, dim, True),
             jvp=lambda self_t, self_sym_sizes, result1, dim:
                 (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
             batched_jvp=True)
ARGSORT = defop("argsort.stable(self, *, stable, dim, descending)",
                lambda a, stable, dim, descending: np.zeros((), np.int64) if a.ndim == 0
                else _argsort_np(a, dim, descending).astype(np.int64, copy=False))


# ============================================================ all / any
ALL = defop("all.dims(self, *, dim, keepdim)", _logical_kernel(np.all))
ANY = defop("any.dims(self, *, dim, keepdim)", _logical_kernel(np.any))
