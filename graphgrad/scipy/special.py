"""graphgrad.scipy.special: ``logsumexp``, ``expit``, ``logit``, ``erf``, ``erfc``,
``gammaln``, ``digamma``/``psi``, ``xlogy`` over Tensors (SciPy's for plain data)."""
from __future__ import annotations

import numpy as _np

from ..numpy import _core
from ..numpy._reductions import sum as _sum
from ..numpy._ufuncs import exp as _exp, log as _log
from ..ops.api import (
    comparison as _api_comparison, pointwise as _api_pointwise,
    pointwise_binary as _api_pointwise_binary, pointwise_unary as _api_pointwise_unary,
    reductions as _api_reductions)
from ._util import scipy_or_tensors

__all__ = ["logsumexp", "expit", "logit", "erf", "erfc", "gammaln", "digamma", "psi", "xlogy"]


@scipy_or_tensors("scipy.special:logsumexp")
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``b`` (weights) must be positive on Tensors; ``return_sign`` is SciPy-only."""
    if return_sign:
        raise NotImplementedError("graphgrad.scipy.special.logsumexp: return_sign=True is not "
                                  "supported on graphgrad Tensors")
    t = _core.tensor(a)
    t = _core.tensor(t, _core.result_dtype(_np.exp, t))
    if b is not None:
        t = t + _log(_core.tensor(b, t._data.dtype))
    dims = _core.axes(axis, t.ndim)
    if not dims:
        return t.clone()
    # (a max shift that carries no gradient; exact where the max is -inf or +inf too)
    m = _api_reductions.amax(t.detach(), dims, keepdim=True)
    m = _api_comparison.where(_api_comparison.isfinite(m), m, 0.0)
    out = _log(_sum(_exp(t - m), axis=dims, keepdims=True)) + m
    return out if keepdims else out.reshape([s for i, s in enumerate(out.shape) if i not in dims])


def _unary(name, gg, scipy_name=None):
    @scipy_or_tensors(f"scipy.special:{scipy_name or name}")
    def fn(x):
        t = _core.tensor(x)
        return gg(_core.tensor(t, _core.result_dtype(_np.exp, t)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"SciPy's ``special.{scipy_name or name}``; differentiable on Tensors."
    return fn


expit = _unary("expit", _api_pointwise.sigmoid)
logit = _unary("logit", _api_pointwise_unary.logit)
erf = _unary("erf", _api_pointwise_unary.erf)
erfc = _unary("erfc", _api_pointwise_unary.erfc)
gammaln = _unary("gammaln", _api_pointwise_unary.lgamma)
digamma = _unary("digamma", _api_pointwise_unary.digamma)
psi = _unary("psi", _api_pointwise_unary.digamma)


@scipy_or_tensors("scipy.special:xlogy")
def xlogy(x, y):
    dt, (a, b) = _core.cast_args(lambda p, q: _np.multiply(p, _np.log(q)), x, y,
                                 key="xlogy")
    return _api_pointwise_binary.xlogy(a, b)
