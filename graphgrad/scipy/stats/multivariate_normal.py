"""graphgrad.scipy.stats.multivariate_normal: ``logpdf`` and ``pdf`` over Tensors (via the
Cholesky factor of ``cov``; SciPy's for plain data)."""
from __future__ import annotations

import math

from ... import numpy as _gnp
from .._util import scipy_or_tensors

__all__ = ["logpdf", "pdf"]


@scipy_or_tensors("scipy.stats:multivariate_normal.logpdf")
def logpdf(x, mean=None, cov=1, allow_singular=False):
    """``x``: (..., d); ``mean``: (d,); ``cov``: a (d, d) positive-definite matrix."""
    x = _gnp.asarray(x)
    d = x.shape[-1] if x.ndim else 1
    cov = _gnp.asarray(cov)
    if cov.ndim == 0:
        cov = _gnp.eye(d) * cov
    diff = x if mean is None else _gnp.subtract(x, mean)
    L = _gnp.linalg.cholesky(cov)
    z = _gnp.linalg.solve(L, _gnp.reshape(diff, (-1, d)).T)   # (d, n)
    maha = _gnp.sum(z * z, axis=0)
    logdet = 2.0 * _gnp.sum(_gnp.log(_gnp.diagonal(L)))
    out = -0.5 * (maha + logdet + d * math.log(2 * math.pi))
    return _gnp.reshape(out, tuple(diff.shape[:-1]))


@scipy_or_tensors("scipy.stats:multivariate_normal.pdf")
def pdf(x, mean=None, cov=1, allow_singular=False):
    return _gnp.exp(logpdf(x, mean, cov, allow_singular))
