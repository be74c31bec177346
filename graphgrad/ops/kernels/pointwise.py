"""NumPy kernels of the pointwise family: arithmetic, pow, exp/log/trig, sigmoid/tanh/relu,
clone/_to_copy.

Functions of ndarrays; the entries that use them are in ops/derivatives/pointwise.py, the
public functions in ops/api/pointwise.py.
"""
from __future__ import annotations

import math
import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ..dispatch import follow_layout
from ..._core.opmath import BFLOAT16, half_in_float32


# ============================================================ binary arithmetic
def _is_bool(x):
    if x.__class__ is bool:
        return True
    d = x._data if isinstance(x, Tensor) else x
    return isinstance(d, np.ndarray) and d.dtype == np.bool_


def _no_bool_sub(operands):
    """PyTorch refuses ``-`` on bool tensors (a Python bool counts as one)."""
    n = sum(1 for x in operands if x is not None and _is_bool(x))
    if n == 2:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if n:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _subtract(a, b):
    if a.dtype == np.bool_ or _is_bool(b):  # (mixed with other dtypes: see check_inputs)
        _no_bool_sub((a, b))
    return np.subtract(a, b)


# float16 and bfloat16: computed in float32 and rounded once, as PyTorch does; it rounds the
# Python numbers of these ops (alpha, exponent, base, rsub's minuend) to the half type first
@half_in_float32(round_scalars=True)
def _subtract_alpha(a, b, alpha):
    if a.dtype == np.bool_ or _is_bool(b):
        _no_bool_sub((a, b))
    return _into_scaled(np.subtract, a, alpha * b)


@half_in_float32(round_scalars=True)
def _add_alpha(a, b, alpha):
    # (an int alpha would turn bool operands into int64: the result keeps the operands' dtype)
    r = _into_scaled(np.add, a, alpha * b)
    return r if r.dtype == a.dtype else r.astype(a.dtype)


def _into_scaled(ufunc, a, t):
    """``ufunc(a, t)`` for ``t = alpha * b``, written into ``t`` when it is a fresh array of
    the result's shape and dtype: one temporary instead of two (``p.sub_(grad, alpha=lr)``,
    an SGD update, allocated twice the parameter's size)."""
    if t.__class__ is np.ndarray and t.shape == np.broadcast_shapes(np.shape(a), t.shape) \
            and np.result_type(a, t) == t.dtype:
        return ufunc(a, t, out=t)
    return ufunc(a, t)


@half_in_float32(round_scalars=True)
def _rsubtract(a, other):
    if a.dtype == np.bool_ or _is_bool(other):
        _no_bool_sub((a, other))
    return other - a


def _negative(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return np.negative(a)


def _reciprocal_kernel(a):
    """1 / a. A complex a is divided into 1 (PyTorch's complex reciprocal is the division
    1 / a): 1 / 0 is inf+nanj there, NumPy's np.reciprocal gives nan+nanj (and -0j for 1 /
    inf, 0j in PyTorch), which a mask |1 / a| > 1 then read differently (fuzz seeds
    1013339, 1144944: rsqrt of a complex 0)."""
    if a.dtype.kind == "c":
        return np.true_divide(1, a)
    return np.reciprocal(a)


def _power(a, b, order="K"):
    """np.power, with a float32 result of fewer than 32 elements computed in float64 and
    rounded once: NumPy's float32 power is an ulp off in about a fifth of its results
    (0.052 ** -6.19 is 89914752, the correctly rounded 89914744: fuzz seed 1647689), where
    PyTorch's scalar loop (glibc's powf), which takes all of a tensor that short, is
    correctly rounded. A longer one is PyTorch's vectorised loop, itself within an ulp,
    and keeps NumPy's vectorised power (the float64 one is ~7x slower)."""
    if np.result_type(a, b) == np.float32 and np.size(a) < 32 and np.size(b) < 32:
        # (as PyTorch's: a Python number base is a float32 first, a Python number
        # exponent is taken in double)
        a64 = np.asarray(a, np.float32).astype(np.float64)
        b64 = np.asarray(b, np.float64)
        with np.errstate(over="ignore"):  # (beyond float32's range: inf, as powf's)
            return np.power(a64, b64, order=order).astype(np.float32)
    return np.power(a, b, order=order)


@half_in_float32(round_scalars=True)
def _pow_in_opmath(a, b):
    if b.__class__ is bool and a.dtype == np.bool_:  # bool ** bool stays bool (NumPy: int8)
        return a.copy() if b else np.ones_like(a)
    if isinstance(b, (int, float)) and a.dtype.kind in "iu" and b < 0 and isinstance(b, int):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if b.__class__ is float and b == -0.5 and a.dtype.kind == "f":
        # PyTorch computes x ** -0.5 as rsqrt(x): NaN at -inf, where C's pow gives 0
        return np.reciprocal(np.sqrt(a))
    if a.dtype.kind == "c" and (b.__class__ is float or b.__class__ is int):
        # PyTorch's complex z ** 0.5, -0.5 and -1 are sqrt, rsqrt and reciprocal (1 / z):
        # at 0 and infinities their special values, not the power's (0 ** -1 is inf+nanj
        # there, NumPy's power nan+nanj)
        if b == 0.5:
            return np.sqrt(a)
        if b == -0.5:
            return _reciprocal_kernel(np.sqrt(a))
        if b == -1:
            return _reciprocal_kernel(a)
    return _power(a, b)


def _pow_kernel(a, b):
    if (b.__class__ is int or b.__class__ is float) and b == 2 and \
            a.__class__ is np.ndarray and (a.dtype == np.float64 or a.dtype == np.float32):
        return np.square(a)  # (what np.power does for 2, without the opmath wrapper)
    # PyTorch's bfloat16 x**3 and x**-2 are products rounded step by step: (x*x)*x, 1/(x*x)
    if (b.__class__ is int or b.__class__ is float) and (b == 3 or b == -2) and \
            a.__class__ is np.ndarray and a.dtype is BFLOAT16:
        sq = np.multiply(a, a)  # (bfloat16 ufuncs round each result)
        return np.multiply(sq, a) if b == 3 else np.reciprocal(sq)
    return _pow_in_opmath(a, b)


def _pow_tensors(a, b):
    """``a ** b`` elementwise; integer tensors take PyTorch's integer power, where a negative
    exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise (NumPy raises)."""
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if b.dtype.kind in "iu" and a.dtype.kind in "iu":
        neg = b < 0
        if neg.any():
            r = np.power(a, np.where(neg, 0, b))
            odd = (b % 2) != 0
            special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
            return np.where(neg, special, r).astype(r.dtype)
    r = _power(a, b)
    if b.dtype.kind == "f" and r.size:
        half = b == 0.5
        if half.any():
            # an exponent tensor is PyTorch's elementwise std::pow: (-inf) ** 0.5 = inf,
            # (-0.0) ** 0.5 = 0.0, where NumPy takes an exponent 0.5 that is constant
            # along its inner loop (one element, or broadcast along a row) as sqrt (NaN,
            # -0.0)
            fix = half & ((a == 0) | np.isneginf(a))
            if fix.any():
                r = np.where(fix, np.where(a == 0, 0.0, np.inf), r).astype(r.dtype)
    return _complex_zero_pow(a, b, r)


def _complex_zero_pow(a, b, r):
    """PyTorch's complex pow with a tensor exponent is exp(b log a): 0 ** 0 is NaN there
    (NumPy gives 1)."""
    if r.dtype.kind == "c":
        z = (a == 0) & (b == 0)
        if z.any():
            r = np.where(z, r.dtype.type(complex(math.nan, math.nan)), r)
    return r


def _rpow_kernel(e, s):
    """``s ** e`` for a Python number base ``s``.  A base of 1 gives ones, whatever the
    exponent (NaN, inf, complex), as PyTorch fills them: exactly 1 + 0j, where NumPy's
    complex power gives NaN or a negative zero imaginary part. The result is row-major
    whatever the exponent's layout: PyTorch computes it into a fresh output (fuzz seed
    1171109: a view of a clone of 0.5 ** t.transpose(0, 1))."""
    if s == 1:
        return np.ones(e.shape, e.dtype)
    return _complex_zero_pow(s, e, _power(s, e, order="C"))


# ============================================================ rounding division, shared checks
def _tname(a):
    return scalar_type_name(np.asarray(a).dtype)


def _no_complex(name, *arrays):
    """PyTorch's error for real-only kernels called on complex (or other) dtypes."""
    for a in arrays:
        if getattr(a, "dtype", None) is not None and a.dtype.kind == "c":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_tname(a)}\'')


def _floats_only(name, *arrays):
    for a in arrays:
        if getattr(a, "dtype", None) is not None and a.dtype.kind not in "fV":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_tname(a)}\'')


def _int_zero_check(b):
    if b.dtype.kind in "iu" and not np.all(b):
        raise RuntimeError("ZeroDivisionError (integer division or modulo by zero)")


def _div_mode_kernel(a, b, rounding_mode):
    _no_complex("div_" + rounding_mode, a)
    if a.dtype.kind == "b":
        raise NotImplementedError(f'"div_{rounding_mode}_cpu" not implemented for \'Bool\'')
    if a.dtype.kind in "iu":
        _int_zero_check(b)
        q = np.floor_divide(a, b)
        if rounding_mode == "trunc":  # C division: round toward zero
            q = q + ((q * b != a) & ((a < 0) != (b < 0)))
        return q
    if rounding_mode == "trunc":
        return np.trunc(np.true_divide(a, b))
    return np.floor_divide(a, b)  # fmod-based and exact, as PyTorch's div_floor


# ============================================================ unary
@half_in_float32
def _sigmoid(a):
    # numerically stable for large |a|: exp never overflows
    out = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + out), out / (1 + out)).astype(a.dtype, copy=False) \
        if a.dtype.kind != "c" else 1 / (1 + np.exp(-a))


def _relu_kernel(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if a.dtype.kind == "c":  # (NumPy would order complex numbers lexicographically)
        raise NotImplementedError("clamp is not supported for complex types")
    return np.maximum(0, a, dtype=a.dtype)  # (NumPy returns its second operand at a tie:
    # relu(-0.0) is -0.0, as PyTorch's)


def _threshold_backward_kernel(g, a, threshold):
    # a select, not a product with a 0/1 mask: the gradient is 0 where a <= threshold even
    # if g is inf or NaN (sqrt(relu(x)) at x = -1), and a NaN input passes g (PyTorch)
    if g.size > 1024 and (g.dtype == np.float32 or g.dtype == np.float64):
        # the same select as a bitwise AND of g's bits with a mask of all ones (keep) or
        # zeros (+0.0), ~10x faster than np.where on large arrays (its broadcast-scalar
        # path) and exact for every g (inf, NaN, -0.0), in three passes
        bits = np.int32 if g.dtype == np.float32 else np.int64
        mask = np.subtract(np.less_equal(a, threshold), 1, dtype=bits)  # 0 or -1 (keep)
        out = np.empty(np.broadcast_shapes(g.shape, a.shape), g.dtype)
        np.bitwise_and(g.view(bits), mask, out=out.view(bits))
        return out
    return np.where(a <= threshold, g.dtype.type(0), g)


# ============================================================ complex parts, copies, casts
def _clone_kernel(a):
    """A copy laid out as PyTorch's clone (preserve_format) lays it out: a dense input's
    strides, else the dims ordered by their strides, zero strides (expanded dims) telling
    nothing; NumPy's order='K' copy made a clone of x.expand(1, 3, 2) column-major."""
    r = np.copy(a)
    if r.ndim > 1 and not r.flags.c_contiguous:
        return follow_layout(r, (a,))
    return r


def _to_copy_kernel(a, dtype):
    return _dtype.astype(a, dtype.np)  # (a copy)
