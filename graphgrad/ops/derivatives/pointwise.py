"""The table, pointwise family: arithmetic, pow, exp/log/trig, sigmoid/tanh/relu,
clone/_to_copy.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/pointwise.py, public functions in ops/api/pointwise.py.
"""
from __future__ import annotations

import cmath
import math
import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from . import ZERO
from ..._core.opmath import half_in_float32, half_with_number, float16_via_float64 as _f16
from ..registry import ELEMENTWISE, LINEAR, POINTWISE, defop
from ..kernels.pointwise import (
    _add_alpha, _clone_kernel, _div_mode_kernel, _rpow_kernel, _negative, _no_bool_sub,
    _pow_kernel, _pow_tensors, _reciprocal_kernel, _relu_kernel, _rsubtract, _sigmoid, _subtract,
    _subtract_alpha, _threshold_backward_kernel, _to_copy_kernel)


# ============================================================ binary arithmetic
ADD = defop("add(self, other)", np.add, "AddBackward0", promote=True,
            self=lambda grad: grad, other=lambda grad: grad, jvp=LINEAR, batched_jvp=POINTWISE)
ADD_ALPHA = defop("add_alpha(self, other, *, alpha)", _add_alpha,
                  "AddBackward0", promote=True,
                  self=lambda grad: grad,
                  other=lambda grad, alpha: grad * F.conj(alpha), jvp=LINEAR,
                  batched_jvp=POINTWISE)
SUB = defop("sub(self, other)", _subtract, "SubBackward0", promote=True,
            check_inputs=_no_bool_sub, self=lambda grad: grad, other=lambda grad: -grad,
            jvp=LINEAR, batched_jvp=POINTWISE)
SUB_ALPHA = defop("sub_alpha(self, other, *, alpha)", _subtract_alpha,
                  "SubBackward0", promote=True, check_inputs=_no_bool_sub,
                  self=lambda grad: grad,
                  other=lambda grad, alpha: -grad * F.conj(alpha), jvp=LINEAR,
                  batched_jvp=POINTWISE)
RSUB = defop("rsub(self, *, other)", _rsubtract, "RsubBackward1",
             self=lambda grad: -grad, jvp=lambda self_t: -self_t, batched_jvp=POINTWISE)
_ndarray = np.ndarray
# a float16/bfloat16 tensor times or divided by a Python float: computed in float32, the
# number taken in float32 (not rounded to the tensor's dtype first), rounded once; in the
# forward (the entries' half_scalar_kernel) and in the backward alike
_half_mul = half_with_number(np.multiply)
_half_div = half_with_number(np.true_divide)


def _mul_self_vjp(grad, other):
    if other.__class__ is float or other.__class__ is int:  # (real: no conj)
        if grad.__class__ is _ndarray and grad.dtype.itemsize == 2:  # float16, bfloat16
            return _half_mul(grad, other)
        return grad * other
    return grad * F.conj(other)


def _div_self_vjp(grad, other):
    if other.__class__ is float or other.__class__ is int:  # (real: no conj)
        if grad.__class__ is _ndarray and grad.dtype.itemsize == 2:  # float16, bfloat16
            return _half_div(grad, other)
        return grad / other
    return grad / F.conj(other)


def _mul_jvp(self_t, other_t, self, other):
    # an operand without a tangent adds nothing: x * 0.5 at x = -inf has tangent 0.5 * x_t,
    # not NaN from -inf * 0 (PyTorch's zero tangent is a ZeroTensor)
    if F.absent(other_t):
        return F.plus(self_t * other, F.absent_term(self))
    if F.absent(self_t):
        return F.plus(self * other_t, F.absent_term(other))
    return self_t * other + self * other_t


def _div_jvp(self_t, other_t, self, other, result):
    if F.absent(other_t):
        return F.plus(self_t / other, F.absent_term(result))
    if F.absent(self_t):
        return -other_t * result / other
    return (self_t - other_t * result) / other


MUL = defop("mul(self, other)", np.multiply, "MulBackward0", promote=True,
            half_scalar_kernel=_half_mul, self=_mul_self_vjp,
            other=lambda grad, self: grad * F.conj(self),
            jvp=_mul_jvp, batched_jvp=POINTWISE)
def _div_other_vjp(grad, self, other):
    """-grad * conj(self / other / other), the quotient made first as PyTorch's compiled
    formula evaluates it (under create_graph that numbers its nodes: NOTE [VJP order])."""
    q = F.conj(self / other / other)
    return -grad * q


DIV = defop("div(self, other)", np.true_divide, "DivBackward0", promote="float",
            half_scalar_kernel=_half_div, self=_div_self_vjp,
            other=_div_other_vjp,
            jvp=_div_jvp, batched_jvp=POINTWISE)
NEG = defop("neg(self)", _negative, "NegBackward0", self=lambda grad: -grad, jvp=LINEAR,
            batched_jvp=POINTWISE)
RECIPROCAL = defop("reciprocal(self)", _reciprocal_kernel, "ReciprocalBackward0",
                   promote="float",
                   self=lambda grad, result: -grad * F.conj(result * result), jvp=ELEMENTWISE)


def _pow_scalar_vjp(grad, self, exponent):
    if (exponent.__class__ is int or exponent.__class__ is float) and exponent == 2 and \
            self.__class__ is np.ndarray and grad.__class__ is np.ndarray and \
            (self.dtype == np.float64 or self.dtype == np.float32):
        # x ** 2: self ** 1 is self, so the general formula's value without its NumPy calls
        return grad * (self * 2.0)
    if exponent == 0:
        return F.zeros_like(grad * self)
    if exponent == 0.5 and not F.is_complex(self):  # x ** -0.5 is rsqrt (see _pow_in_opmath)
        return grad * (0.5 * F.pow(self, -0.5))
    return grad * F.conj(exponent * self ** (exponent - 1))


def _exponent_nonneg(exponent):
    """``exponent >= 0``; a complex exponent counts when it is real and >= 0 (PyTorch's
    condition; NumPy would order complex numbers lexicographically, PyTorch refuses)."""
    if F.is_complex(exponent):
        return (F.imag(exponent) == 0) & (F.real(exponent) >= 0)
    return exponent >= 0


def _like_result(self, result):
    """``self`` in the result's dtype: log of a negative real base under a complex exponent
    is complex (PyTorch casts the base to the promoted dtype before its log)."""
    rd = result._data.dtype if isinstance(result, Tensor) else result.dtype
    sd = self._data.dtype if isinstance(self, Tensor) else self.dtype
    return self if sd == rd else F.cast(self, rd)


def _pow_exponent_vjp(grad, self, exponent, result):
    # d/dy x**y = x**y log x, defined as 0 where x == 0 and y >= 0 (PyTorch's choice)
    cond = (self == 0) & _exponent_nonneg(exponent)
    return grad * F.where(cond, 0.0, F.conj(result * F.log(_like_result(self, result))))


def _pow_self_vjp(grad, self, exponent):
    # 0 where the exponent is 0, whatever the base (PyTorch's pow_backward_self): x**0 is
    # constant, though 0 * 0**-1 would be NaN
    return F.where(exponent == 0, 0, grad * F.conj(exponent * self ** (exponent - 1)))


def _pow_jvp(self_t, exponent_t, self, exponent, result):
    # PyTorch's: the two VJPs applied to the tangents; an input without a tangent adds
    # nothing (its zero tangent times log(x) or x**(y-1) could be NaN)
    # nothing; each term is projected on its input's kind first, as PyTorch's VJPs are
    # (handle_r_to_c): a real input's term is real even when the result is complex
    if F.absent(exponent_t):
        r = F.conj(F.real_if(_pow_self_vjp(F.conj(self_t), self, exponent),
                             not F.is_complex(self)))
        return F.plus(r, F.absent_term(self, exponent, result))
    e = F.conj(F.real_if(_pow_exponent_vjp(F.conj(exponent_t), self, exponent, result),
                         not F.is_complex(exponent)))
    if F.absent(self_t):
        return F.plus(e, F.absent_term(self, exponent))
    return F.conj(F.real_if(_pow_self_vjp(F.conj(self_t), self, exponent),
                            not F.is_complex(self))) + e


POW = defop("pow(self, *, exponent)", _pow_kernel, "PowBackward0",
            self=_pow_scalar_vjp, jvp=ELEMENTWISE)


POW_T = defop("pow.Tensor_Tensor(self, exponent)", _pow_tensors, "PowBackward1", promote=True,
              # (the result is saved for either edge, as PyTorch saves it: modifying it in
              # place before backward is an error there even when only the base needs a grad)
              self=lambda grad, self, exponent, result: _pow_self_vjp(grad, self, exponent),
              exponent=_pow_exponent_vjp, jvp=_pow_jvp,
              batched_jvp=POINTWISE)


def _rpow_vjp(grad, exponent, self, result):
    # d/dy b**y = b**y log b for a number b; log is taken in the exponent's kind: a negative
    # base gives NaN for a real exponent, log|b| + pi i for a complex one (as PyTorch)
    base = self
    if F.is_complex(exponent) and not isinstance(base, complex):
        base = complex(base)
    if base == 0:  # log 0 = -inf; 0 where the exponent is real and >= 0
        return grad * F.where(_exponent_nonneg(exponent), 0.0, F.conj(result * -math.inf))
    if isinstance(base, complex):
        lg = cmath.log(base)
    else:
        lg = math.log(base) if base > 0 else math.nan
    return grad * F.conj(result * lg)


POW_S = defop("pow.Scalar(exponent, *, self)", half_in_float32(_rpow_kernel, round_scalars=True),
              "PowBackward2",
              exponent=_rpow_vjp, jvp=ELEMENTWISE)


# ============================================================ rounding division, shared checks
def _zero_jvp(self_t, other_t):
    return F.zeros_like(self_t + other_t)


# rounding division is piecewise constant: its gradient is zero (PyTorch's choice)
DIV_MODE = defop("div.Tensor_mode(self, other, *, rounding_mode)", _div_mode_kernel,
                 "DivBackward2", promote=True,
                 self=ZERO, other=ZERO,
                 jvp=_zero_jvp, batched_jvp=POINTWISE)


# ============================================================ unary
EXP = defop("exp(self)", _f16(np.exp), "ExpBackward0", promote="float",
            self=lambda grad, result: grad * F.conj(result), jvp=ELEMENTWISE)
LOG = defop("log(self)", _f16(np.log), "LogBackward0", promote="float",
            self=lambda grad, self: grad / F.conj(self), jvp=ELEMENTWISE)
SIN = defop("sin(self)", _f16(np.sin), "SinBackward0", promote="float",
            self=lambda grad, self: grad * F.conj(F.cos(self)), jvp=ELEMENTWISE)
COS = defop("cos(self)", _f16(np.cos), "CosBackward0", promote="float",
            self=lambda grad, self: grad * -F.conj(F.sin(self)), jvp=ELEMENTWISE)
TANH = defop("tanh(self)", _f16(np.tanh), "TanhBackward0", promote="float",
             self=F.tanh_vjp, jvp=ELEMENTWISE)


@half_in_float32(float16=False)  # (float16: PyTorch's kernel rounds each step, measured)
def _sigmoid_backward_kernel(grad_output, output):
    if output.dtype.kind == "c":
        return grad_output * np.conj((1 - output) * output)
    return grad_output * (1 - output) * output  # (PyTorch's order)


def _sigmoid_vjp(grad, result):
    if grad.__class__ is np.ndarray and result.__class__ is np.ndarray:
        return _sigmoid_backward_kernel(grad, result)
    # (recorded as PyTorch's sigmoid_backward op: its derivative by the result is
    # grad * (1 - 2 r), where the product rule of grad * r * (1 - r) would give
    # inf - inf = NaN for an infinite incoming gradient)
    return F.sigmoid_backward(grad, result)


def _sigmoid_backward_output_vjp(grad, grad_output, output):
    return F.conj(grad) * grad_output * (-2 * F.conj(output) + 1)


SIGMOID = defop("sigmoid(self)", _sigmoid, "SigmoidBackward0", promote="float",
                self=_sigmoid_vjp, jvp=ELEMENTWISE)
SIGMOID_BACKWARD = defop(
    "sigmoid_backward(grad_output, output)", _sigmoid_backward_kernel,
    "SigmoidBackwardBackward0", promote=True,
    grad_output=lambda grad, output: F.sigmoid_backward(grad, F.conj(output)),
    output=_sigmoid_backward_output_vjp,
    jvp=lambda grad_output_t, output_t, grad_output, output:
        F.sigmoid_backward(grad_output_t, output)
        + _sigmoid_backward_output_vjp(output_t, grad_output, output),
    batched_jvp=POINTWISE)


# PyTorch's threshold_backward, an op of its own so that relu's gradient under create_graph
# depends on relu's result (and so requires grad; its derivative there is zero)
THRESHOLD_BACKWARD = defop(
    "threshold_backward(grad_output, self, *, threshold)", _threshold_backward_kernel,
    "ThresholdBackwardBackward0",
    grad_output=lambda grad, self, threshold: F.threshold_backward(grad, self, threshold),
    self=ZERO,
    jvp=lambda grad_output_t, self, threshold:
        F.threshold_backward(grad_output_t, self, threshold), batched_jvp=POINTWISE)
RELU = defop("relu(self)", _relu_kernel, "ReluBackward0",
             self=lambda grad, result: F.threshold_backward(grad, result, 0), jvp=ELEMENTWISE)


# ============================================================ complex parts, copies, casts
CONJ_PHYSICAL = defop("conj_physical(self)", np.conj, "ConjPhysicalBackward0",
                      self=lambda grad: F.conj_physical(grad), jvp=LINEAR,
                      batched_jvp=POINTWISE)
# the engine casts the real gradient back to the complex input's dtype
# real(z) is a view of z's real part (NumPy's .real of a complex array is a view)
REAL = defop("real(self)", np.real, "RealBackward0", is_view=True, self=lambda grad: grad,
             jvp=LINEAR, batched_jvp=POINTWISE)


CLONE = defop("clone(self)", _clone_kernel, "CloneBackward0", self=lambda grad: grad,
              jvp=LINEAR, batched_jvp=POINTWISE)
# clone(memory_format=contiguous_format): the copy is row-major whatever the input's layout
CLONE_CONTIGUOUS = defop("clone.contiguous(self)", lambda a: np.array(a, order="C"),
                         "CloneBackward0", self=lambda grad: grad, jvp=LINEAR,
                         batched_jvp=POINTWISE)


TO_COPY = defop("_to_copy(self, *, dtype)", _to_copy_kernel, "ToCopyBackward0",
                self=lambda grad: grad, jvp=LINEAR, batched_jvp=POINTWISE)
