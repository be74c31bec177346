"""Pointwise ops: the table entries (forward kernel, VJPs, JVP) and the public functions.

Rules follow PyTorch's derivatives.yaml, including the complex convention
(the gradient is the conjugate Wirtinger derivative: ``grad * conj(f'(z))``).
"""
from __future__ import annotations

import cmath
import math

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..dispatch import binary, dispatch, follow_layout, unary
from ..inplace import check_inplace_numbers, dispatch_inplace
from ..codegen.entries import make_binary_operator, make_unary_function
from ..._core.opmath import BFLOAT16, half_in_float32, half_with_number
from ..._core.opmath import float16_via_float64 as _f16
from ..registry import ELEMENTWISE, LINEAR, POINTWISE, defop, export

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
    return a - alpha * b


@half_in_float32(round_scalars=True)
def _add_alpha(a, b, alpha):
    # (an int alpha would turn bool operands into int64: the result keeps the operands' dtype)
    r = a + alpha * b
    return r if r.dtype == a.dtype else r.astype(a.dtype)


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
# forward (the generated operators' half_scalar_kernel) and in the backward alike
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
            self=_mul_self_vjp,
            other=lambda grad, self: grad * F.conj(self),
            jvp=_mul_jvp, batched_jvp=POINTWISE)
DIV = defop("div(self, other)", np.true_divide, "DivBackward0", promote="float",
            self=_div_self_vjp,
            other=lambda grad, self, other: -grad * F.conj(self / other / other),
            jvp=_div_jvp, batched_jvp=POINTWISE)
MUL.half_scalar_kernel = _half_mul
DIV.half_scalar_kernel = _half_div
NEG = defop("neg(self)", _negative, "NegBackward0", self=lambda grad: -grad, jvp=LINEAR,
            batched_jvp=POINTWISE)
RECIPROCAL = defop("reciprocal(self)", np.reciprocal, "ReciprocalBackward0", promote="float",
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


@half_in_float32(round_scalars=True)
def _pow_in_opmath(a, b):
    if b.__class__ is bool and a.dtype == np.bool_:  # bool ** bool stays bool (NumPy: int8)
        return a.copy() if b else np.ones_like(a)
    if isinstance(b, (int, float)) and a.dtype.kind in "iu" and b < 0 and isinstance(b, int):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if b.__class__ is float and b == -0.5 and a.dtype.kind == "f":
        # PyTorch computes x ** -0.5 as rsqrt(x): NaN at -inf, where C's pow gives 0
        return np.reciprocal(np.sqrt(a))
    return np.power(a, b)


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


POW = defop("pow(self, *, exponent)", _pow_kernel, "PowBackward0",
            self=_pow_scalar_vjp, jvp=ELEMENTWISE)


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
    r = np.power(a, b)
    if b.size == 1 and b.dtype.kind == "f" and r.size and b.reshape(-1)[0] == 0.5:
        # a one-element exponent tensor is still PyTorch's elementwise std::pow: (-inf) **
        # 0.5 = inf, (-0.0) ** 0.5 = 0.0, where NumPy takes a scalar-like exponent 0.5 as
        # sqrt (NaN, -0.0)
        r = np.where(np.isneginf(a), np.inf, np.where(a == 0, 0.0, r)).astype(r.dtype)
    return _complex_zero_pow(a, b, r)


def _complex_zero_pow(a, b, r):
    """PyTorch's complex pow with a tensor exponent is exp(b log a): 0 ** 0 is NaN there
    (NumPy gives 1)."""
    if r.dtype.kind == "c":
        z = (a == 0) & (b == 0)
        if z.any():
            r = np.where(z, r.dtype.type(complex(math.nan, math.nan)), r)
    return r


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


POW_S = defop("pow.Scalar(exponent, *, self)",
              half_in_float32(lambda e, s: _complex_zero_pow(s, e, np.power(s, e)),
                              round_scalars=True),
              "PowBackward2",
              exponent=_rpow_vjp, jvp=ELEMENTWISE)

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


def _rounding_mode(mode):
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{mode}'")
    return mode


def _zero_jvp(self_t, other_t):
    return F.zeros_like(self_t + other_t)


# rounding division is piecewise constant: its gradient is zero (PyTorch's choice)
DIV_MODE = defop("div.Tensor_mode(self, other, *, rounding_mode)", _div_mode_kernel,
                 "DivBackward2", promote=True,
                 self=lambda grad: F.zeros_like(grad), other=lambda grad: F.zeros_like(grad),
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


@half_in_float32
def _sigmoid(a):
    # numerically stable for large |a|: exp never overflows
    out = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + out), out / (1 + out)).astype(a.dtype, copy=False) \
        if a.dtype.kind != "c" else 1 / (1 + np.exp(-a))


@half_in_float32(float16=False)  # (float16: PyTorch's kernel rounds each step, measured)
def _sigmoid_vjp(grad, result):
    if grad.__class__ is np.ndarray and result.__class__ is np.ndarray and \
            result.dtype.kind == "f":
        return grad * (1 - result) * result  # (PyTorch's order)
    return grad * F.conj(result * (1 - result))


SIGMOID = defop("sigmoid(self)", _sigmoid, "SigmoidBackward0", promote="float",
                self=_sigmoid_vjp, jvp=ELEMENTWISE)


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
    if g.size > 1024 and (g.dtype == np.float32 or g.dtype == np.float64) and \
            np.isfinite(g).all():
        # the same select as a product with the 0/1 mask, ~10x faster than np.where on
        # large arrays (its broadcast-scalar path); + 0.0 turns the -0.0 of g < 0 into 0.0
        keep = np.less_equal(a, threshold)
        np.logical_not(keep, out=keep)
        out = np.multiply(g, keep, dtype=g.dtype)
        out += 0.0
        return out
    return np.where(a <= threshold, g.dtype.type(0), g)


# PyTorch's threshold_backward, an op of its own so that relu's gradient under create_graph
# depends on relu's result (and so requires grad; its derivative there is zero)
THRESHOLD_BACKWARD = defop(
    "threshold_backward(grad_output, self, *, threshold)", _threshold_backward_kernel,
    "ThresholdBackwardBackward0",
    grad_output=lambda grad, self, threshold: F.threshold_backward(grad, self, threshold),
    self=lambda grad: F.zeros_like(grad),
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


def _clone_kernel(a):
    """A copy laid out as PyTorch's clone (preserve_format) lays it out: a dense input's
    strides, else the dims ordered by their strides, zero strides (expanded dims) telling
    nothing; NumPy's order='K' copy made a clone of x.expand(1, 3, 2) column-major."""
    r = np.copy(a)
    if r.ndim > 1 and not r.flags.c_contiguous:
        return follow_layout(r, (a,))
    return r


CLONE = defop("clone(self)", _clone_kernel, "CloneBackward0", self=lambda grad: grad,
              jvp=LINEAR, batched_jvp=POINTWISE)
# clone(memory_format=contiguous_format): the copy is row-major whatever the input's layout
CLONE_CONTIGUOUS = defop("clone.contiguous(self)", lambda a: np.array(a, order="C"),
                         "CloneBackward0", self=lambda grad: grad, jvp=LINEAR,
                         batched_jvp=POINTWISE)


def _to_copy_kernel(a, dtype):
    return _dtype.astype(a, dtype.np)  # (a copy)


TO_COPY = defop("_to_copy(self, *, dtype)", _to_copy_kernel, "ToCopyBackward0",
                self=lambda grad: grad, jvp=LINEAR, batched_jvp=POINTWISE)

# ============================================================ public functions
_UNARY = {"exp": EXP, "log": LOG, "sin": SIN, "cos": COS, "tanh": TANH, "sigmoid": SIGMOID,
          "relu": RELU, "neg": NEG, "reciprocal": RECIPROCAL}


def _check_tensor(name, x, pos="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{pos}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _make_unary(name, op):
    fn = make_unary_function(op, name, lambda x: _check_tensor(name, x),
                             lambda r, out: _out(r, out))

    def fn_(self):
        return dispatch_inplace(op, self)
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Elementwise {name} (``graphgrad.{name}``; backward node {op.node_name})."
    export(name)(fn)
    export(name + "_")(fn_)
    return fn


for _n, _op in _UNARY.items():
    globals()[_n] = _make_unary(_n, _op)
negative = export("negative")(globals()["neg"])


def _number_first(name, input, other):
    """``input`` of ``graphgrad.add/sub/mul/div(input, other)`` when it is not a Tensor:
    PyTorch takes a Number there when ``other`` is a Tensor (``torch.sub(2.0, t)`` is
    ``2.0 - t``), as a 0-d tensor of the result's dtype, so ``t``'s dtype is kept."""
    if isinstance(input, Tensor):
        return input
    if isinstance(input, (int, float, bool, complex, np.generic)) and \
            isinstance(other, (Tensor, int, float, bool, complex, np.generic)):
        v = input.item() if isinstance(input, np.generic) else input
        if isinstance(v, bool):  # (a bool stays bool: sub(True, t) raises as PyTorch's)
            return Tensor._wrap(np.asarray(v))
        if not isinstance(other, Tensor):  # (two numbers: a 0-d tensor of their type)
            other = other.item() if isinstance(other, np.generic) else other
        return Tensor._wrap(np.asarray(v, _dtype.result_type(v, other).np))
    _check_tensor(name, input)


def _as_operand(name, x):
    c = x.__class__
    if c is float or c is int or c is bool or c is complex or isinstance(x, Tensor):
        return x
    if isinstance(x, _NP_SCALARS):  # (np.float64 is a float subclass: test it first)
        return x.item()  # a NumPy scalar is a number, as in PyTorch (no dtype of its own)
    if isinstance(x, (int, float, bool, complex)):
        return x
    raise TypeError(f"{name}(): argument 'other' must be Tensor or Number, not {type(x).__name__}")


def _plain_alpha(name, input, other, alpha):
    """Whether ``alpha`` is the int 1 (plain add/sub); else checks it against the result
    dtype with PyTorch's rules (no bool alpha unless the result is bool, no float alpha for
    integral results, no complex alpha for real results)."""
    if alpha.__class__ is int and alpha == 1:
        return True
    if name.startswith("sub"):
        _no_bool_sub((input, other))
    rt = _dtype.result_type(input, other)
    if isinstance(alpha, bool):
        if rt.np != np.bool_:
            raise RuntimeError(f"Boolean alpha only supported for Boolean results. [{name}: "
                               f"pass alpha as a number of the result's dtype, {rt}]")
    elif isinstance(alpha, (float, complex)) and rt.category < 2:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           f"point number. [{name}: the result is {rt}; pass an int alpha]")
    elif isinstance(alpha, complex) and rt.category < 3:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           f"number. [{name}: the result is {rt}]")
    return False


@export()
def add(input, other, *, alpha=1, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("add", input, other)
    other = _as_operand("add", other)
    r = binary(ADD, input, other) if _plain_alpha("add", input, other, alpha) else \
        dispatch(ADD_ALPHA, input, other, alpha)
    return _out(r, out)


@export()
def sub(input, other, *, alpha=1, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("sub", input, other)
    other = _as_operand("sub", other)
    r = binary(SUB, input, other) if _plain_alpha("sub", input, other, alpha) else \
        dispatch(SUB_ALPHA, input, other, alpha)
    return _out(r, out)


subtract = export("subtract")(sub)


@export()
def mul(input, other, *, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("mul", input, other)
    return _out(binary(MUL, input, _as_operand("mul", other)), out)


multiply = export("multiply")(mul)


@export()
def div(input, other, *, rounding_mode=None, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("div", input, other)
    other = _as_operand("div", other)
    if rounding_mode is None:
        return _out(binary(DIV, input, other), out)
    return _out(dispatch(DIV_MODE, input, other, _rounding_mode(rounding_mode)), out)


divide = export("divide")(div)
@export()
def true_divide(input, other, *, out=None):
    return div(input, other, out=out)


@export()
def pow(input, exponent, *, out=None):  # noqa: A001
    if not isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _out(_scalar_pow(_as_operand("pow", input), exponent), out)
        _check_tensor("pow", input)
    if isinstance(exponent, Tensor):
        return _out(binary(POW_T, input, exponent), out)
    exponent = _as_operand("pow", exponent)
    if isinstance(exponent, float) and input._data.dtype.kind in "iub":
        input = input.to(_default_float())
    return _out(dispatch(POW, input, exponent), out)


def _default_float():
    return get_default_dtype()


def _out(r, out):
    """``out=`` of an elementwise op: PyTorch refuses an ``out`` the result cannot be cast
    to (a float result into an int tensor), rather than truncating."""
    if out is None:
        return r
    if isinstance(out, Tensor) and not _dtype.can_cast(r.dtype, out.dtype):
        name = _dtype.scalar_type_name
        raise RuntimeError(f"result type {name(r.dtype)} can't be cast to the desired output "
                           f"type {name(out.dtype)}")
    from .conversion import _write_out
    return _write_out(r, out)


@export()
def add_(self, other, *, alpha=1):
    other = _as_operand("add_", other)
    if _plain_alpha("add_", self, other, alpha):
        return dispatch_inplace(ADD, self, other)
    return dispatch_inplace(ADD_ALPHA, self, other, alpha)


@export()
def sub_(self, other, *, alpha=1):
    other = _as_operand("sub_", other)
    if _plain_alpha("sub_", self, other, alpha):
        return dispatch_inplace(SUB, self, other)
    return dispatch_inplace(SUB_ALPHA, self, other, alpha)


@export()
def mul_(self, other):
    return dispatch_inplace(MUL, self, _as_operand("mul_", other))


@export()
def div_(self, other, *, rounding_mode=None):
    other = _as_operand("div_", other)
    if rounding_mode is not None:
        return dispatch_inplace(DIV_MODE, self, other, _rounding_mode(rounding_mode))
    return dispatch_inplace(DIV, self, other)


@export(function=False)
def true_divide_(self, other):
    return dispatch_inplace(DIV, self, _as_operand("true_divide_", other))


@export()
def pow_(self, exponent):
    if isinstance(exponent, Tensor):
        return dispatch_inplace(POW_T, self, exponent)
    check_inplace_numbers("pow_", self, exponent)
    return dispatch_inplace(POW, self, exponent)


@export()
def clone(input, *, memory_format=None):
    _check_tensor("clone", input)
    if memory_format is not None:
        if check_memory_format("clone", memory_format) is contiguous_format:
            return unary(CLONE_CONTIGUOUS, input)
        r = apply("clone", input, memory_format, copy=True)
        if r is not None:
            return r
    return unary(CLONE, input)


@export()
def conj_physical(input):
    """The conjugate, computed; a real tensor is returned as it is (as in PyTorch)."""
    _check_tensor("conj_physical", input)
    return unary(CONJ_PHYSICAL, input) if input._data.dtype.kind == "c" else input


@export(method=False)
def real(input):
    if input._data.dtype.kind != "c":
        return input
    return unary(REAL, input)


def _need_tensor(name, x, pos, argname):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


# ------------------------------------------------------------ Python operators
def _rsub(self, other):
    if isinstance(other, Tensor):
        return binary(SUB, other, self)
    other = _as_operand("rsub", other)
    if self._data.dtype == np.bool_:
        _no_bool_sub((self, other))
    if self._data.dtype.kind in "iub" and isinstance(other, float):
        self = self.to(_default_float())
    return dispatch(RSUB, self, other)


def _rdiv(self, other):
    if isinstance(other, Tensor):
        return binary(DIV, other, self)
    return binary(MUL, unary(RECIPROCAL, self), _as_operand("rdiv", other))


def _rpow(self, other):
    if isinstance(other, Tensor):
        return binary(POW_T, other, self)
    return _scalar_pow(_as_operand("rpow", other), self)


def _scalar_pow(base, exponent):
    """``base ** exponent`` for a Python number base, in PyTorch's result dtype (a float base
    and an integer exponent give the default dtype; NumPy would give float64)."""
    rt = _dtype.result_type(exponent, base)
    if rt.np == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if rt.np != exponent._data.dtype:
        exponent = exponent.to(rt)
    return dispatch(POW_S, exponent, base)


def _iadd(self, other):
    return add_(self, other)


def _isub(self, other):
    return sub_(self, other)


def _imul(self, other):
    return mul_(self, other)


def _itruediv(self, other):
    return div_(self, other)


_NP_SCALARS = (np.number, np.bool_)


def _pow_operator(self, other):
    """``t ** 2.0``: a Python int or float exponent of a float tensor goes to the op
    directly (what ``pow`` does for it, without its argument checks)."""
    if (other.__class__ is int or other.__class__ is float) and \
            self._data.dtype.kind == "f":
        return dispatch(POW, self, other)
    return pow(self, other)

# ufunc -> (Tensor's operator, its reflected operator)
_UFUNC_OPERATORS = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"), np.true_divide: ("__truediv__", "__rtruediv__"),
    np.power: ("__pow__", "__rpow__"), np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"),
    np.less: ("__lt__", "__gt__"), np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"), np.greater_equal: ("__ge__", "__le__"),
    np.equal: ("__eq__", "__eq__"), np.not_equal: ("__ne__", "__ne__"),
    np.bitwise_and: ("__and__", "__rand__"), np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"),
}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """A NumPy scalar and a Tensor: ``np.float64(1) - t`` is ``1.0 - t``, as in PyTorch.

    Python hands ``t * np.float64(2)`` to NumPy once Tensor's operator declines the scalar,
    and NumPy's scalar operators call this (comparisons pass the scalar as a 0-d array);
    the scalar becomes a Python number (a wrapped number for type promotion: float32 stays
    float32) and the Tensor's own operator runs.  Anything else is refused (TypeError)."""
    names = _UFUNC_OPERATORS.get(ufunc)
    if names is None or method != "__call__" or kwargs or len(inputs) != 2:
        return NotImplemented
    a, b = inputs
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        t, x, name = a, b, names[0]
    elif isinstance(b, Tensor) and not isinstance(a, Tensor):
        t, x, name = b, a, names[1]
    else:
        return NotImplemented
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if not isinstance(x, _NP_SCALARS):
        return NotImplemented
    return getattr(t, name)(x.item())


OPERATORS = {
    "__array_ufunc__": _array_ufunc,
    "__add__": make_binary_operator(ADD, "__add__"),
    "__radd__": make_binary_operator(ADD, "__radd__"),
    "__sub__": make_binary_operator(SUB, "__sub__"),
    "__rsub__": _rsub,
    "__mul__": make_binary_operator(MUL, "__mul__"),
    "__rmul__": make_binary_operator(MUL, "__rmul__"),
    "__truediv__": make_binary_operator(DIV, "__truediv__"),
    "__rtruediv__": _rdiv,
    "__pow__": _pow_operator,
    "__rpow__": _rpow,
    "__ipow__": lambda self, other: pow_(self, other),  # (in place: views see it)
    "__neg__": lambda self: unary(NEG, self),
    "__pos__": lambda self: self,
    "__iadd__": _iadd, "__isub__": _isub, "__imul__": _imul, "__itruediv__": _itruediv,
    "__floordiv__": lambda self, other: div(self, other, rounding_mode="floor"),
    "__rfloordiv__": lambda self, other: _rdiv_floor(self, other),
    "__ifloordiv__": lambda self, other: div_(self, other, rounding_mode="floor"),
    "__mod__": lambda self, other: remainder(self, other),
    "__rmod__": lambda self, other: remainder(other, self),
    "__imod__": lambda self, other: remainder_(self, other),
}


def _rdiv_floor(self, other):
    other = _as_operand("floordiv", other)
    return div(Tensor._wrap(np.asarray(other, _dtype.result_type(other, self).np)), self,
               rounding_mode="floor")


@export()
def floor_divide(input, other, *, out=None):
    """``input // other``: division rounded toward minus infinity (rounding_mode='floor')."""
    return div(input, other, rounding_mode="floor", out=out)


@export()
def floor_divide_(self, other):
    return div_(self, other, rounding_mode="floor")


# the other binary/ternary ops and the unary family live in their own modules
from . import pointwise_binary  # noqa: E402,F401
from . import pointwise_unary as _unary_mod  # noqa: E402
from .pointwise_binary import remainder, remainder_  # noqa: E402
from ..._core.dtypes import get_default_dtype
from ..._tensor.memory_format import apply, check_memory_format, contiguous_format

OPERATORS.update(_unary_mod.OPERATORS)
