"""NumPy kernels for erf, erfc and erfinv (graphgrad's runtime has no SciPy).

erf/erfc use W. J. Cody's rational Chebyshev approximations (Math. Comp. 23,
1969), accurate to about 1e-16 relative in float64 on the three ranges
|x| < 0.5, 0.5 <= |x| < 4 and |x| >= 4.  erfinv starts from M. Giles'
single-precision approximation ("Approximating the erfinv function", 2010)
and refines it with Halley steps on erf (or on erfc in the tails, where
``1 - |y|`` is exact), which converges to full float64 accuracy.
Lower precisions are computed in float64 and rounded once.  Small arrays use
the C library's erf/erfc element by element (faster there, and as accurate).
"""
from __future__ import annotations

import math

import numpy as np

_SQRT_PI = 1.7724538509055160273
_INV_SQRT_PI = 0.56418958354775628695

# coefficient tuples run from the highest power to the constant term
# |x| < 0.5: erf(x) = x * A(x^2) / B(x^2)
_A = (1.85777706184603153e-1, 3.16112374387056560e00, 1.13864154151050156e02,
      3.77485237685302021e02, 3.20937758913846947e03)
_B = (1.0, 2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
# 0.5 <= |x| < 4: erfc(x) = exp(-x^2) * C(x) / D(x)
_C = (2.15311535474403846e-8, 5.64188496988670089e-1, 8.88314979438837594e00,
      6.61191906371416295e01, 2.98635138197400131e02, 8.81952221241769090e02,
      1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03)
_D = (1.0, 1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
# |x| >= 4: erfc(x) = exp(-x^2)/|x| * (1/sqrt(pi) + z * P(z) / Q(z)), z = 1/x^2
_P = (1.63153871373020978e-2, 3.05326634961232344e-1, 3.60344899949804439e-1,
      1.25781726111229246e-1, 1.60837851487422766e-2, 6.58749161529837803e-4)
_Q = (1.0, 2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)


def _poly(coefs, x):
    """Horner evaluation; ``coefs`` run from the highest power to the constant term."""
    r = np.zeros_like(x) + coefs[0]
    for c in coefs[1:]:
        r = r * x + c
    return r


def _ratio(num, den, x):
    return _poly(num, x) / _poly(den, x)


def _exp_neg_sq(ax):
    # exp(-x^2) with the square split into a rounded part and a remainder, so large |x|
    # keep their relative accuracy (as Cody's CALERF does)
    xs = np.trunc(ax * 16.0) / 16.0
    return np.exp(-xs * xs) * np.exp(-(ax - xs) * (ax + xs))


def _erfc_pos(ax):
    """erfc(|x|) for |x| >= 0.5 (float64 array)."""
    mid = ax < 4.0
    out = np.empty_like(ax)
    if mid.any():
        a = ax[mid]
        out[mid] = _exp_neg_sq(a) * _ratio(_C, _D, a)
    big = ~mid
    if big.any():
        a = ax[big]
        with np.errstate(all="ignore"):
            z = 1.0 / (a * a)
            r = (_INV_SQRT_PI - z * _ratio(_P, _Q, z)) / a
            v = _exp_neg_sq(a) * r
        out[big] = np.where(a == np.inf, 0.0, v)
    return out


def _as64(x):
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype != np.float64 else x


# below this many elements, calling the C library's erf per element (math.erf) is faster
# than the vectorised rational approximation's ~50 NumPy calls
_SMALL = 2048


def _by_element(fn, a):
    return np.fromiter(map(fn, a.ravel().tolist()), np.float64, a.size).reshape(a.shape)


def erf(x):
    """The error function, elementwise (float dtypes; result in x's dtype)."""
    x = np.asarray(x)
    a = _as64(x)
    if a.size <= _SMALL:
        return _by_element(math.erf, a).astype(x.dtype, copy=False)
    ax = np.abs(a)
    out = np.empty_like(a)
    small = ax < 0.5
    if small.any():
        s = a[small]
        out[small] = s * _ratio(_A, _B, s * s)
    large = ~small
    if large.any():
        v = 1.0 - _erfc_pos(ax[large])
        out[large] = np.copysign(v, a[large])
    out[np.isnan(a)] = np.nan
    return out.astype(x.dtype, copy=False)


def erfc(x):
    """The complementary error function, accurate in the right tail."""
    x = np.asarray(x)
    a = _as64(x)
    if a.size <= _SMALL:
        return _by_element(math.erfc, a).astype(x.dtype, copy=False)
    ax = np.abs(a)
    out = np.empty_like(a)
    small = ax < 0.5
    if small.any():
        s = a[small]
        out[small] = 1.0 - s * _ratio(_A, _B, s * s)
    large = ~small
    if large.any():
        v = _erfc_pos(ax[large])
        out[large] = np.where(a[large] < 0, 2.0 - v, v)
    out[np.isnan(a)] = np.nan
    return out.astype(x.dtype, copy=False)


def _giles(y):
    """M. Giles' single-precision erfinv approximation (the Halley seed)."""
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
    central = w < 5.0
    wc = w - 2.5
    p1 = _poly((2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941), wc)
    wt = np.sqrt(np.where(central, 5.0, w)) - 3.0
    p2 = _poly((-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682), wt)
    return np.where(central, p1, p2) * y


def erfinv(y):
    """The inverse error function on [-1, 1] (NaN outside, +-inf at +-1)."""
    y = np.asarray(y)
    a = _as64(y)
    ay = np.abs(a).ravel()
    ok = ay < 1.0
    t = np.where(ok, ay, 0.0)
    x = _giles(t)
    # Halley on f(x) = erf(x) - t, or q - erfc(x) in the tail (q = 1 - t is exact there, by
    # Sterbenz); f' = 2/sqrt(pi) e^{-x^2}, f'' = -2x f'.  The seed is good to ~1e-7 except
    # very close to +-1, so most elements stop after one or two steps.
    idx = np.flatnonzero(ok & (t > 0))
    for _ in range(12):
        if idx.size == 0:
            break
        xi, ti = x[idx], t[idx]
        tail = ti > 0.5
        f = np.empty_like(xi)
        f[tail] = (1.0 - ti[tail]) - erfc(xi[tail])
        f[~tail] = erf(xi[~tail]) - ti[~tail]
        d = 2.0 * _INV_SQRT_PI * _exp_neg_sq(xi)
        with np.errstate(all="ignore"):
            u = f / d
            step = u / (1.0 + xi * u)
        good = np.isfinite(step)
        x[idx[good]] = xi[good] - step[good]
        idx = idx[good & (np.abs(step) > 1e-6 * xi)]
    x = np.copysign(x, a.ravel())
    x = np.where(ok, x, np.where(ay == 1.0, np.copysign(np.inf, a.ravel()), np.nan))
    return x.reshape(a.shape).astype(y.dtype, copy=False)
