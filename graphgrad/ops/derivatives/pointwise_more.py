"""The table, pointwise_more family: fmax/fmin, copysign, heaviside, logaddexp2,
deg2rad/rad2deg, frexp, ldexp, nextafter, gcd/lcm, the bit shifts, rsub with a tensor.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/pointwise_more.py, public functions in ops/api/pointwise_more.py.  The rules are
derivatives.yaml's: fmax/fmin send a tie's gradient to ``self`` (and a NaN ``other``'s to
``self``), copysign's ``other`` and nextafter's ``other`` get zeros, heaviside has no
derivative (PyTorch's NotImplemented node).
"""
from __future__ import annotations

import math

from .. import formulas as F
from . import ZERO
from ..registry import ELEMENTWISE, POINTWISE, defop
from ..kernels.pointwise_more import (
    _copysign_kernel, _deg2rad_kernel, _i0_kernel, _i1_kernel, _fmax_fmin_kernel, _frexp_kernel, _gcd_kernel,
    _heaviside_kernel, _lcm_kernel, _ldexp_kernel, _logaddexp2_kernel, _lshift_kernel,
    _nextafter_kernel, _no_bool_sub, _rad2deg_kernel, _rshift_kernel, _rsub_tensor_kernel)
import numpy as np

_LN2 = math.log(2.0)


# ====================================================================== fmax / fmin
def _self_wins(self, other, cmp):
    return cmp(self, other) | F.isnan(other)


def _fmax_fmin(name, ufunc, node, cmp):
    return defop(f"{name}(self, other)", _fmax_fmin_kernel(name, ufunc), node, promote=True,
                 self=lambda grad, self, other: F.where(_self_wins(self, other, cmp), grad, 0.0),
                 other=lambda grad, self, other: F.where(_self_wins(self, other, cmp), 0.0, grad),
                 jvp=lambda self_t, other_t, self, other:
                     other_t + F.where(_self_wins(self, other, cmp), self_t - other_t, 0.0),
                 batched_jvp=POINTWISE)


FMAX = _fmax_fmin("fmax", np.fmax, "FmaxBackward0", lambda a, b: a >= b)
FMIN = _fmax_fmin("fmin", np.fmin, "FminBackward0", lambda a, b: a <= b)


# ====================================================================== copysign
def _copysign_ratio(self, result):
    """result / self, 0 where self is 0 (derivatives.yaml's copysign_tensor_self_backward)."""
    return F.where(self == 0, 0.0, result / self)


COPYSIGN = defop("copysign.Tensor(self, other)", _copysign_kernel, "CopysignBackward0",
                 promote="float",
                 self=lambda grad, self, result: grad * _copysign_ratio(self, result),
                 other=ZERO,
                 jvp=lambda self_t, self, result: self_t * _copysign_ratio(self, result),
                 batched_jvp=POINTWISE)
COPYSIGN_S = defop("copysign.Scalar(self, other)", _copysign_kernel, "CopysignBackward1",
                   promote="float",
                   self=lambda grad, self, result: grad * _copysign_ratio(self, result),
                   jvp=lambda self_t, self, result: self_t * _copysign_ratio(self, result),
                   batched_jvp=POINTWISE)


# ====================================================================== heaviside
def _no_heaviside_derivative(grad):
    raise RuntimeError("derivative for aten::heaviside is not implemented [heaviside is "
                       "piecewise constant: detach its inputs]")


def _no_heaviside_jvp():
    raise NotImplementedError("Trying to use forward AD with aten::heaviside that does not "
                              "support it.")


HEAVISIDE = defop("heaviside(self, values)", _heaviside_kernel, "NotImplemented",
                  self=_no_heaviside_derivative, values=_no_heaviside_derivative,
                  jvp=lambda self_t, values_t: _no_heaviside_jvp(), batched_jvp=True)


# ====================================================================== logaddexp2
def _la2_weight(x, y):
    return 1 / (1 + F.exp2(y - x))


LOGADDEXP2 = defop("logaddexp2(self, other)", _logaddexp2_kernel, "Logaddexp2Backward0",
                   promote=True,
                   self=lambda grad, self, other: grad * _la2_weight(self, other),
                   other=lambda grad, self, other: grad * _la2_weight(other, self),
                   jvp=lambda self_t, other_t, self, other:
                       self_t * _la2_weight(self, other) + other_t * _la2_weight(other, self),
                   batched_jvp=POINTWISE)


# ====================================================================== deg2rad / rad2deg
DEG2RAD = defop("deg2rad(self)", _deg2rad_kernel, "Deg2RadBackward0", promote="float",
                self=lambda grad: grad * (math.pi / 180.0), jvp=ELEMENTWISE)
RAD2DEG = defop("rad2deg(self)", _rad2deg_kernel, "Rad2DegBackward0", promote="float",
                self=lambda grad: grad * (180.0 / math.pi), jvp=ELEMENTWISE)


# ====================================================================== frexp / ldexp
# (the mantissa's gradient over 2 ** exponent: exp2 of the int32 exponent, as PyTorch's)
FREXP = defop("frexp(self)", _frexp_kernel, "FrexpBackward0", n_outputs=2, nondiff_outputs=(1,),
              self=lambda grad, result1: grad / F.exp2(result1),
              jvp=lambda self_t, result1: (self_t / F.exp2(result1), None),
              batched_jvp=True)


LDEXP = defop("ldexp(self, other)", _ldexp_kernel, "LdexpBackward0", promote="float",
              vjp_order=("self", "other"),
              self=lambda grad, other: grad * F.exp2(other),
              other=lambda grad, self, other: grad * self * F.exp2(other) * _LN2,
              jvp=lambda self_t, other_t, self, other:
                  (self_t + other_t * self * _LN2) * F.exp2(other),
              batched_jvp=POINTWISE)


# ====================================================================== nextafter
NEXTAFTER = defop("nextafter(self, other)", _nextafter_kernel, "NextafterBackward0",
                  promote=True, self=lambda grad: grad, other=ZERO,
                  jvp=lambda self_t: self_t, batched_jvp=POINTWISE)


# ====================================================================== integer ops
GCD = defop("gcd(self, other)", _gcd_kernel, promote=True)
LCM = defop("lcm(self, other)", _lcm_kernel, promote=True)
LSHIFT = defop("bitwise_left_shift(self, other)", _lshift_kernel, promote=True)
RSHIFT = defop("bitwise_right_shift(self, other)", _rshift_kernel, promote=True)


# ====================================================================== rsub
RSUB_T = defop("rsub.Tensor(self, other, *, alpha)", _rsub_tensor_kernel, "RsubBackward0",
               promote=True, check_inputs=_no_bool_sub,
               vjp_order=("other", "self"),
               self=lambda grad, alpha: -grad * F.conj(alpha) if alpha != 1 else -grad,
               other=lambda grad: grad,
               jvp=lambda self_t, other_t, alpha: other_t - self_t * alpha,
               batched_jvp=POINTWISE)
# ``rsub(tensor, number, alpha)`` with alpha != 1 (alpha 1: pointwise.RSUB, the same node)
RSUB_S_ALPHA = defop("rsub.Scalar_alpha(self, *, other, alpha)",
                     lambda a, other, alpha: _rsub_tensor_kernel(a, other, alpha),
                     "RsubBackward1",
                     self=lambda grad, alpha: -grad * F.conj(alpha),
                     jvp=lambda self_t, alpha: -self_t * alpha, batched_jvp=POINTWISE)


# ====================================================================== i0 / special.i1
def _i1_grad(self, result):
    """dI1/dx = I0(x) - I1(x) / x, 0.5 at |x| <= eps (PyTorch's i1_backward)."""
    eps = float(np.finfo(_np_dtype(self)).eps)
    tiny = F.abs(self) <= eps
    safe = F.where(tiny, eps, self)
    return F.where(tiny, 0.5, F.i0(safe) - result / safe)


def _np_dtype(x):
    d = getattr(x, "_data", x)
    return d.dtype if d.dtype.kind == "f" and d.dtype.itemsize >= 4 else np.float32


I0 = defop("i0(self)", _i0_kernel, "I0Backward0", promote="float",
           self=lambda grad, self: grad * F.special_i1(self), jvp=ELEMENTWISE)
SPECIAL_I1 = defop("special_i1(self)", _i1_kernel, "SpecialI1Backward0", promote="float",
                   self=lambda grad, self, result: grad * _i1_grad(self, result),
                   jvp=lambda self_t, self, result: self_t * _i1_grad(self, result),
                   batched_jvp=POINTWISE)
