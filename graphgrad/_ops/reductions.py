"""Reductions: table entries and public functions (sum, mean; more in the op-library issue)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap_dim
from . import formulas as F
from .dispatch import dispatch, unary
from .registry import LINEAR, defop, export


def _sum_kernel(a, dim, keepdim, dtype):
    r = a.sum(axis=dim, keepdims=keepdim, dtype=None if dtype is None else dtype.np)
    return r


def _mean_kernel(a, dim, keepdim, dtype):
    return a.mean(axis=dim, keepdims=keepdim, dtype=None if dtype is None else dtype.np)


def _int_promote(a):
    return a.astype(np.int64) if a.dtype.kind in "bui" and a.dtype != np.int64 else a


SUM = defop("sum(self)", lambda a: _int_promote(a).sum(), "SumBackward0",
            self=lambda grad, self_sym_sizes: F.expand_reduced(grad, self_sym_sizes, None, False),
            jvp=LINEAR)
SUM_DIM = defop("sum.dim_IntList(self, *, dim, keepdim, dtype)",
                lambda a, dim, keepdim, dtype: _sum_kernel(
                    _int_promote(a) if dtype is None else a, dim, keepdim, dtype),
                "SumBackward1",
                self=lambda grad, self_sym_sizes, dim, keepdim:
                    F.expand_reduced(grad, self_sym_sizes, dim, keepdim),
                jvp=LINEAR)
MEAN = defop("mean(self)", lambda a: a.mean(), "MeanBackward0",
             self=lambda grad, self_sym_sizes:
                 F.expand_reduced(grad, self_sym_sizes, None, False) / F.numel(self_sym_sizes),
             jvp=LINEAR)
MEAN_DIM = defop("mean.dim(self, *, dim, keepdim, dtype)", _mean_kernel, "MeanBackward1",
                 self=lambda grad, self_sym_sizes, dim, keepdim:
                     F.expand_reduced(grad, self_sym_sizes, dim, keepdim)
                     / F.numel(self_sym_sizes, dim),
                 jvp=LINEAR)


def _dims(dim, nd):
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted(_wrap_dim(d, nd) for d in dim)) if nd else ()
        if len(set(dims)) != len(dims):
            raise RuntimeError("dim appears multiple times in the list of dims")
        return dims
    return (_wrap_dim(dim, nd),) if nd else ()


@export()
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0 and False):
        if dtype is not None:
            input = input.to(dtype)
        return unary(SUM, input)
    from .._dtype import to_dtype
    return dispatch(SUM_DIM, input, _dims(dim, input._data.ndim), bool(keepdim),
                    to_dtype(dtype) if dtype is not None else None)


@export()
def mean(input, dim=None, keepdim=False, *, dtype=None):
    from .._dtype import to_dtype
    d = input._data.dtype
    if d.kind not in "fcV" and dtype is None:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype.name.capitalize()}")
    if dim is None:
        if dtype is not None:
            input = input.to(dtype)
        return unary(MEAN, input)
    return dispatch(MEAN_DIM, input, _dims(dim, input._data.ndim), bool(keepdim),
                    to_dtype(dtype) if dtype is not None else None)
