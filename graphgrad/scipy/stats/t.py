"""graphgrad.scipy.stats.t: ``logpdf`` and ``pdf`` of Student's t distribution over
Tensors, differentiable in ``x``, ``df``, ``loc`` and ``scale`` (SciPy's for plain
data)."""
from __future__ import annotations

import math

from ... import numpy as _gnp
from ..special import gammaln as _gammaln
from .._util import scipy_or_tensors

__all__ = ["logpdf", "pdf"]


@scipy_or_tensors("scipy.stats:t.logpdf")
def logpdf(x, df, loc=0.0, scale=1.0):
    z = _gnp.divide(_gnp.subtract(x, loc), scale)
    half = _gnp.multiply(_gnp.add(df, 1.0), 0.5)
    return (_gammaln(half) - _gammaln(_gnp.multiply(df, 0.5))
            - 0.5 * _gnp.log(_gnp.multiply(df, math.pi)) - _gnp.log(scale)
            - half * _gnp.log1p(z * z / df))


@scipy_or_tensors("scipy.stats:t.pdf")
def pdf(x, df, loc=0.0, scale=1.0):
    return _gnp.exp(logpdf(x, df, loc, scale))
