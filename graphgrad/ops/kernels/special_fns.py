"""NumPy kernels of graphgrad.special's own ops: entr, xlog1py, sinc, log_ndtr, ndtri,
mvlgamma (no SciPy at runtime).

log_ndtr and ndtri work with log erfc(z) = log t + f(u) - z^2 (special.py's Chebyshev form of
erfc, t = 2 / (2 + z), u = 2t - 1): it never underflows, so log_ndtr keeps full relative
accuracy far in the left tail (log_ndtr(-40) = -804.6), and ndtri solves erfc(z) = 2p by
Newton's method on that logarithm, accurate down to the smallest double p.  Near p = 1/2,
ndtri is sqrt(2) erfinv(2p - 1), where 2p - 1 is exact.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16, half_in_float32
from . import special as _special
from .gamma import lgamma as _lgamma

_LOG_PI = math.log(math.pi)
_SQRT2 = math.sqrt(2.0)
_SQRT_PI_2 = math.sqrt(math.pi) / 2.0
_LN2 = math.log(2.0)


def _float64(a):
    return a.astype(np.float64) if a.dtype != np.float64 else a


# ====================================================================== entr / xlog1py / sinc
def _half(a):
    return a.dtype is FLOAT16 or a.dtype is BFLOAT16


def _times_log(a, log_of_b):
    """a * log_of_b, as PyTorch's half kernels (entr, xlogy, xlog1py) compute it: the log
    rounded to the half type, the product in float32, rounded again."""
    if not _half(a):
        return a * log_of_b
    dt = a.dtype
    return (a.astype(np.float32) * log_of_b.astype(dt).astype(np.float32)).astype(dt)


def _entr_kernel(a):
    """-x log x (x > 0), 0 at x = 0, -inf for x < 0; NaN stays NaN (PyTorch's entr)."""
    with np.errstate(all="ignore"):
        lg = np.log(np.where(a > 0, a, 1).astype(np.float32) if _half(a) else
                    np.where(a > 0, a, 1))
        pos = _times_log(-a, lg)
    return np.where(a > 0, pos, np.where(a == 0, 0, np.where(a < 0, -np.inf, a))) \
        .astype(a.dtype, copy=False)


def _xlog1py_kernel(a, b):
    """a * log1p(b), 0 where a == 0 unless b is NaN (PyTorch's xlog1py)."""
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(all="ignore"):
        r = np.asarray(_times_log(a, np.log1p(b.astype(np.float32) if _half(b) else b)))
    return np.where((a == 0) & ~np.isnan(b), np.zeros((), r.dtype), r)


@half_in_float32
def _sinc_kernel(a):
    """sin(pi x) / (pi x), 1 at 0 (real and complex)."""
    with np.errstate(all="ignore"):
        y = np.pi * np.where(a == 0, 1, a)
        return np.where(a == 0, np.ones((), a.dtype), np.sin(y) / y)


# ====================================================================== log erfc, log_ndtr
def _log_erfc_parts(z):
    """(log erfc(z), t e^f) for z >= 0 (float64): erfc(z) = t exp(f(u) - z^2), and
    exp(-z^2) / erfc(z) = 1 / (t e^f), which neither underflows nor overflows."""
    coefs = _special._MONO[_special._TERMS64]
    with np.errstate(all="ignore"):
        t = 2.0 / (2.0 + z)
        u = 2.0 * t - 1.0
        f = np.full(z.shape, coefs[-1])
        for c in coefs[-2::-1]:
            f = f * u + c
        return np.log(t) + f - z * z, t * np.exp(f)


def _log_ndtr_kernel(a):
    """log Phi(x): log(erfc(-x / sqrt 2) / 2) for x < -1 (the log erfc form, no underflow),
    log1p(-erfc(x / sqrt 2) / 2) elsewhere (no cancellation as Phi -> 1)."""
    x = _float64(a)
    with np.errstate(all="ignore"):
        left = x < -1.0
        z = np.where(left, -x, 1.0) / _SQRT2
        lg, _ = _log_erfc_parts(z)
        lo = lg - _LN2
        hi = np.log1p(-0.5 * _special.erfc(np.where(left, 0.0, x) / _SQRT2))
        r = np.where(left, lo, hi)
    r = np.where(x == -np.inf, -np.inf, r)
    return r.astype(a.dtype, copy=False)


# ====================================================================== ndtri
def _ndtri_kernel(a):
    """The inverse of the normal CDF on [0, 1] (-inf at 0, inf at 1, NaN outside)."""
    p = _float64(a)
    with np.errstate(all="ignore"):
        central = (p >= 0.25) & (p <= 0.75)
        out = _SQRT2 * _special.erfinv(np.where(central, 2.0 * p - 1.0, 0.0))
        # tails: erfc(z) = q with q = 2 min(p, 1 - p) (1 - p is exact for p >= 1/2)
        q = 2.0 * np.where(p < 0.5, p, 1.0 - p)
        q = np.where(central | ~(q > 0) | ~(q <= 1), 0.5, q)
        z = _seed(q)
        logq = np.log(q)
        for _ in range(5):   # Newton on log erfc(z) = log q (quadratic convergence)
            lg, te = _log_erfc_parts(z)
            z = z + (lg - logq) * te * _SQRT_PI_2
        tail = np.where(p < 0.5, -_SQRT2 * z, _SQRT2 * z)
        out = np.where(central, out, tail)
        out = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, out))
        out = np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, out)
    return out.astype(a.dtype, copy=False)


def _seed(q):
    """erfcinv(q), q in (0, 1]: Giles' approximation (~1e-7) where it was fitted (w below 30),
    below that (q < ~1e-13) the asymptotic z^2 = L - log(sqrt(pi L)), L = -log q (~1e-3)."""
    big_l = -np.log(q)
    asym = np.sqrt(np.maximum(big_l - 0.5 * np.log(np.pi * np.maximum(big_l, 1.0)), 0.0))
    return np.where(big_l > 30.0, asym, _giles_seed(np.where(big_l > 30.0, 0.5, q)))


def _giles_seed(q):
    """erfcinv(q) for q in (0, 1] to ~1e-7: Giles' erfinv approximation at y = 1 - q with its
    w = -log((1 - y)(1 + y)) = -log(q (2 - q)) taken from q, so tiny q keep their digits."""
    w = -np.log(q * (2.0 - q))
    central = w < 5.0
    p1 = _special._poly((2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                         0.00021858087, -0.00125372503, -0.00417768164, 0.246640727,
                         1.50140941), w - 2.5)
    wt = np.sqrt(np.where(central, 5.0, w)) - 3.0
    p2 = _special._poly((-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                         0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682),
                        wt)
    return np.where(central, p1, p2) * (1.0 - q)


# ====================================================================== mvlgamma
def _mvlgamma_kernel(a, p):
    """log of the multivariate gamma function: p (p - 1) / 4 log pi + sum_j lgamma(x - j / 2),
    j = 0 .. p - 1."""
    c = p * (p - 1) / 4.0 * _LOG_PI
    if _half(a):
        # (as PyTorch: each x - j / 2 and its lgamma rounded to the half type, summed in
        # float32 and rounded, the constant rounded to the half type and added)
        dt, f32 = a.dtype, np.float32
        s = sum(_lgamma((a.astype(f32) - j / 2.0).astype(dt).astype(f32)).astype(dt)
                .astype(f32) for j in range(p))
        return (s.astype(dt).astype(f32) + np.asarray(c, f32).astype(dt).astype(f32)) \
            .astype(dt)
    x = _float64(a)
    r = np.full(x.shape, c)
    for j in range(p):
        r = r + _lgamma(x - j / 2.0)
    return r.astype(a.dtype, copy=False)
