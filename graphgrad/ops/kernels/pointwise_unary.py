"""NumPy kernels of the pointwise_unary family: math functions, rounding, special functions,
complex parts.

Functions of ndarrays; the entries that use them are in ops/derivatives/pointwise_unary.py,
the public functions in ops/api/pointwise_unary.py.
"""
from __future__ import annotations

import math
import ml_dtypes
import numpy as np

from ..._core.opmath import half_in_float32
from ..dispatch import follow_layout
from .pointwise import _reciprocal_kernel, _tname


def _real_only(name, fn, label=None):
    """A kernel that raises PyTorch's NotImplementedError on complex inputs. Its result is
    laid out as the input (PyTorch's TensorIterator): ``fn`` may compute on a row-major
    copy (the special functions' blocked series), which made erf of a transposed tensor
    row-major, so a reshape of it a view, not PyTorch's copy (fuzz seed 1368642)."""
    def kernel(a):
        if a.dtype.kind == "c":
            raise NotImplementedError(f'"{label or name + "_vml_cpu"}" not implemented for '
                                      f"'{_tname(a)}'")
        if a.ndim > 1 and not a.flags.c_contiguous:
            return follow_layout(fn(a), (a,))
        return fn(a)
    return kernel


# ============================================================ |z|, sign, sgn
def _real_sign(a):
    if a.dtype.kind == "b":
        return a.copy()
    if a.dtype.kind in "iu":
        return np.sign(a)
    # (a > 0) - (a < 0): 0 for NaN, as PyTorch (NumPy's sign gives NaN)
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


def _complex_abs(a):
    """|a| for a complex array: the C library's hypot of its parts, as PyTorch's; NumPy's
    complex absolute value is 1 ulp off that for about a third of all values."""
    return np.hypot(a.real, a.imag)


def _sgn_kernel(a):
    if a.dtype.kind != "c":
        return _real_sign(a)
    r = _complex_abs(a)
    with np.errstate(all="ignore"):
        return np.where(r == 0, 0, a / np.where(r == 0, 1, r)).astype(a.dtype, copy=False)


def _sign_kernel(a):
    if a.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    return _real_sign(a)


# abs: the gradient is grad * sgn(self), which is 0 at 0 (PyTorch's subgradient choice)
def _abs_kernel(a):
    if a.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return _complex_abs(a) if a.dtype.kind == "c" else np.abs(a)


# ============================================================ exp / log family
def _log1p_kernel(a):
    if a.dtype.kind != "c":
        return np.log1p(a)
    # NumPy's complex log1p loses accuracy near 0: there log|1+z| = log1p(2x + x^2 + y^2) / 2
    # (x itself where that underflows to 0); away from 0 that sum cancels (near z = -1 it
    # is -1 + |1+z|^2: 5e-9 off at tanh(-5.4+0.5j), fuzz seed 1180625), and log|1+z| is
    # log(hypot(1 + x, y)), 1 + x exact there
    x, y = a.real, a.imag
    out = np.empty_like(a)
    with np.errstate(all="ignore"):
        r = x * (2 + x) + y * y
        small = np.abs(a) < 0.5
        out.real = np.where(small, np.where(r == 0, x, 0.5 * np.log1p(r)),
                            np.log(np.hypot(1 + x, y)))
    out.imag = np.arctan2(y, 1 + x)
    return out


@half_in_float32
def _rsqrt_kernel(a):
    if a.dtype.kind == "c":
        return _reciprocal_kernel(np.sqrt(a))
    return np.reciprocal(np.sqrt(a))


# ============================================================ logit, erf family
def _logit_kernel(a, eps):
    if a.dtype.kind == "c":
        raise NotImplementedError(f"\"logit_cpu\" not implemented for '{_tname(a)}'")
    if eps is not None:
        # the bounds in the tensor's dtype, as PyTorch's kernel takes them (a Python float
        # would make a bfloat16 tensor float32; so would np.clip)
        lo = np.asarray(eps, a.dtype)
        a = np.minimum(np.maximum(a, lo), 1 - lo)
    return np.log(a / (1 - a))


# ============================================================ rounding (zero gradient)
def _rounding_kernel(name, fn):
    def kernel(a):
        if a.dtype.kind == "c":
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        if a.dtype.kind == "b":
            raise NotImplementedError(f"\"{name}_vml_cpu\" not implemented for 'Bool'")
        if a.dtype.kind in "iu":
            return a.copy()  # already integral
        return fn(a)
    return kernel


@half_in_float32   # (PyTorch scales a float16/bfloat16 value in float32, then rounds once)
def _round_decimals_kernel(a, decimals):
    if a.dtype.kind != "f" and a.dtype.kind != "V":
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{_tname(a)}'")
    # round half to even on the scaled value, like PyTorch's nearbyint
    if decimals >= 0:
        ten = np.asarray(10.0 ** decimals, a.dtype)
        return np.rint(a * ten) / ten
    ten = np.asarray(10.0 ** -decimals, a.dtype)
    return np.rint(a / ten) * ten


def _frac_kernel(a):
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{_tname(a)}'")
    return a - np.trunc(a)


# ============================================================ nan_to_num
def _nan_to_num_kernel(a, nan, posinf, neginf):
    if a.dtype.kind not in "fcV":
        return a.copy()
    if a.dtype.kind == "c":
        out = np.empty_like(a)
        out.real = _nan_to_num_kernel(a.real, nan, posinf, neginf)
        out.imag = _nan_to_num_kernel(a.imag, nan, posinf, neginf)
        return out
    info = ml_dtypes.finfo(a.dtype)   # (NumPy's finfo does not know bfloat16)
    out = np.where(np.isnan(a), np.asarray(nan, a.dtype), a)
    out = np.where(out == np.inf, np.asarray(info.max if posinf is None else posinf, a.dtype),
                   out)
    return np.where(out == -np.inf,
                    np.asarray(info.min if neginf is None else neginf, a.dtype), out)


# ============================================================ complex parts
def _imag_kernel(a):
    return np.imag(a)


def _angle_kernel(a):
    if a.dtype.kind == "c":
        return np.angle(a)
    # real inputs: 0 or pi (NaN stays NaN), in the input's dtype
    return np.where(np.isnan(a), a, np.where(a < 0, np.asarray(math.pi, a.dtype),
                                             np.zeros((), a.dtype)))


def _polar_kernel(r, theta):
    if r.dtype != theta.dtype or r.dtype.kind != "f":
        raise RuntimeError(f"polar(): expected both inputs to be Half, Float or Double tensors "
                           f"of the same dtype but got {_tname(r)} and {_tname(theta)}")
    r, theta = np.broadcast_arrays(r, theta)
    out = np.empty(r.shape, np.result_type(r.dtype, np.complex64))
    out.real = r * np.cos(theta)
    out.imag = r * np.sin(theta)
    return out


def _complex_kernel(re, im):
    if re.dtype != im.dtype or re.dtype.kind != "f":
        raise RuntimeError(f"complex(): expected both inputs to be Half, Float or Double tensors "
                           f"of the same dtype but got {_tname(re)} and {_tname(im)}")
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real = re
    out.imag = im
    return out
