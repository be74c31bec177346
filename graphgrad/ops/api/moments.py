"""``var_mean`` / ``std_mean``: both moments from one op with two outputs, as PyTorch's
``VarMeanBackward0`` / ``StdMeanBackward0`` (one node; a plain tuple of two tensors).

The rules (graphgrad/ops/derivatives/moments.py) are var's/std's plus mean's, summed over the two
outputs' gradients (a missing one counts as zeros).
"""
from __future__ import annotations

from ..dispatch import dispatch
from .reductions import _all_none, _var_args
from ..registry import export
from ..derivatives.moments import STD_MEAN, VAR_MEAN


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


__all__ = ["var_mean", "std_mean"]
