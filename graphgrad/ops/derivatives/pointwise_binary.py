"""The table, pointwise_binary family: remainder, atan2, hypot, lerp, addcmul/addcdiv, clamp.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/pointwise_binary.py, public functions in ops/api/pointwise_binary.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..._core.opmath import number_like
from ..registry import ELEMENTWISE, LINEAR, POINTWISE, defop
from ..kernels.pointwise_binary import (
    _addcdiv_kernel, _addcmul_kernel, _atan2_kernel, _clamp_kernel, _fmod_kernel,
    _hypot_kernel, _lerp_kernel, _logaddexp_kernel, _max_min_kernel, _remainder_kernel,
    _xlogy_kernel)


def _max_min_jvp(self_t, other_t, tie, self_wins):
    """PyTorch's ``other_t + c * (self_t - other_t)``, c = 1/2 at a tie, 1 where self is the
    result, else 0: at a NaN the tangent is other_t's (plus 0 * a non-finite difference:
    NaN), as PyTorch's, although the backward sends the gradient to both."""
    d = self_t - other_t
    return other_t + F.where(tie, d / 2, F.where(self_wins, d, d * 0))


# ties split the gradient evenly; a NaN sends it to both (it propagates from either)
MAXIMUM = defop("maximum(self, other)", _max_min_kernel("maximum", np.maximum),
                "MaximumBackward0", promote=True,
                self=lambda grad, self, other:
                    F.where(self < other, 0.0, F.where(self == other, grad / 2, grad)),
                other=lambda grad, self, other:
                    F.where(self > other, 0.0, F.where(self == other, grad / 2, grad)),
                jvp=lambda self_t, other_t, self, other: _max_min_jvp(
                    self_t, other_t, self == other, self > other), batched_jvp=POINTWISE)
MINIMUM = defop("minimum(self, other)", _max_min_kernel("minimum", np.minimum),
                "MinimumBackward0", promote=True,
                self=lambda grad, self, other:
                    F.where(self > other, 0.0, F.where(self == other, grad / 2, grad)),
                other=lambda grad, self, other:
                    F.where(self < other, 0.0, F.where(self == other, grad / 2, grad)),
                jvp=lambda self_t, other_t, self, other: _max_min_jvp(
                    self_t, other_t, self == other, self < other), batched_jvp=POINTWISE)


def _mod_jvp(self_t, other_t, self, other, mode):
    q = F.div_Tensor_mode(self, other, mode)
    if F.absent(other_t):
        # a divisor without a tangent adds nothing: fmod(x, 0) has tangent x_t, not NaN from
        # 0 * the NaN quotient (PyTorch's zero tangent is a ZeroTensor)
        return F.plus(self_t, F.absent_term(q))
    return self_t - other_t * q


# with a Python-number divisor only ``self`` has an edge (FmodBackward0 / RemainderBackward0)
FMOD_S = defop("fmod.Scalar(self, other)", _fmod_kernel, "FmodBackward0", promote=True,
               self=lambda grad: grad, jvp=ELEMENTWISE)
FMOD = defop("fmod.Tensor(self, other)", _fmod_kernel, "FmodBackward1", promote=True,
             self=lambda grad: grad,
             other=lambda grad, self, other: -grad * F.div_Tensor_mode(self, other, "trunc"),
             jvp=lambda self_t, other_t, self, other: _mod_jvp(self_t, other_t, self, other,
                                                              "trunc"),
             batched_jvp=POINTWISE)
REMAINDER_S = defop("remainder.Scalar(self, other)", _remainder_kernel, "RemainderBackward0",
                    promote=True, self=lambda grad: grad, jvp=ELEMENTWISE)
REMAINDER = defop("remainder.Tensor(self, other)", _remainder_kernel, "RemainderBackward1",
                  promote=True,
                  self=lambda grad: grad,
                  other=lambda grad, self, other:
                      -grad * F.div_Tensor_mode(self, other, "floor"),
                  jvp=lambda self_t, other_t, self, other: _mod_jvp(self_t, other_t, self,
                                                                   other, "floor"),
                  batched_jvp=POINTWISE)


def _atan2_recip(self, other):
    # 1 / (y^2 + x^2), taken as 0 at the origin (PyTorch's choice there); the inf is
    # selected away, not avoided, so the double backward there is NaN as in PyTorch
    d = self * self + other * other
    return F.where(d == 0, 0.0, 1 / d)


def _atan2_jvp(self_t, other_t, self, other):
    # PyTorch's forward rule: no guard (0 / 0 at the origin); an input without a tangent
    # adds nothing (its zero times an infinite other input is no NaN)
    if F.absent(other_t):
        n = F.plus(self_t * other, F.absent_term(self))
    elif F.absent(self_t):
        n = F.plus(-(other_t * self), F.absent_term(other))
    else:
        n = self_t * other - other_t * self
    return n / (self * self + other * other)


def _hypot_jvp(self_t, other_t, self, other, result):
    if F.absent(other_t):
        return self * self_t / result
    if F.absent(self_t):
        return other * other_t / result
    return (self * self_t + other * other_t) / result


ATAN2 = defop("atan2(self, other)", _atan2_kernel, "Atan2Backward0", promote="float",
              vjp_order=("self", "other"),   # (PyTorch: one "self, other" formula)
              self=lambda grad, self, other: grad * other * _atan2_recip(self, other),
              other=lambda grad, self, other: grad * -self * _atan2_recip(self, other),
              jvp=_atan2_jvp, batched_jvp=POINTWISE)
HYPOT = defop("hypot(self, other)", _hypot_kernel, "HypotBackward0", promote=True,
              self=lambda grad, self, result: grad * self / result,
              other=lambda grad, other, result: grad * other / result,
              jvp=_hypot_jvp, batched_jvp=POINTWISE)


LERP_S = defop("lerp.Scalar(self, end, *, weight)", _lerp_kernel, "LerpBackward0",
               self=lambda grad, weight: grad * F.conj(1 - weight),
               end=lambda grad, weight: grad * F.conj(weight),
               jvp=LINEAR, batched_jvp=POINTWISE)
LERP = defop("lerp.Tensor(self, end, weight)", _lerp_kernel, "LerpBackward1",
             self=lambda grad, weight: grad * F.conj(1 - weight),
             end=lambda grad, weight: grad * F.conj(weight),
             weight=lambda grad, self, end: grad * F.conj(end - self),
             jvp=lambda self_t, end_t, weight_t, self, end, weight:
                 self_t * (1 - weight) + end_t * weight + weight_t * (end - self),
             batched_jvp=POINTWISE)


ADDCMUL = defop("addcmul(self, tensor1, tensor2, *, value)",
                _addcmul_kernel, "AddcmulBackward0", promote=True,
                self=lambda grad: grad,
                tensor1=lambda grad, tensor2, value: grad * F.conj(tensor2 * value),
                tensor2=lambda grad, tensor1, value: grad * F.conj(tensor1 * value),
                jvp=lambda self_t, tensor1_t, tensor2_t, tensor1, tensor2, value:
                    self_t + value * (tensor1_t * tensor2 + tensor1 * tensor2_t),
                batched_jvp=POINTWISE)
ADDCDIV = defop("addcdiv(self, tensor1, tensor2, *, value)", _addcdiv_kernel, "AddcdivBackward0",
                promote=True,
                self=lambda grad: grad,
                tensor1=lambda grad, tensor2, value: grad * F.conj(value / tensor2),
                tensor2=lambda grad, tensor1, tensor2, value:
                    -grad * F.conj(value * tensor1 / (tensor2 * tensor2)),
                jvp=lambda self_t, tensor1_t, tensor2_t, tensor1, tensor2, value:
                    self_t + value * (tensor1_t / tensor2
                                      - tensor1 * tensor2_t / (tensor2 * tensor2)),
                batched_jvp=POINTWISE)


# ------------------------------------------------------------ clamp
def _clamp_self_mask(self, min, max):  # noqa: A002
    """Where ``self`` lies within the bounds (number bounds compared in a bfloat16 ``self``'s
    own dtype, as PyTorch compares them)."""
    min, max = number_like(min, self), number_like(max, self)  # noqa: A001
    if min is None:
        return self <= max
    if max is None:
        return self >= min
    return (self >= min) & (self <= max)


def _clamp_min_vjp(grad, self, min, max):  # noqa: A002
    mask = self < min if max is None else (self < min) & (min < max)
    return F.where(mask, grad, 0.0)


def _clamp_max_vjp(grad, self, min, max):  # noqa: A002
    mask = self > max if min is None else (self > max) | (min > max)
    return F.where(mask, grad, 0.0)


def _clamp_jvp(self_t, min_t, max_t, self, min, max):  # noqa: A002
    # PyTorch's forward rule (it differs from the VJP at ties, and with one bound at NaN:
    # the bound's tangent is taken unless self is strictly inside)
    if max is None:
        return F.where(self > min, self_t, min_t)
    if min is None:
        return F.where(self < max, self_t, max_t)
    r = self_t
    if max is not None:
        r = F.where(self > max, max_t, r)
    if min is not None:
        r = F.where(self < min, min_t, r)
        if max is not None:
            r = F.where(min > max, max_t, r)
    return r


def _clamp_self_vjp(grad, self, min, max):  # noqa: A002
    return F.where(_clamp_self_mask(self, min, max), grad, 0.0)


CLAMP = defop("clamp(self, *, min, max)", _clamp_kernel, "ClampBackward1",
              self=_clamp_self_vjp, jvp=ELEMENTWISE)
CLAMP_T = defop("clamp.Tensor(self, min, max)", _clamp_kernel, "ClampBackward0", promote=True,
                vjp_order=("min", "max", "self"),   # (PyTorch's keys: "min, max", "self")
                self=_clamp_self_vjp, min=_clamp_min_vjp, max=_clamp_max_vjp, jvp=_clamp_jvp,
                batched_jvp=POINTWISE)
CLAMP_MIN = defop("clamp_min(self, *, min)", lambda a, min: _clamp_kernel(a, min, None),
                  "ClampMinBackward0",
                  self=lambda grad, self, min: _clamp_self_vjp(grad, self, min, None),
                  jvp=ELEMENTWISE)
CLAMP_MIN_T = defop("clamp_min.Tensor(self, min)", lambda a, min: _clamp_kernel(a, min, None),
                    "ClampMinBackward1", promote=True,
                    self=lambda grad, self, min: F.where(self >= min, grad, 0.0),
                    min=lambda grad, self, min: F.where(self < min, grad, 0.0),
                    jvp=lambda self_t, min_t, self, min: F.where(self >= min, self_t, min_t),
                    batched_jvp=POINTWISE)
CLAMP_MAX = defop("clamp_max(self, *, max)", lambda a, max: _clamp_kernel(a, None, max),
                  "ClampMaxBackward0",
                  self=lambda grad, self, max: _clamp_self_vjp(grad, self, None, max),
                  jvp=ELEMENTWISE)
CLAMP_MAX_T = defop("clamp_max.Tensor(self, max)", lambda a, max: _clamp_kernel(a, None, max),
                    "ClampMaxBackward1", promote=True,
                    self=lambda grad, self, max: F.where(self <= max, grad, 0.0),
                    max=lambda grad, self, max: F.where(self > max, grad, 0.0),
                    jvp=lambda self_t, max_t, self, max: F.where(self <= max, self_t, max_t),
                    batched_jvp=POINTWISE)


# ============================================================ logaddexp / xlogy
def _logaddexp_weight(x, y):
    """d logaddexp(x, y) / dx = 1 / (1 + exp(y - x)) (PyTorch's rule, NaN at inf - inf)."""
    return 1 / (1 + F.exp(y - x))


LOGADDEXP = defop("logaddexp(self, other)", _logaddexp_kernel, "LogaddexpBackward0",
                  promote=True,
                  self=lambda grad, self, other: grad * F.conj(_logaddexp_weight(self, other)),
                  other=lambda grad, self, other: grad * F.conj(_logaddexp_weight(other, self)),
                  jvp=lambda self_t, other_t, self, other:
                      self_t * _logaddexp_weight(self, other) +
                      other_t * _logaddexp_weight(other, self), batched_jvp=POINTWISE)


def _xlogy_self_grad(grad, self, other):
    """xlogy(grad, other), 0 where self == 0 and other <= 0 (PyTorch's rule)."""
    return F.where((self == 0) & (other <= 0), 0.0, _xlogy_poly(grad, other))


def _xlogy_self_rule(grad, self, other):
    return _xlogy_self_grad(grad, self, other)


def _xlogy_other_rule(grad, self, other):
    return grad * self / other


# one entry per PyTorch overload (its node names): both tensors, a number as self, a
# number as other (the number sits in the tensor slot and gets no edge)
XLOGY = defop("xlogy.Tensor(self, other)", _xlogy_kernel, "XlogyBackward0", promote="float",
              self=_xlogy_self_rule, other=_xlogy_other_rule,
              jvp=lambda self_t, other_t, self, other:
                  _xlogy_self_grad(self_t, self, other) + other_t * self / other,
              batched_jvp=POINTWISE)
XLOGY_SCALAR_SELF = defop("xlogy.Scalar_Self(self, other)", _xlogy_kernel, "XlogyBackward1",
                          promote="float", other=_xlogy_other_rule,
                          jvp=lambda other_t, self, other: other_t * self / other,
                          batched_jvp=POINTWISE)
XLOGY_SCALAR_OTHER = defop("xlogy.Scalar_Other(self, other)", _xlogy_kernel, "XlogyBackward2",
                           promote="float", self=_xlogy_self_rule,
                           jvp=lambda self_t, self, other: _xlogy_self_grad(self_t, self, other),
                           batched_jvp=POINTWISE)

_xlogy_poly = F.make_poly(XLOGY)   # xlogy on ndarrays (the kernel) or Tensors (recorded)
