"""Pointwise unary ops: math functions, rounding, special functions, complex parts.

Each entry follows PyTorch's derivatives.yaml, with the complex convention
``grad * conj(f'(z))`` for holomorphic functions (so ``jvp=ELEMENTWISE``
applies).  The non-holomorphic ones (``abs``, ``sgn``, ``angle``, ``imag``,
``conj``, ``polar``, ``complex``) state their JVP explicitly.  Rounding ops
are piecewise constant: their gradient is zero, as in PyTorch.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..kernels import special as _sk
from ..dispatch import dispatch, unary
from ..inplace import dispatch_inplace
from ..._core.opmath import half_in_float32, number_like
from ..._core.opmath import float16_via_float64 as _f16
from .pointwise import POW, _check_tensor, _make_unary, _need_tensor, _out, _tname
from ..registry import ELEMENTWISE, LINEAR, POINTWISE, defop, export

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _real_only(name, fn, label=None):
    """A kernel that raises PyTorch's NotImplementedError on complex inputs."""
    def kernel(a):
        if a.dtype.kind == "c":
            raise NotImplementedError(f'"{label or name + "_vml_cpu"}" not implemented for '
                                      f"'{_tname(a)}'")
        return fn(a)
    return kernel


def _zero_denominator(r):
    # where r == 0 the rule's value is replaced by 0 (a where, as in PyTorch's rules); the
    # untaken branch divides by 0 there, so under double backward its gradient is
    # 0 / 0 = NaN, as PyTorch's (angle and sgn's second derivatives at complex 0)
    return r


# ============================================================ |z|, sign, sgn
def _real_sign(a):
    if a.dtype.kind == "b":
        return a.copy()
    if a.dtype.kind in "iu":
        return np.sign(a)
    # (a > 0) - (a < 0): 0 for NaN, as PyTorch (NumPy's sign gives NaN)
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


def _sgn_kernel(a):
    if a.dtype.kind != "c":
        return _real_sign(a)
    r = np.abs(a)
    with np.errstate(all="ignore"):
        return np.where(r == 0, 0, a / np.where(r == 0, 1, r)).astype(a.dtype, copy=False)


def _sgn_vjp(grad, self, result):
    # d(z/|z|): (g - s Re(conj(s) g)) / |z|, zero at z == 0; for real inputs sign' = 0
    if not F.is_complex(self):
        return F.zeros_like(grad)
    r = F.abs(self)
    g = (grad - result * F.real_if(F.conj(result) * grad, True)) / _zero_denominator(r)
    return F.where(r == 0, 0.0, g)


SGN = defop("sgn(self)", _sgn_kernel, "SgnBackward0", self=_sgn_vjp,
            jvp=lambda self_t, self, result: _sgn_vjp(self_t, self, result), batched_jvp=POINTWISE)


def _sign_kernel(a):
    if a.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    return _real_sign(a)


SIGN = defop("sign(self)", _sign_kernel, "SignBackward0",
             self=lambda grad: F.zeros_like(grad), jvp=ELEMENTWISE)
# abs: the gradient is grad * sgn(self), which is 0 at 0 (PyTorch's subgradient choice)
def _abs_kernel(a):
    if a.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(a)


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


def _log1p_kernel(a):
    if a.dtype.kind != "c":
        return np.log1p(a)
    # NumPy's complex log1p loses accuracy near 0: log|1+z| = log1p(2x + x^2 + y^2) / 2
    x, y = a.real, a.imag
    out = np.empty_like(a)
    out.real = 0.5 * np.log1p(x * (2 + x) + y * y)
    out.imag = np.arctan2(y, 1 + x)
    return out


LOG1P = defop("log1p(self)", _log1p_kernel, "Log1PBackward0", promote="float",
              self=lambda grad, self: grad / F.conj(self + 1), jvp=ELEMENTWISE)
SQRT = defop("sqrt(self)", np.sqrt, "SqrtBackward0", promote="float",
             self=lambda grad, result: grad / F.conj(2 * result), jvp=ELEMENTWISE)


@half_in_float32
def _rsqrt_kernel(a):
    return np.reciprocal(np.sqrt(a))


RSQRT = defop("rsqrt(self)", _rsqrt_kernel, "RsqrtBackward0", promote="float",
              self=lambda grad, result: -0.5 * grad * F.conj(result * result * result),
              jvp=ELEMENTWISE)

# ============================================================ trigonometric and hyperbolic
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
              self=lambda grad, self: grad * F.conj(F.rsqrt(self * self + 1)), jvp=ELEMENTWISE)
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
              self=lambda grad, self: grad / F.conj(1 - self * self), jvp=ELEMENTWISE)


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
            self=lambda grad, self: grad * (_TWO_OVER_SQRT_PI * F.exp(-self * self)),
            jvp=ELEMENTWISE)
ERFC = defop("erfc(self)", _real_only("erfc", _sk.erfc), "ErfcBackward0", promote="float",
             self=lambda grad, self: grad * (-_TWO_OVER_SQRT_PI * F.exp(-self * self)),
             jvp=ELEMENTWISE)


def _erfinv_vjp(grad, self):
    x = F.erfinv(self)
    return grad * (_HALF_SQRT_PI * F.exp(x * x))


ERFINV = defop("erfinv(self)", _real_only("erfinv", _sk.erfinv), "ErfinvBackward0",
               promote="float", self=_erfinv_vjp, jvp=ELEMENTWISE)


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


_ZERO = dict(self=lambda grad: F.zeros_like(grad), jvp=ELEMENTWISE)
FLOOR = defop("floor(self)", _rounding_kernel("floor", np.floor), "FloorBackward0", **_ZERO)
CEIL = defop("ceil(self)", _rounding_kernel("ceil", np.ceil), "CeilBackward0", **_ZERO)
TRUNC = defop("trunc(self)", _rounding_kernel("trunc", np.trunc), "TruncBackward0", **_ZERO)
ROUND = defop("round(self)", _rounding_kernel("round", np.rint), "RoundBackward0", **_ZERO)
ROUND_DECIMALS = defop("round.decimals(self, *, decimals)", _round_decimals_kernel,
                       "RoundBackward1", **_ZERO)
FRAC = defop("frac(self)", _frac_kernel, "FracBackward0", self=lambda grad: grad,
             jvp=ELEMENTWISE)


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


NAN_TO_NUM = defop("nan_to_num(self, *, nan, posinf, neginf)", _nan_to_num_kernel,
                   "NanToNumBackward0",
                   # (PyTorch's grad * isfinite(self): a NaN gradient stays NaN there)
                   self=lambda grad, self: grad * F.isfinite(self),
                   jvp=ELEMENTWISE)


# ============================================================ complex parts
def _imag_kernel(a):
    return np.imag(a)


# imag(z) = y: the gradient goes to the imaginary part, i * grad
IMAG = defop("imag(self)", _imag_kernel, "ImagBackward0", is_view=True,
             self=lambda grad: grad * 1j, jvp=LINEAR, batched_jvp=POINTWISE)
CONJ = defop("conj(self)", np.conj, "ConjBackward0", self=lambda grad: F.conj(grad), jvp=LINEAR,
             batched_jvp=POINTWISE)


def _angle_kernel(a):
    if a.dtype.kind == "c":
        return np.angle(a)
    # real inputs: 0 or pi (NaN stays NaN), in the input's dtype
    return np.where(np.isnan(a), a, np.where(a < 0, np.asarray(math.pi, a.dtype),
                                             np.zeros((), a.dtype)))


def _angle_grad(self):
    """d angle / d(x + iy) as PyTorch's gradient vector: i z / |z|^2 (0 at z == 0)."""
    r2 = F.real_if(self * F.conj(self), True)
    return F.where(r2 == 0, 0.0, (self * 1j) / _zero_denominator(r2))


def _angle_vjp(grad, self):
    if not F.is_complex(self):
        return F.zeros_like(grad)
    return grad * _angle_grad(self)


def _angle_jvp(self_t, self):
    if not F.is_complex(self):
        return F.zeros_like(self_t)
    return F.real_if(F.conj(_angle_grad(self)) * self_t, True)


ANGLE = defop("angle(self)", _angle_kernel, "AngleBackward0", promote="float",
              self=_angle_vjp, jvp=_angle_jvp, batched_jvp=POINTWISE)


def _polar_kernel(r, theta):
    if r.dtype != theta.dtype or r.dtype.kind != "f":
        raise RuntimeError(f"polar(): expected both inputs to be Half, Float or Double tensors "
                           f"of the same dtype but got {_tname(r)} and {_tname(theta)}")
    r, theta = np.broadcast_arrays(r, theta)
    out = np.empty(r.shape, np.result_type(r.dtype, np.complex64))
    out.real = r * np.cos(theta)
    out.imag = r * np.sin(theta)
    return out


# out = abs * e^{i angle}: d/dabs = sgn(out), d/dangle = i out (real inputs take Re(...))
POLAR = defop("polar(abs, angle)", _polar_kernel, "PolarBackward0",
              abs=lambda grad, result: F.real_if(grad * F.conj(F.sgn(result)), True),
              angle=lambda grad, result: F.imag(grad * F.conj(result)),
              jvp=lambda abs_t, angle_t, result: abs_t * F.sgn(result) + angle_t * 1j * result,
              batched_jvp=POINTWISE)


def _complex_kernel(re, im):
    if re.dtype != im.dtype or re.dtype.kind != "f":
        raise RuntimeError(f"complex(): expected both inputs to be Half, Float or Double tensors "
                           f"of the same dtype but got {_tname(re)} and {_tname(im)}")
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real = re
    out.imag = im
    return out


COMPLEX = defop("complex(real, imag)", _complex_kernel, "ComplexBackward0",
                real=lambda grad: F.real_if(grad, True), imag=lambda grad: F.imag(grad),
                jvp=LINEAR, batched_jvp=POINTWISE)


# ============================================================ public functions
_SIMPLE = {"exp2": EXP2, "expm1": EXPM1, "log2": LOG2, "log10": LOG10, "log1p": LOG1P,
           "sqrt": SQRT, "rsqrt": RSQRT, "tan": TAN, "asin": ASIN, "acos": ACOS, "atan": ATAN,
           "sinh": SINH, "cosh": COSH, "asinh": ASINH, "acosh": ACOSH, "atanh": ATANH,
           "erf": ERF, "erfc": ERFC, "erfinv": ERFINV, "sign": SIGN, "sgn": SGN, "abs": ABS,
           "floor": FLOOR, "ceil": CEIL, "trunc": TRUNC, "frac": FRAC}
for _n, _op in _SIMPLE.items():
    globals()[_n] = _make_unary(_n, _op)


@export()
def angle(input, *, out=None):
    """The argument of each element (0 or pi for real inputs), as a real tensor."""
    _check_tensor("angle", input)
    return _out(unary(ANGLE, input), out)

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
    export(_n + "_")(lambda self, _op=_NO_GRAD_INPLACE[_n]: dispatch_inplace(_op, self))

for _alias, _n in (("absolute", "abs"), ("arcsin", "asin"), ("arccos", "acos"),
                   ("arctan", "atan"), ("arcsinh", "asinh"), ("arccosh", "acosh"),
                   ("arctanh", "atanh"), ("fix", "trunc")):
    export(_alias)(globals()[_n])
    export(_alias + "_")(lambda self, _op=_NO_GRAD_INPLACE.get(_n, _SIMPLE[_n]):
                         dispatch_inplace(_op, self))


def _abs_(self):
    """``abs_``: refused on complex tensors, whose absolute value is real (as in PyTorch)."""
    if isinstance(self, Tensor) and self._data.dtype.kind == "c":
        raise RuntimeError("In-place abs is not supported for complex tensors. [abs_: use "
                           "x = x.abs(), which returns a real tensor]")
    return dispatch_inplace(ABS, self)


export("abs_")(_abs_)
export("absolute_")(_abs_)


@export()
def square(input, *, out=None):
    """``input * input``, recorded as ``pow(input, 2)`` (PowBackward0) as in PyTorch."""
    _check_tensor("square", input)
    if input._data.dtype.kind == "b":
        input = input.to(_dtype.int64)
    return _out(dispatch(POW, input, 2), out)


@export()
def square_(self):
    return dispatch_inplace(POW, self, 2)


@export()
def round(input, *, decimals=0, out=None):  # noqa: A001
    """Round half to even; ``decimals`` may be negative (tens, hundreds ...)."""
    _check_tensor("round", input)
    if decimals == 0:
        return _out(unary(ROUND, input), out)
    return _out(dispatch(ROUND_DECIMALS, input, int(decimals)), out)


@export()
def round_(self, *, decimals=0):
    if decimals == 0:
        return dispatch_inplace(ROUND, self)
    return dispatch_inplace(ROUND_DECIMALS, self, int(decimals))


@export()
def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``; with ``eps`` the input is first clamped to ``[eps, 1 - eps]``."""
    _check_tensor("logit", input)
    return _out(dispatch(LOGIT, input, None if eps is None else float(eps)), out)


@export()
def logit_(self, eps=None):
    return dispatch_inplace(LOGIT, self, None if eps is None else float(eps))


def _nan_to_num_args(input, nan, posinf, neginf):
    _check_tensor("nan_to_num", input)
    if input._data.dtype.kind == "c" and input._requires_grad:
        if tls.grad_enabled:
            raise RuntimeError("nan_to_num does not support automatic differentiation for "
                               "outputs with complex dtype.")
    return (float(nan) if nan is not None else 0.0,
            None if posinf is None else float(posinf), None if neginf is None else float(neginf))


@export()
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN by ``nan`` and +-inf by ``posinf``/``neginf`` (default: the dtype's extremes)."""
    return _out(dispatch(NAN_TO_NUM, input, *_nan_to_num_args(input, nan, posinf, neginf)), out)


@export()
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return dispatch_inplace(NAN_TO_NUM, self, *_nan_to_num_args(self, nan, posinf, neginf))


@export(method=False)
def imag(input):
    """The imaginary part of a complex tensor, as a real view sharing its memory."""
    _check_tensor("imag", input)
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return unary(IMAG, input)


@export()
def conj(input):
    """The complex conjugate.  graphgrad copies (PyTorch returns a lazy conjugate view);
    real tensors are returned as they are, as in PyTorch."""
    _check_tensor("conj", input)
    if input._data.dtype.kind != "c":
        return input
    return unary(CONJ, input)


@export()
def resolve_conj(input):
    return input  # graphgrad's conj() is never lazy


@export()
def resolve_neg(input):
    return input


@export()
def is_conj(input):
    return False


@export()
def is_neg(input):
    return False


@export(method=False)
def polar(abs, angle, *, out=None):  # noqa: A002
    """``abs * (cos(angle) + i sin(angle))`` as a complex tensor."""
    _need_tensor("polar", abs, 1, "abs")
    _need_tensor("polar", angle, 2, "angle")
    return _out(dispatch(POLAR, abs, angle), out)


@export(method=False)
def complex(real, imag, *, out=None):  # noqa: A001
    """``real + i imag`` from two real tensors of the same dtype."""
    _need_tensor("complex", real, 1, "real")
    _need_tensor("complex", imag, 2, "imag")
    return _out(dispatch(COMPLEX, real, imag), out)


OPERATORS = {"__abs__": lambda self: unary(ABS, self)}


# ============================================================ lgamma / digamma / polygamma
# (kernels in gamma_kernels.py: float64, rounded once; PyTorch's values at the poles)
from ..kernels import gamma as _gk  # noqa: E402
from ..._core import dtypes as _dtype
from ..._core.state import tls

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
lgamma = _make_unary("lgamma", LGAMMA)
digamma = _make_unary("digamma", DIGAMMA)


def _polygamma_n(n, fn):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{fn}(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got n={n})")
    return n


@export(method=False)
def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma (``polygamma(0, x)`` is ``digamma(x)``)."""
    _check_tensor("polygamma", input)
    return _out(dispatch(POLYGAMMA, input, _polygamma_n(n, "polygamma")), out)


export("polygamma", function=False)(
    lambda self, n: dispatch(POLYGAMMA, self, _polygamma_n(n, "polygamma")))
export("polygamma_", function=False)(
    lambda self, n: dispatch_inplace(POLYGAMMA_, self, _polygamma_n(n, "polygamma_")))
