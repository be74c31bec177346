"""graphgrad.scipy.stats.norm: ``logpdf``, ``pdf``, ``cdf``, ``logcdf`` of the normal
distribution over Tensors (SciPy's for plain data)."""
from __future__ import annotations

import math

from ... import numpy as _gnp
from ..special import erfc as _erfc
from .._util import scipy_or_tensors

__all__ = ["logpdf", "pdf", "cdf", "logcdf"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


@scipy_or_tensors("scipy.stats:norm.logpdf")
def logpdf(x, loc=0.0, scale=1.0):
    z = _gnp.divide(_gnp.subtract(x, loc), scale)
    return -0.5 * z * z - _gnp.log(scale) - _LOG_SQRT_2PI


@scipy_or_tensors("scipy.stats:norm.pdf")
def pdf(x, loc=0.0, scale=1.0):
    return _gnp.exp(logpdf(x, loc, scale))


@scipy_or_tensors("scipy.stats:norm.cdf")
def cdf(x, loc=0.0, scale=1.0):
    z = _gnp.divide(_gnp.subtract(x, loc), scale)
    return 0.5 * _erfc(-z / math.sqrt(2.0))


@scipy_or_tensors("scipy.stats:norm.logcdf")
def logcdf(x, loc=0.0, scale=1.0):
    return _gnp.log(cdf(x, loc, scale))
