"""NumPy kernels of the pointwise_more family: fmax/fmin, copysign, heaviside, logaddexp2,
deg2rad/rad2deg, frexp, ldexp, nextafter, gcd/lcm, the bit shifts, rsub.

Functions of ndarrays; the entries that use them are in ops/derivatives/pointwise_more.py,
the public functions in ops/api/pointwise_more.py.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.opmath import half_in_float32, half_with_number
from .pointwise import _floats_only, _no_bool_sub, _no_complex, _tname  # noqa: F401


def _fmax_fmin_kernel(name, ufunc):
    def kernel(a, b):
        if np.asarray(a).dtype.kind == "c" or np.asarray(b).dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return np.asarray(ufunc(a, b))
    return kernel


@half_in_float32
def _copysign_kernel(a, b):
    _no_complex("copysign", a, b)
    return np.asarray(np.copysign(a, b))


def _heaviside_kernel(a, b):
    if a.dtype.kind == "c" or np.asarray(b).dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if a.dtype == np.bool_:
        return np.asarray(np.where(a, True, np.asarray(b, bool)))
    return np.asarray(np.where(a == 0, b, (a > 0).astype(a.dtype))).astype(a.dtype,
                                                                            copy=False)


@half_in_float32
def _logaddexp2_kernel(a, b):
    _floats_only("logaddexp2", a, b)
    return np.asarray(np.logaddexp2(a, b))


_DEG = math.pi / 180.0
_half_mul = half_with_number(np.multiply)


def _scale_kernel(name, c):
    def kernel(a):
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        if a.dtype.itemsize == 2 and a.dtype.kind in "fV":
            return _half_mul(a, c)
        return np.asarray(a * c)
    return kernel


_deg2rad_kernel = _scale_kernel("deg2rad", _DEG)
_rad2deg_kernel = _scale_kernel("rad2deg", 180.0 / math.pi)


def _frexp_kernel(a):
    if a.dtype.kind not in "fV":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes [got "
                           f"{_tname(a)}; convert with .float()]")
    m, e = np.frexp(a.astype(np.float32) if a.dtype.kind == "V" or a.dtype.itemsize == 2
                    and a.dtype != np.float16 else a)
    return np.asarray(m).astype(a.dtype), np.asarray(e).astype(np.int32)


def _ldexp_kernel(a, b):
    if a.dtype.itemsize == 2 and a.dtype.kind in "fV":
        # PyTorch's self * pow(2, other): the power rounded to the half type, then the product
        p = np.exp2(np.asarray(b).astype(np.float32)).astype(a.dtype)
        return np.asarray((a.astype(np.float32) * p.astype(np.float32)).astype(a.dtype))
    return np.asarray(a * np.exp2(b))


def _nextafter_kernel(a, b):
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_tname(a)}\'')
    return np.asarray(np.nextafter(a, b))


def _int_only(name):
    def check(a):
        if a.dtype.kind not in "iu":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_tname(a)}\'')
    return check


def _gcd_kernel(a, b):
    _int_only("gcd")(a)
    return np.asarray(np.gcd(a, b)).astype(a.dtype, copy=False)


def _lcm_kernel(a, b):
    _int_only("lcm")(a)
    return np.asarray(np.lcm(a, b)).astype(a.dtype, copy=False)


def _shift_kernel(name, left):
    check = _int_only(name)

    def kernel(a, b):
        check(a)
        bits = a.dtype.itemsize * 8
        b = np.asarray(b).astype(a.dtype, copy=False)
        big = (b < 0) | (b >= bits)
        s = np.where(big, 0, b)
        if left:
            r = np.left_shift(a, s)
            r = np.where(big, 0, r)
        else:
            r = np.right_shift(a, s)
            r = np.where(big, np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0, r)
        return np.asarray(r).astype(a.dtype, copy=False)
    return kernel


_lshift_kernel = _shift_kernel("lshift", True)
_rshift_kernel = _shift_kernel("rshift", False)


@half_in_float32(round_scalars=True)
def _rsub_tensor_kernel(a, b, alpha):
    if alpha == 1:
        return np.asarray(b - a)
    return np.asarray(b - a * alpha)


# ====================================================================== i0 / i1
def _bessel_real(name, a):
    if a.dtype.kind == "c":
        raise NotImplementedError(f'"{name}" not implemented for \'{_tname(a)}\'')


def _i0_kernel(a):
    """The modified Bessel function I0 (NumPy's i0: Cephes' Chebyshev expansions, float64)."""
    _bessel_real("i0_vml_cpu", a)
    if a.dtype == np.float64:
        return np.asarray(np.i0(a))
    return np.asarray(np.i0(a.astype(np.float64))).astype(a.dtype)


def _i1_series(x):
    """I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!): positive terms (for x > 0) summed until they
    no longer change the sum; the sign of x is restored at the end (I1 is odd)."""
    h = np.abs(x) / 2.0
    q = h * h
    term = h.copy()
    total = h.copy()
    k = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while True:
            k += 1
            term = term * q / (k * (k + 1))
            total = total + term
            live = term > total * 1e-17
            if not live.any():
                break
    return np.copysign(total, x)


def _i1_kernel(a):
    _bessel_real("i1_cpu", a)
    x = a.astype(np.float64)
    out = np.where(np.isnan(x), np.nan, _i1_series(np.where(np.isnan(x), 0.0, x)))
    return np.asarray(out).astype(a.dtype)
