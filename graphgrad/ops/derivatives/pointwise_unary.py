"""The table, pointwise_unary family: math functions, rounding, special functions, complex
parts.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/pointwise_unary.py, public functions in ops/api/pointwise_unary.py.
"""
from __future__ import annotations

import math
import numpy as np

from .. import formulas as F
from . import ZERO
from ..kernels import special as _sk, gamma as _gk
from ..._core.opmath import number_like, float16_via_float64 as _f16
from ..registry import ELEMENTWISE, LINEAR, POINTWISE, defop
from ..kernels.pointwise_unary import (
    _abs_kernel, _angle_kernel, _complex_kernel, _frac_kernel, _imag_kernel, _log1p_kernel,
    _logit_kernel, _nan_to_num_kernel, _polar_kernel, _real_only, _round_decimals_kernel,
    _rounding_kernel, _rsqrt_kernel, _sgn_kernel, _sign_kernel)


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _zero_denominator(r):
    # where r == 0 the rule's value is replaced by 0 (a where, as in PyTorch's rules); the
    # untaken branch divides by 0 there, so under double backward its gradient is
    # 0 / 0 = NaN, as PyTorch's (angle and sgn's second derivatives at complex 0)
    return r


# ============================================================ |z|, sign, sgn
def _sgn_vjp(grad, self, result):
    # d(z/|z|): (g - s Re(conj(s) g)) / |z|, zero at z == 0; for real inputs sign' = 0
    if not F.is_complex(self):
        return F.zeros_like(grad)
    r = F.abs(self)
    g = (grad - result * F.real_if(F.conj(result) * grad, True)) / _zero_denominator(r)
    return F.where(r == 0, 0.0, g)


SGN = defop("sgn(self)", _sgn_kernel, "SgnBackward0", self=_sgn_vjp,
            jvp=lambda self_t, self, result: _sgn_vjp(self_t, self, result), batched_jvp=POINTWISE)


SIGN = defop("sign(self)", _sign_kernel, "SignBackward0",
             self=ZERO, jvp=ELEMENTWISE)


ABS = defop("abs(self)", _abs_kernel, "AbsBackward0",
            self=lambda grad, self: grad * F.sgn(self),
            jvp=lambda self_t, self: F.real_if(F.conj(self_t) * F.sgn(self), True),
            batched_jvp=POINTWISE)


# ============================================================ exp / log family
EXP2 = defop("exp2(self)", _f16(np.exp2), "Exp2Backward0", promote="float",
             self=lambda grad, result: grad * F.conj(result * _LN2), jvp=ELEMENTWISE)
EXPM1 = defop("expm1(self)", _f16(np.expm1), "Expm1Backward0", promote="float",
              self=lambda grad, result: grad * F.conj(result + 1), jvp=ELEMENTWISE)
LOG2 = defop("log2(self)", _f16(np.log2), "Log2Backward0", promote="float",
             self=lambda grad, self: grad / F.conj(self * _LN2), jvp=ELEMENTWISE)
LOG10 = defop("log10(self)", _f16(np.log10), "Log10Backward0", promote="float",
              self=lambda grad, self: grad / F.conj(self * _LN10), jvp=ELEMENTWISE)


LOG1P = defop("log1p(self)", _log1p_kernel, "Log1PBackward0", promote="float",
              self=lambda grad, self: grad / F.conj(self + 1), jvp=ELEMENTWISE)
SQRT = defop("sqrt(self)", np.sqrt, "SqrtBackward0", promote="float",
             self=lambda grad, result: grad / F.conj(2 * result), jvp=ELEMENTWISE)


RSQRT = defop("rsqrt(self)", _rsqrt_kernel, "RsqrtBackward0", promote="float",
              self=lambda grad, result: -0.5 * grad * F.conj(result * result * result),
              jvp=ELEMENTWISE)


# ============================================================ trigonometric and hyperbolic
# (x ** 2 where PyTorch's rule takes x.pow(2), not x * x: its gradient 2 x overflows at the
# largest finite values, so their double backward is 0 * inf = NaN there, as PyTorch's)
TAN = defop("tan(self)", _f16(np.tan), "TanBackward0", promote="float",
            self=lambda grad, result: grad * F.conj(1 + result * result), jvp=ELEMENTWISE)
ASIN = defop("asin(self)", _f16(np.arcsin), "AsinBackward0", promote="float",
             self=lambda grad, self: grad * F.conj(F.rsqrt(1 - self * self)), jvp=ELEMENTWISE)
ACOS = defop("acos(self)", _f16(np.arccos), "AcosBackward0", promote="float",
             self=lambda grad, self: -grad * F.conj(F.rsqrt(1 - self * self)), jvp=ELEMENTWISE)
ATAN = defop("atan(self)", _f16(np.arctan), "AtanBackward0", promote="float",
             self=lambda grad, self: grad / F.conj(1 + self * self), jvp=ELEMENTWISE)
SINH = defop("sinh(self)", _f16(np.sinh), "SinhBackward0", promote="float",
             self=lambda grad, self: grad * F.conj(F.cosh(self)), jvp=ELEMENTWISE)
COSH = defop("cosh(self)", _f16(np.cosh), "CoshBackward0", promote="float",
             self=lambda grad, self: grad * F.conj(F.sinh(self)), jvp=ELEMENTWISE)
ASINH = defop("asinh(self)", _f16(np.arcsinh), "AsinhBackward0", promote="float",
              self=lambda grad, self: grad * F.conj(F.rsqrt(self ** 2 + 1)), jvp=ELEMENTWISE)
def _acosh_dx(self):
    if F.is_complex(self):
        # 1 / (sqrt(z - 1) sqrt(z + 1)), not 1 / sqrt(z^2 - 1): right on both sides of the
        # branch cut for complex z (PyTorch's z^2 - 1 drops the sign of a zero imaginary
        # part, which NumPy keeps; this form agrees with PyTorch off the cut)
        return F.conj(F.rsqrt(self - 1) * F.rsqrt(self + 1))
    # real x: PyTorch's 1 / sqrt(x^2 - 1), which is also what it gives outside the domain
    # (x <= -1: acosh is NaN there, its gradient finite; 0 at -inf)
    return F.rsqrt(self * self - 1)


ACOSH = defop("acosh(self)", _f16(np.arccosh), "AcoshBackward0", promote="float",
              self=lambda grad, self: grad * _acosh_dx(self), jvp=ELEMENTWISE)
ATANH = defop("atanh(self)", _f16(np.arctanh), "AtanhBackward0", promote="float",
              self=lambda grad, self: grad / F.conj(1 - self ** 2), jvp=ELEMENTWISE)


# ============================================================ logit, erf family
def _logit_vjp(grad, self, eps):
    # outside the domain PyTorch gives NaN (no eps) or 0 (inputs clamped by eps)
    g = grad / (self * (1 - self))
    if eps is None:
        return F.where((self < 0) | (self > 1), math.nan, g)
    lo = number_like(eps, self)   # (the kernel's bounds: in self's dtype)
    return F.where((self < lo) | (self > 1 - lo), 0.0, g)


LOGIT = defop("logit(self, *, eps)", _logit_kernel, "LogitBackward0", promote="float",
              self=_logit_vjp, jvp=ELEMENTWISE)
ERF = defop("erf(self)", _real_only("erf", _sk.erf), "ErfBackward0", promote="float",
            self=lambda grad, self: grad * (_TWO_OVER_SQRT_PI * F.exp(-self ** 2)),
            jvp=ELEMENTWISE)
ERFC = defop("erfc(self)", _real_only("erfc", _sk.erfc), "ErfcBackward0", promote="float",
             self=lambda grad, self: grad * (-_TWO_OVER_SQRT_PI * F.exp(-self ** 2)),
             jvp=ELEMENTWISE)


def _erfinv_vjp(grad, self):
    x = F.erfinv(self)
    return grad * (_HALF_SQRT_PI * F.exp(x * x))


ERFINV = defop("erfinv(self)", _real_only("erfinv", _sk.erfinv), "ErfinvBackward0",
               promote="float", self=_erfinv_vjp, jvp=ELEMENTWISE)


# ============================================================ rounding (zero gradient)
FLOOR = defop("floor(self)", _rounding_kernel("floor", np.floor), "FloorBackward0",
              self=ZERO, jvp=ELEMENTWISE)
CEIL = defop("ceil(self)", _rounding_kernel("ceil", np.ceil), "CeilBackward0",
             self=ZERO, jvp=ELEMENTWISE)
TRUNC = defop("trunc(self)", _rounding_kernel("trunc", np.trunc), "TruncBackward0",
              self=ZERO, jvp=ELEMENTWISE)
ROUND = defop("round(self)", _rounding_kernel("round", np.rint), "RoundBackward0",
              self=ZERO, jvp=ELEMENTWISE)
ROUND_DECIMALS = defop("round.decimals(self, *, decimals)", _round_decimals_kernel,
                       "RoundBackward1", self=ZERO, jvp=ELEMENTWISE)
FRAC = defop("frac(self)", _frac_kernel, "FracBackward0", self=lambda grad: grad,
             jvp=ELEMENTWISE)


# ============================================================ nan_to_num
NAN_TO_NUM = defop("nan_to_num(self, *, nan, posinf, neginf)", _nan_to_num_kernel,
                   "NanToNumBackward0",
                   # (PyTorch's grad * isfinite(self): a NaN gradient stays NaN there)
                   self=lambda grad, self: grad * F.isfinite(self),
                   jvp=ELEMENTWISE)


# ============================================================ complex parts
# imag(z) = y: the gradient goes to the imaginary part, i * grad
IMAG = defop("imag(self)", _imag_kernel, "ImagBackward0", is_view=True,
             self=lambda grad: grad * 1j, jvp=LINEAR, batched_jvp=POINTWISE)
CONJ = defop("conj(self)", np.conj, "ConjBackward0", self=lambda grad: F.conj(grad), jvp=LINEAR,
             batched_jvp=POINTWISE)


def _angle_backward(grad, self):
    """grad times d angle / d(x + iy), PyTorch's angle_backward: where(z == 0, 0,
    grad z / |z|^2 i), grad inside the where: its untaken branch is 0 / 0 at z == 0, so the
    double backward there is NaN also with respect to grad (fuzz seed 1289897; graphgrad's
    grad times a where was 0 there)."""
    return F.where(self == 0, 0.0, grad * self / F.abs(self) ** 2 * 1j)


def _angle_vjp(grad, self):
    if not F.is_complex(self):
        return F.zeros_like(grad)
    return _angle_backward(grad, self)


def _angle_jvp(self_t, self):
    if not F.is_complex(self):
        return F.zeros_like(self_t)
    return F.real_if(F.conj(_angle_backward(F.conj(self_t), self)), True)


ANGLE = defop("angle(self)", _angle_kernel, "AngleBackward0", promote="float",
              self=_angle_vjp, jvp=_angle_jvp, batched_jvp=POINTWISE)


# out = abs * e^{i angle}: d/dabs = sgn(out), d/dangle = i out (real inputs take Re(...))
POLAR = defop("polar(abs, angle)", _polar_kernel, "PolarBackward0",
              abs=lambda grad, result: F.real_if(grad * F.conj(F.sgn(result)), True),
              angle=lambda grad, result: F.imag(grad * F.conj(result)),
              jvp=lambda abs_t, angle_t, result: abs_t * F.sgn(result) + angle_t * 1j * result,
              batched_jvp=POINTWISE)


COMPLEX = defop("complex(real, imag)", _complex_kernel, "ComplexBackward0",
                real=lambda grad: F.real_if(grad, True), imag=lambda grad: F.imag(grad),
                jvp=LINEAR, batched_jvp=POINTWISE)


# ============================================================ in-place asinh_ / acosh_ / atanh_
# PyTorch has no derivative for the in-place asinh_/acosh_/atanh_: they record
# AsinhBackward1, ... whose backward raises NotImplementedError (and forward AD through them
# raises too); the out-of-place forms are differentiable.
def _no_inplace_derivative(name):
    def rule(grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                  f"implemented. (use the out-of-place {name}(x), which is "
                                  "differentiable)")
    return rule


_NO_GRAD_INPLACE = {}
for _n, _op in (("asinh", ASINH), ("acosh", ACOSH), ("atanh", ATANH)):
    _NO_GRAD_INPLACE[_n] = defop(f"{_n}_(self)", _op.kernel, _op.node_name[:-1] + "1",
                                 promote="float", self=_no_inplace_derivative(_n))


# ============================================================ lgamma / digamma / polygamma
LGAMMA = defop("lgamma(self)", _real_only("lgamma", _gk.lgamma), "LgammaBackward0",
               promote="float", self=lambda grad, self: grad * F.digamma(self),
               jvp=ELEMENTWISE)
DIGAMMA = defop("digamma(self)", _real_only("digamma", _gk.digamma), "DigammaBackward0",
                promote="float", self=lambda grad, self: grad * F.polygamma(self, 1),
                jvp=ELEMENTWISE)
POLYGAMMA = defop("polygamma(self, *, n)",
                  lambda a, n: _real_only("polygamma", lambda x: _gk.polygamma(x, n))(a),
                  "PolygammaBackward0", promote="float",
                  self=lambda grad, self, n: grad * F.polygamma(self, n + 1), jvp=ELEMENTWISE)
POLYGAMMA_ = defop("polygamma_(self, *, n)", POLYGAMMA.kernel, "PolygammaBackward1",
                   promote="float",
                   self=lambda grad, self, n: grad * F.polygamma(self, n + 1), jvp=ELEMENTWISE)
