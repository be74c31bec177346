"""NumPy kernels of the pointwise_binary family: remainder, atan2, hypot, lerp,
addcmul/addcdiv, clamp.

Functions of ndarrays; the entries that use them are in ops/derivatives/pointwise_binary.py,
the public functions in ops/api/pointwise_binary.py.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import no_bool
from ..._core.opmath import half_in_float32, BFLOAT16 as _BF16
from .pointwise import _floats_only, _int_zero_check, _no_complex, _tname


def _max_min_kernel(name, ufunc):
    def kernel(a, b):
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return ufunc(b, a)  # (between 0.0 and -0.0 NumPy returns its second operand,
        # PyTorch self: maximum(-0.0, 0.0) is -0.0)
    return kernel


def _fmod_kernel(a, b):
    _no_complex("fmod", a)
    no_bool("fmod_cpu", a)
    if a.dtype.kind in "iub":
        _int_zero_check(np.asarray(b))
    return np.fmod(a, b)


def _remainder_kernel(a, b):
    _no_complex("remainder", a)
    no_bool("remainder_cpu", a)
    if a.dtype.kind in "iub":
        _int_zero_check(np.asarray(b))
        return np.remainder(a, b)
    # PyTorch's: fmod, then the divisor added where the sign is wrong, so a zero keeps the
    # dividend's sign (NumPy's remainder gives it the divisor's: 1 / (3.0 % -1.5) was -inf)
    r = np.fmod(a, b)
    fix = (r != 0) & ((np.asarray(b) < 0) != (r < 0))
    if fix.any():
        r = np.where(fix, r + b, r)
    return np.asarray(r, dtype=a.dtype) if np.ndim(r) == 0 else r


def _atan2_kernel(a, b):
    _no_complex("atan2", a)
    return np.arctan2(a, b)


def _hypot_kernel(a, b):
    _floats_only("hypot", a)
    return np.hypot(a, b)


@half_in_float32
def _lerp_kernel(a, end, weight):
    if a.dtype.kind not in "fcV":
        raise NotImplementedError(f'"lerp_kernel_scalar" not implemented for \'{_tname(a)}\'')
    # PyTorch's two-sided form: exact at weight 0 and at weight 1
    diff = end - a
    small = np.abs(weight) < 0.5
    if np.ndim(small) == 0 and not isinstance(small, np.ndarray):
        return a + weight * diff if small else end - diff * (1 - weight)
    return np.where(small, a + weight * diff, end - diff * (1 - weight))


def _addcdiv_check(t1, t2):
    if t1.dtype.kind in "iub" and t2.dtype.kind in "iub":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. Use "
            "addcmul(input, tensor1, 1 / tensor2, value=value) (or convert to float) instead.")


@half_in_float32
def _addcdiv_kernel(a, t1, t2, value):
    _addcdiv_check(t1, t2)
    return a + value * (t1 / t2)


@half_in_float32
def _addcmul_kernel(a, t1, t2, value):
    no_bool("addcmul_cpu_out", a)
    return a + value * (t1 * t2)


# ------------------------------------------------------------ clamp
@half_in_float32
def _clamp_kernel(a, min, max):  # noqa: A002
    if a.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if isinstance(min, np.ndarray) and isinstance(max, np.ndarray):
        no_bool("clamp_cpu", a)
    # (operands swapped: at a tie of 0.0 and -0.0 NumPy returns the second, PyTorch keeps
    # the input: relu(-0.0) and clamp(-0.0, min=0) are -0.0)
    if min is None:
        return np.minimum(max, a)
    if max is None:
        return np.maximum(min, a)
    return np.minimum(max, np.maximum(min, a))


# ============================================================ logaddexp / xlogy
@half_in_float32
def _logaddexp_kernel(a, b):
    if a.dtype.kind in "iub" or b.dtype.kind in "iub":
        raise NotImplementedError(f'"logaddexp_cpu" not implemented for \'{_tname(a)}\'')
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return np.logaddexp(a, b)
    # complex: the larger real part first, log1p of the rest
    a, b = np.broadcast_arrays(a, b)
    big = np.where(a.real >= b.real, a, b)
    small = np.where(a.real >= b.real, b, a)
    with np.errstate(all="ignore"):
        r = big + np.log1p(np.exp(small - big))
    return np.where(np.isinf(big.real) & (a == b), a, r)


def _xlogy_kernel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise NotImplementedError(f'"xlogy_cpu" not implemented for \'{_tname(a)}\'')
    with np.errstate(all="ignore"):
        if a.dtype.itemsize == 2 and a.dtype.kind == "f" or a.dtype == _BF16:
            # half precision: PyTorch rounds log(y) to the half type, multiplies in
            # float32 and rounds again
            hl = np.log(b.astype(np.float32)).astype(a.dtype).astype(np.float32)
            r = (a.astype(np.float32) * hl).astype(a.dtype)
        else:
            r = np.asarray(a * np.log(b))
    # PyTorch: 0 where x == 0, unless y is NaN
    return np.where((a == 0) & ~np.isnan(b), np.zeros((), r.dtype), r)
