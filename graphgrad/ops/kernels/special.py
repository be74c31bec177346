"""NumPy kernels for erf, erfc and erfinv (graphgrad's runtime has no SciPy).

erfc(|x|) is written as t * exp(-x^2 + f(u)) with t = 2 / (2 + |x|) and u = 2t - 1 in
(-1, 1]: f is smooth on the whole half line (it tends to -log(2 sqrt(pi)) as |x| -> inf),
so one Chebyshev series in u covers every x, with no ranges to pick element by element
(the approach of Numerical Recipes' erfccheb; the coefficients below are our own fit,
``python -m tools.fit_erfc``).  Its 27 terms give erfc to ~1e-15 relative in float64;
for float32 and half inputs the series is cut at 14 terms (~1e-9 relative, far below
float32's rounding) and the float64 result rounded once.  Being branch-free, the series
is evaluated on cache-sized blocks with preallocated buffers (``_erfc_abs``): the earlier
three-range kernel spent most of its time in boolean-mask gathers and scatters.
erf is 1 - erfc(|x|) with x's sign, except for |x| < 0.5, where W. J. Cody's rational
approximation (Math. Comp. 23, 1969) keeps the relative accuracy of small values.
erfinv starts from M. Giles' single-precision approximation ("Approximating the erfinv
function", 2010) and refines it with Halley steps on erf (or on erfc in the tails, where
``1 - |y|`` is exact), which converges to full float64 accuracy.
Small arrays use the C library's erf/erfc element by element (faster there, as accurate).
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

# Chebyshev coefficients c_0..c_27 of f(u) = log(erfc(z) / t) + z^2, t = 2 / (2 + z),
# u = 2t - 1, z >= 0 (tools/fit_erfc.py; |c_k| < 3e-17 beyond these)
_CHEB = (
    -0.6513268598908547, 0.6419697923564902, 0.019476473204185836, -0.009561514786808632,
    -0.0009465953444820369, 0.00036683949785276145, 4.252332480690777e-05,
    -2.0278578112534242e-05, -1.6242900046470256e-06, 1.3036558355805232e-06,
    1.5626441722066142e-08, -8.523809591492654e-08, 6.5290544390988515e-09,
    5.059343495551469e-09, -9.91364156493033e-10, -2.273651222931836e-10,
    9.646791102015527e-11, 2.3940380830391146e-12, -6.886027526497553e-12,
    8.944879273090725e-13, 3.130921399342958e-13, -1.1270822361367252e-13,
    3.810905255189232e-16, 7.106097613609237e-15, -1.5230282014571043e-15,
    -9.457494571291233e-17, 1.210237189224279e-16, -2.816663087747177e-17,
)


def _monomial(cheb):
    """The power-series coefficients (constant first) of sum_k cheb[k] T_k(u): with these
    small coefficients (|a_k| < 0.7, sum < 1.5) Horner's rule is as accurate on [-1, 1] as
    Clenshaw's recurrence and takes two NumPy calls per term instead of three."""
    n = len(cheb)
    out = [0.0] * n
    t_prev, t = [1.0] + [0.0] * (n - 1), [0.0, 1.0] + [0.0] * (n - 2)  # T_0, T_1
    for k, c in enumerate(cheb):
        tk = t_prev if k == 0 else t
        if k >= 2:  # T_k = 2u T_{k-1} - T_{k-2}
            tk = [2.0 * (t[i - 1] if i else 0.0) - t_prev[i] for i in range(n)]
            t_prev, t = t, tk
        for i in range(n):
            out[i] += c * tk[i]
    return tuple(out)


_TERMS64 = 27  # ~1e-15 relative: float64 results
_TERMS32 = 14  # ~1e-9 relative: float32 / half results (computed in float64, rounded once)
_MONO = {_TERMS64: _monomial(_CHEB[:_TERMS64]), _TERMS32: _monomial(_CHEB[:_TERMS32])}
_BLOCK = 16384  # elements per block: the six float64 work buffers stay in the L2 cache


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


def _erfc_abs(a, terms, out=None, flip=False, work=None):
    """erfc(|a|) for a flat float32/float64 array ``a`` (NaN stays NaN, +-inf gives 0),
    computed in float64 and written to ``out`` (float64 by default; a float32 ``out`` gets
    each block rounded once).  ``flip``: erfc(a) = 2 - erfc(|a|) where a < 0.

    The series is summed by Horner's rule block by block, every step writing into
    one of a few preallocated buffers (``out=``), so each NumPy call works on data in the
    cache and nothing is allocated per step.  With the float64 series (``terms`` 27) -x^2
    is split as in ``_exp_neg_sq`` so that large |x| keep their relative accuracy.
    ``work``: six float64 buffers of at least ``min(a.size, _BLOCK)`` elements (made here
    when not given; a caller that works block by block passes its own).  ``out`` may be
    ``a`` itself when ``a`` fits in one block.
    """
    if out is None:
        out = np.empty(a.shape)
    a_ = _MONO[terms]
    n = min(a.size, _BLOCK)
    if work is None:
        z, t, y, b0, b1, b2 = (np.empty(n) for _ in range(6))
    else:
        z, t, y, b0, b1, b2 = (buf[:n] for buf in work)
    split = terms > _TERMS32
    for s in range(0, a.size, n):
        m = min(n, a.size - s)
        if m != n:
            z, t, y, b0, b1, b2 = (buf[:m] for buf in (z, t, y, b0, b1, b2))
        np.abs(a[s:s + m], out=z)
        np.minimum(z, 40.0, out=z)        # erfc(40) underflows to 0; inf would give NaN
        np.add(z, 2.0, out=t)
        np.divide(2.0, t, out=t)          # t = 2 / (2 + z)
        np.multiply(t, 2.0, out=y)
        np.subtract(y, 1.0, out=y)        # y = u
        np.multiply(y, a_[-1], out=b0)    # f(u) by Horner's rule on the power series
        np.add(b0, a_[-2], out=b0)
        for ak in a_[-3::-1]:
            np.multiply(b0, y, out=b0)
            np.add(b0, ak, out=b0)
        if split:                         # f - z^2, z^2 = zs^2 + (z - zs)(z + zs)
            np.multiply(z, 16.0, out=y)
            np.trunc(y, out=y)
            np.multiply(y, 0.0625, out=y)  # zs, exactly squared below
            np.subtract(z, y, out=b1)
            np.add(z, y, out=b2)
            np.multiply(b1, b2, out=b1)
            np.subtract(b0, b1, out=b0)
            np.multiply(y, y, out=y)
            np.negative(y, out=y)
            np.exp(y, out=y)
            np.exp(b0, out=b0)
            np.multiply(b0, y, out=b0)
        else:
            np.multiply(z, z, out=b1)
            np.subtract(b0, b1, out=b0)
            np.exp(b0, out=b0)
        np.multiply(b0, t, out=b0)
        if flip:
            np.less(a[s:s + m], 0.0, out=t)  # 1.0 where negative, as a float mask
            np.multiply(t, 2.0, out=y)
            np.multiply(t, 2.0, out=t)
            np.subtract(1.0, t, out=t)        # +1 / -1
            np.multiply(b0, t, out=b0)
            np.add(b0, y, out=b0)             # v or 2 - v
        out[s:s + m] = b0
    return out


def _as64(x):
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype != np.float64 else x


def _terms(dtype):
    return _TERMS64 if dtype == np.float64 else _TERMS32


# below this many elements, calling the C library's erf per element (math.erf) is faster
# than the blocked series' ~60 NumPy calls
_SMALL = 64


def _by_element(fn, a):
    return np.fromiter(map(fn, a.ravel().tolist()), np.float64, a.size).reshape(a.shape)


def erf(x):
    """The error function, elementwise (float dtypes; result in x's dtype)."""
    x = np.asarray(x)
    a = _as64(x)
    if a.size <= _SMALL:
        return _by_element(math.erf, a).astype(x.dtype, copy=False)
    flat = a.ravel()
    with np.errstate(all="ignore"):
        v = 1.0 - _erfc_abs(flat, _terms(x.dtype))
        np.copysign(v, flat, out=v)
        small = np.abs(flat) < 0.5
        if small.any():
            s = flat[small]
            v[small] = s * _ratio(_A, _B, s * s)
    return v.reshape(a.shape).astype(x.dtype, copy=False)


def erfc(x):
    """The complementary error function, accurate in the right tail."""
    x = np.asarray(x)
    if x.size <= _SMALL:
        return _by_element(math.erfc, _as64(x)).astype(x.dtype, copy=False)
    # float32 is read and written block by block; other dtypes go through float64
    a = x if x.dtype in (np.float32, np.float64) else _as64(x)
    flat = a.ravel()
    out = np.empty(flat.shape, a.dtype)
    with np.errstate(all="ignore"):
        _erfc_abs(flat, _terms(x.dtype), out, flip=True)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


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
