"""float16 and bfloat16 kernels computed in float32, the way PyTorch computes them.

PyTorch computes an op on float16 or bfloat16 tensors in float32 (its "opmath" type) and
rounds the result to the tensor's dtype once.  NumPy's float16 ufuncs round after every
elementary step, so a kernel made of several NumPy calls (softmax, layer_norm, gelu,
avg_pool2d, a convolution, lerp, ...) rounds several times: results several float16 steps
from PyTorch's (``gelu(approximate='tanh')`` 14 % off near -3).  NumPy with ml_dtypes does
not keep bfloat16 by itself either: a bfloat16 array combined with a Python float promotes
to float32 or float64 (NumPy's weak-scalar rule does not reach ml_dtypes' types), and some
kernels have no bfloat16 loop at all (``einsum``).  ``half_in_float32`` wraps a NumPy
kernel so that its float16/bfloat16 array operands are computed in float32 and its
floating results rounded back to the first operand's dtype once; any other dtype goes
straight to the kernel after two dtype tests.

Kernels whose arithmetic is one NumPy ufunc on tensor operands (the generated operators)
need no wrapper: NumPy computes a float16 or bfloat16 ufunc in float32 and rounds once
already.  Nor do the few that PyTorch itself computes step by step in the half type
(``logit``).  Kernels that depend on the dtype's own limits (``nan_to_num``'s default
infinities) must not be wrapped: they would see float32's.
"""
from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

__all__ = ["BFLOAT16", "FLOAT16", "float16_via_float64", "half_in_float32", "half_with_number",
           "number_like"]

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)   # (every bfloat16 array's dtype is this object)
FLOAT16 = np.dtype(np.float16)
_FLOAT32 = np.dtype(np.float32)
_BF16_SCALAR = ml_dtypes.bfloat16
_ndarray = np.ndarray


def _to_float32(x):
    if x.__class__ is _ndarray and (x.dtype is BFLOAT16 or x.dtype is FLOAT16):
        return x.astype(_FLOAT32)
    return x


_FLOAT64 = np.dtype(np.float64)


def float16_via_float64(ufunc):
    """The kernel of a one-input transcendental ufunc (sin, exp, log10, ...) whose float16
    results do not depend on the CPU: NumPy computes float16 sin, cos, exp, ... with
    AVX-512 (SVML) loops where the CPU has them and with other code elsewhere, and the two
    round a few of the 65,536 float16 inputs to neighbouring values (float16 sin's
    gradient was one step from PyTorch's on an AVX-512 machine only).  Computed in
    float64 (correct to far below a float16 step on every path) and rounded through
    float32, as PyTorch rounds its float32 result.  Other dtypes go straight to the
    ufunc; the generated fast paths call ``.raw`` and test for float16 themselves."""
    def kernel(a):
        if a.__class__ is _ndarray and a.dtype is FLOAT16:
            return ufunc(a.astype(_FLOAT64)).astype(_FLOAT32).astype(FLOAT16)
        return ufunc(a)
    kernel.raw = ufunc
    kernel.__name__ = kernel.__qualname__ = getattr(ufunc, "__name__", "kernel")
    return kernel


def _float16_via_float32(x):
    return np.float16(np.float32(x))


def _round_to(r, dt):
    if r.__class__ is tuple:
        return tuple(_round_to(v, dt) for v in r)
    if isinstance(r, (_ndarray, np.generic)) and r.dtype.kind == "f":
        return np.asarray(r).astype(dt)
    return r   # integer, bool or complex results (indices, masks) keep their dtype


def half_in_float32(kernel=None, *, float16=True, round_scalars=False):
    """Wrap ``kernel`` (a decorator): when its first operand is a float16 or bfloat16
    array, every float16/bfloat16 array operand is cast to float32, the kernel runs, and
    its float results are rounded to the first operand's dtype.  The first operand
    decides: by then an op's tensor operands share one dtype (promoted, or checked by the
    public function).

    float16=False: float16 goes straight to the kernel (NumPy's float16 steps), for a
    kernel PyTorch computes step by step in float16 but in float32 for bfloat16
    (``smooth_l1_loss``, measured bit for bit against PyTorch).

    round_scalars: Python float operands are first rounded to the half type (a float16
    one through float32, as ``c10::Half`` does), for the ops where PyTorch takes its
    number arguments in the tensor's dtype (``add``/``sub``'s alpha, ``pow``'s exponent
    or base, ``rsub``'s minuend); elsewhere (slopes, ``value``, weights, ``beta``) it
    takes them in float32, as the plain wrapper does."""
    if kernel is None:
        return functools.partial(half_in_float32, float16=float16,
                                 round_scalars=round_scalars)
    f16 = FLOAT16 if float16 else None

    @functools.wraps(kernel)
    def wrapped(a, *rest):
        if a.__class__ is not _ndarray:
            return kernel(a, *rest)
        dt = a.dtype
        if dt is not BFLOAT16 and dt is not f16:
            return kernel(a, *rest)
        if round_scalars:
            rnd = _BF16_SCALAR if dt is BFLOAT16 else _float16_via_float32
            rest = [float(rnd(x)) if x.__class__ is float else _to_float32(x) for x in rest]
        else:
            rest = [_to_float32(x) for x in rest]
        return _round_to(kernel(a.astype(_FLOAT32), *rest), dt)
    return wrapped


def half_with_number(ufunc):
    """``ufunc(a, number)`` for a float16 or bfloat16 array ``a`` and a Python float or int, as
    PyTorch's mul/div compute it: in float32, the number taken in float32 (not rounded to
    ``a``'s dtype first, as NumPy would), the result rounded once to ``a``'s dtype."""
    def kernel(a, b):
        return ufunc(a.astype(_FLOAT32), b if b.__class__ is float else float(b)).astype(a.dtype)
    kernel.__name__ = kernel.__qualname__ = f"half_with_number({ufunc.__name__})"
    return kernel


def number_like(x, like):
    """A Python float ``x`` (a bound, a threshold) in the dtype of ``like`` when that is a
    bfloat16 array: PyTorch compares a bfloat16 tensor with a number in bfloat16, NumPy
    would compare in float64 (and miss elements equal to the rounded number, such as the
    results of a clamp to it).  Native dtypes already compare in their own (NEP 50)."""
    if x.__class__ is float and like.__class__ is _ndarray and like.dtype is BFLOAT16:
        return _BF16_SCALAR(x)
    return x
