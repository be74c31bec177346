"""The table, special family: graphgrad.special's own ops (entr, xlog1py, sinc, log_ndtr,
ndtri, mvlgamma), with PyTorch's node names and rules.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/special_fns.py, public functions in ops/api/special.py (graphgrad.special's
namespace: graphgrad/special).
"""
from __future__ import annotations

import math

import numpy as np

from .. import formulas as F
from ..._core.opmath import half_in_float32
from ..registry import ELEMENTWISE, POINTWISE, defop
from ..kernels.special_fns import (_entr_kernel, _log_ndtr_kernel, _mvlgamma_kernel,
                                   _ndtri_kernel, _sinc_kernel, _xlog1py_kernel)

_SQRT_2PI = math.sqrt(2.0 * math.pi)


# ====================================================================== entr
SPECIAL_ENTR = defop("special_entr(self)", _entr_kernel, "SpecialEntrBackward0",
                     promote="float", self=lambda grad, self: grad * (-(1 + F.log(self))),
                     jvp=ELEMENTWISE)


# ====================================================================== xlog1py
def _xlog1py_self_grad(grad, self, other):
    """xlog1py(grad, other), 0 where self == 0 and other <= -1 (PyTorch's rule)."""
    return F.where((self == 0) & (other <= -1), 0.0, _xlog1py_poly(grad, other))


def _xlog1py_self_rule(grad, self, other):
    return _xlog1py_self_grad(grad, self, other)


def _xlog1py_other_rule(grad, self, other):
    return grad * self / (other + 1)


# one entry per PyTorch overload, as xlogy's (pointwise_binary)
SPECIAL_XLOG1PY = defop(
    "special_xlog1py(self, other)", _xlog1py_kernel, "SpecialXlog1PyBackward0", promote="float",
    self=_xlog1py_self_rule, other=_xlog1py_other_rule,
    jvp=lambda self_t, other_t, self, other:
        _xlog1py_self_grad(self_t, self, other) + other_t * self / (other + 1),
    batched_jvp=POINTWISE)
SPECIAL_XLOG1PY_SCALAR_SELF = defop(
    "special_xlog1py.self_scalar(self, other)", _xlog1py_kernel, "SpecialXlog1PyBackward1",
    promote="float", other=_xlog1py_other_rule,
    jvp=lambda other_t, self, other: other_t * self / (other + 1), batched_jvp=POINTWISE)
SPECIAL_XLOG1PY_SCALAR_OTHER = defop(
    "special_xlog1py.other_scalar(self, other)", _xlog1py_kernel, "SpecialXlog1PyBackward2",
    promote="float", self=_xlog1py_self_rule,
    jvp=lambda self_t, self, other: _xlog1py_self_grad(self_t, self, other),
    batched_jvp=POINTWISE)

_xlog1py_poly = F.make_poly(SPECIAL_XLOG1PY)


# ====================================================================== sinc
def _sinc_vjp(grad, self):
    """PyTorch's sinc_backward: grad * conj((pi x cos(pi x) - sin(pi x)) / (pi x^2)), 0 at
    x == 0."""
    px = math.pi * self
    d = (px * F.cos(px) - F.sin(px)) / (px * self)
    if F.is_complex(self):
        d = F.conj(d)
    return F.where(self == 0, 0.0, grad * d)


SINC = defop("sinc(self)", _sinc_kernel, "SincBackward0", promote="float", self=_sinc_vjp,
             jvp=ELEMENTWISE)


# ====================================================================== ndtr / log_ndtr / ndtri
# ndtr's last step is PyTorch's C++ ``tensor * 0.5``: mul.Scalar, MulBackward1 (a Python
# ``t * 0.5`` is mul.Tensor, MulBackward0)
MUL_SCALAR = defop("mul.Scalar(self, *, other)", half_in_float32(np.multiply), "MulBackward1",
                   self=lambda grad, other: grad * other, jvp=ELEMENTWISE)

SPECIAL_LOG_NDTR = defop(
    "special_log_ndtr(self)", _log_ndtr_kernel, "SpecialLogNdtrBackward0", promote="float",
    self=lambda grad, self, result:
        grad / _SQRT_2PI * F.exp(-(result + self * self / 2)),
    jvp=ELEMENTWISE)
SPECIAL_NDTRI = defop(
    "special_ndtri(self)", _ndtri_kernel, "SpecialNdtriBackward0", promote="float",
    self=lambda grad, result: grad * _SQRT_2PI * F.exp(result * result / 2),
    jvp=ELEMENTWISE)


# ====================================================================== mvlgamma
def _mvlgamma_vjp(grad, self, p):
    """grad * sum_j digamma(x - j / 2), j = 0 .. p - 1 (PyTorch's mvlgamma_backward)."""
    s = F.digamma(self)
    for j in range(1, p):
        s = s + F.digamma(self - j / 2.0)
    return grad * s


MVLGAMMA = defop("mvlgamma(self, *, p)", _mvlgamma_kernel, "MvlgammaBackward0",
                 promote="float", self=_mvlgamma_vjp, jvp=ELEMENTWISE)
