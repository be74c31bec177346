"""NumPy kernels for lgamma, digamma and polygamma (graphgrad's runtime has no SciPy).

Computed in float64 and rounded once to the input's dtype.
- lgamma: the C library's ``lgamma`` element by element (``math.lgamma``); poles
  (0 and the negative integers) give +inf, as in PyTorch.
- digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic
  series; negative x by the reflection psi(x) = psi(1 - x) - pi / tan(pi x).  PyTorch's
  conventions: psi(+-0) = -+inf, psi(negative integer) = nan, psi(-inf) = nan.
- polygamma(1, x) (trigamma): PyTorch's short series (see ``trigamma``).
- polygamma(n, x), n >= 2: (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function summed
  directly up to x + k >= 20 and finished with the Euler-Maclaurin formula (valid for
  negative non-integer x too: the exponent is an integer); poles give inf.
"""
from __future__ import annotations

import math

import numpy as np

# B_2k / (2k)!, k = 1..10
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
        43867 / 798, -174611 / 330)
_B2K_OVER_FACT = tuple(b / math.factorial(2 * k) for k, b in enumerate(_B2K, 1))
# digamma's asymptotic series: psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k)
_PSI_COEF = tuple(b / (2 * k) for k, b in enumerate(_B2K[:7], 1))


def _lgamma1(v):
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):
        return math.inf


_lgamma_u = np.frompyfunc(_lgamma1, 1, 1)


def _finish(r, a):
    return np.asarray(r, dtype=np.float64).astype(a.dtype, copy=False)


def _as64(a):
    return np.asarray(a, dtype=np.float64)


def lgamma(a):
    x = _as64(a)
    return _finish(_lgamma_u(x), a)


def _digamma_pos(y):
    """psi(y) for y > 0 (float64 array)."""
    y = y.copy()
    res = np.zeros_like(y)
    small = y < 10
    while small.any():
        res = np.where(small, res - 1 / np.where(small, y, 1.0), res)
        y = np.where(small, y + 1, y)
        small = y < 10
    inv2 = 1 / (y * y)
    series = np.zeros_like(y)
    for c in reversed(_PSI_COEF):
        series = (series + c) * inv2
    with np.errstate(all="ignore"):
        return res + np.log(y) - 0.5 / y - series


def digamma(a):
    x = _as64(a)
    with np.errstate(all="ignore"):
        neg = x < 0
        pos_arg = np.where(neg, 1 - x, np.where(x > 0, x, 1.0))
        fin = np.isfinite(pos_arg)
        r = np.where(fin, _digamma_pos(np.where(fin, pos_arg, 1.0)), np.inf)
        frac = x - np.floor(x)
        r = np.where(neg, r - np.pi / np.tan(np.pi * frac), r)
        r = np.where(neg & (frac == 0), np.nan, r)          # poles at negative integers
        r = np.where(x == 0, np.copysign(np.inf, -x), r)   # psi(+-0) = -+inf
        r = np.where(np.isnan(x) | (x == -np.inf), np.nan, r)
    return _finish(r, a)


def _hurwitz_zeta(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for integer s >= 2 and a float64 array q."""
    q = q.copy()
    res = np.zeros_like(q)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        todo = (q < 20) & ~pole & np.isfinite(q)
        while todo.any():
            res = np.where(todo, res + np.power(np.where(todo, q, 1.0), -float(s)), res)
            q = np.where(todo, q + 1, q)
            todo = todo & (q < 20)
        w = np.where(pole | ~np.isfinite(q), 20.0, q)
        tail = np.power(w, 1.0 - s) / (s - 1) + 0.5 * np.power(w, -float(s))
        rising = float(s)          # s (s+1) ... (s + 2k - 2)
        wpow = np.power(w, -float(s) - 1)
        for k, c in enumerate(_B2K_OVER_FACT, 1):
            tail = tail + c * rising * wpow
            rising *= (s + 2 * k - 1) * (s + 2 * k)
            wpow = wpow / (w * w)
        res = res + tail
        res = np.where(pole, np.inf, res)
        res = np.where(q == -np.inf, np.inf, res)   # (PyTorch's values at +-inf)
        res = np.where(np.isnan(q) | (q == np.inf), np.nan, res)
    return res


def trigamma(a):
    """psi'(x) as PyTorch computes it (six recurrence steps, then three terms of the
    asymptotic series; reflection below 1/2), so that gradients of digamma agree with
    PyTorch's to the last bits rather than differing around 1e-10 (the series is that
    accurate; the Hurwitz sum above is exact to rounding)."""
    # (float32 inputs in float32 arithmetic, as PyTorch: near the poles sin(pi x) then
    # gives PyTorch's large finite values)
    x = np.asarray(a, np.float32 if a.dtype == np.float32 else np.float64)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        res = np.where(refl, -(np.pi ** 2) / np.sin(np.pi * x) ** 2, 0.0)
        y = np.where(refl, 1 - x, x)
        for _ in range(6):
            res = res + 1 / (y * y)
            y = y + 1
        ixx = 1 / (y * y)
        res = res + (1 + 1 / (2 * y) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / y
        res = np.where(refl, -res, res)
    return _finish(res, a)


def polygamma(a, n):
    if n == 0:
        return digamma(a)
    if n == 1:
        return trigamma(a)
    x = _as64(a)
    z = _hurwitz_zeta(n + 1, x)
    sign = 1.0 if n % 2 == 1 else -1.0
    if a.dtype.itemsize == 2:
        # half precision: PyTorch rounds zeta to the half type, then multiplies by n! in
        # float32 and rounds again (two roundings, which its bits show for n >= 3)
        zh = z.astype(np.float32).astype(a.dtype).astype(np.float32)
        return (np.float32(sign * math.factorial(n)) * zh).astype(a.dtype)
    return _finish(sign * math.factorial(n) * z, a)
