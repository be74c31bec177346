"""The table, nn_activation_extra family: hardtanh/relu6, hardsigmoid, hardswish, mish,
logsigmoid, prelu, glu.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_activation_extra.py, public functions in nn/functional/activation_extra.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..._core.opmath import half_in_float32, number_like
from ..registry import ELEMENTWISE, POINTWISE, defop
from .copies import _cat as _cat_tensors  # (the public cat, reached at call time)
from ..kernels.nn_activation_extra import (
    _glu_kernel, _hardsigmoid_kernel, _hardswish_kernel, _hardtanh_kernel, _logsigmoid_kernel,
    _mish_kernel, _prelu_kernel, _softplus_np)


# ====================================================================== hardtanh / relu6
def _hardtanh_vjp(grad, self, min_val, max_val):
    inside = (self > number_like(min_val, self)) & (self < number_like(max_val, self)) \
        if not isinstance(self, Tensor) else (self > min_val).logical_and(self < max_val)
    return F.where(inside, grad, 0.0)


HARDTANH = defop("hardtanh(self, *, min_val, max_val)", _hardtanh_kernel, "HardtanhBackward0",
                 self=_hardtanh_vjp, jvp=ELEMENTWISE)
# in place: the result decides (it lies strictly inside exactly where the input did)
HARDTANH_ = defop("hardtanh_(self, *, min_val, max_val)", _hardtanh_kernel, "HardtanhBackward0",
                  self=lambda grad, result, min_val, max_val:
                      _hardtanh_vjp(grad, result, min_val, max_val), jvp=ELEMENTWISE)


# ====================================================================== hardsigmoid / hardswish
HARDSIGMOID = defop(
    "hardsigmoid(self)", _hardsigmoid_kernel, "HardsigmoidBackward0",
    self=half_in_float32(lambda grad, self: F.where((self > -3.0) & (self < 3.0)
                                                    if not isinstance(self, Tensor) else
                                                    (self > -3.0).logical_and(self < 3.0),
                                                    grad / 6.0, 0.0)),
    jvp=ELEMENTWISE)


def _hardswish_vjp(grad, self):
    return F.where(self < -3.0, 0.0, F.where(self <= 3.0, grad * (self / 3.0 + 0.5), grad))


HARDSWISH = defop("hardswish(self)", _hardswish_kernel, "HardswishBackward0",
                  self=half_in_float32(_hardswish_vjp), jvp=ELEMENTWISE)


# ====================================================================== mish / logsigmoid
def _mish_vjp(grad, self):
    t = F.tanh(F.softplus(self, 1.0, 20.0)) if isinstance(self, Tensor) else \
        np.tanh(_softplus_np(self))
    return grad * (t + self * F.sigmoid(self) * (1 - t * t))


MISH = defop("mish(self)", _mish_kernel, "MishBackward0", self=half_in_float32(_mish_vjp),
             jvp=ELEMENTWISE)


LOGSIGMOID = defop("log_sigmoid(self)", _logsigmoid_kernel, "LogSigmoidBackward0",
                   self=half_in_float32(lambda grad, self: grad * F.sigmoid(-self)),
                   jvp=ELEMENTWISE)


# ====================================================================== prelu
def _prelu_self_vjp(grad, self, weight):
    return F.where(self > 0, grad, grad * weight)


def _prelu_weight_vjp(grad, self, weight_sym_sizes, self_sym_sizes):
    return F.sum_to(F.where(self > 0, 0.0, grad * self), tuple(weight_sym_sizes),
                    max(len(self_sym_sizes), len(weight_sym_sizes)))


PRELU = defop(
    "_prelu_kernel(self, weight)", _prelu_kernel, "PreluKernelBackward0",
    self=half_in_float32(_prelu_self_vjp),
    weight=half_in_float32(_prelu_weight_vjp),
    jvp=lambda self_t, weight_t, self, weight:
        F.where(self > 0, self_t, self_t * weight + self * weight_t),
    batched_jvp=POINTWISE)


# ====================================================================== glu
def _cat(parts, dim):
    if any(isinstance(p, Tensor) for p in parts):
        return _cat_tensors(list(parts), dim)
    return np.concatenate(parts, axis=dim)


def _halves(x, dim):
    n = F.shape(x)[dim] // 2
    if isinstance(x, Tensor):
        return x.narrow(dim, 0, n), x.narrow(dim, n, n)
    return np.split(x, [n], axis=dim)


@half_in_float32
def _glu_vjp(grad, self, dim):
    a, b = _halves(self, dim)
    s = F.sigmoid(b)
    return _cat([grad * s, grad * a * s * (1 - s)], dim)


GLU = defop("glu(self, *, dim)", _glu_kernel, "GluBackward0", self=_glu_vjp,
            jvp=lambda self_t, self, dim: _glu_jvp(self_t, self, dim), batched_jvp=True)


def _glu_jvp(self_t, self, dim):
    a, b = _halves(self, dim)
    at, bt = _halves(self_t, dim)
    s = F.sigmoid(b)
    return at * s + a * s * (1 - s) * bt
