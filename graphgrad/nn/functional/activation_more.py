"""Activations for graphgrad.nn.functional: selu, celu, softshrink, hardshrink, rrelu (table ops
with PyTorch's nodes: EluBackward0, CeluBackward0, SoftshrinkBackward0, HardshrinkBackward0,
RreluWithNoiseBackward0, and their in-place ...Backward1) and softmin (softmax of the
negation, as PyTorch's: SoftmaxBackward0 <- NegBackward0).

selu is PyTorch's elu with scale and input_scale (one op, ops/derivatives/nn_activation.py);
rrelu draws its slopes from graphgrad's generator (``manual_seed``), so its training values
differ from PyTorch's draws; in evaluation it is leaky_relu with the mean slope.
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.creation import rng
from ..._tensor.tensor import Tensor
from ...ops.dispatch import dispatch
from ...ops.inplace import dispatch_inplace
from ...ops.registry import export
from ._utils import _real_floating, _tensor_arg, _type_name
from .softmax import _softmax_dim, _softmax_like
from ...ops.derivatives.nn_activation import ELU, ELU_
from ...ops.derivatives.nn_softmax import SOFTMAX
from ...ops.derivatives.nn_activation_more import (CELU, CELU_, HARDSHRINK, RRELU, RRELU_,
                                                   SOFTSHRINK)

__all__ = ["selu", "selu_", "celu", "celu_", "softshrink", "hardshrink", "rrelu", "rrelu_",
           "softmin"]

# SELU's constants (Klambauer et al., 2017), as PyTorch's
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ====================================================================== selu / celu
def selu(input, inplace=False):
    """``selu(input, inplace=False)``: scale * elu(x, alpha) with SELU's constants
    (EluBackward0, saving alpha, scale and input_scale)."""
    _tensor_arg("selu", input)
    if inplace:
        return selu_(input)
    _real_floating("elu_cpu", input)
    return dispatch(ELU, input, _SELU_ALPHA, _SELU_SCALE, 1)


def selu_(input):
    """In-place ``selu`` (EluBackward1)."""
    _tensor_arg("selu_", input)
    _real_floating("elu_cpu", input)
    return dispatch_inplace(ELU_, input, _SELU_ALPHA, _SELU_SCALE, 1)


def _celu_args(name, input, alpha):
    _tensor_arg(name, input)
    _number_arg(name, "alpha", alpha, 2)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _real_floating("elu_cpu", input)
    return float(alpha)


def celu(input, alpha=1.0, inplace=False):
    """``celu(input, alpha=1.0, inplace=False)``: max(0, x) + min(0, alpha (exp(x / alpha) -
    1)) (CeluBackward0)."""
    if inplace:
        return celu_(input, alpha)
    return dispatch(CELU, input, _celu_args("celu", input, alpha))


def celu_(input, alpha=1.0):
    """In-place ``celu`` (CeluBackward1)."""
    return dispatch_inplace(CELU_, input, _celu_args("celu_", input, alpha))


# ====================================================================== softshrink / hardshrink
def _number_arg(name, arg, v, pos):
    if isinstance(v, Tensor) and v.numel() == 1:
        return v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Number, not "
                        f"{type(v).__name__}")
    return v


def _largest(x):
    if x.dtype is _dtype.bfloat16:
        return 3.3895313892515355e+38
    return float(np.finfo(x._data.dtype).max)


def softshrink(input, lambd=0.5):
    """``softshrink(input, lambd=0.5)``: x - lambd above lambd, x + lambd below -lambd, 0
    between (SoftshrinkBackward0)."""
    _tensor_arg("softshrink", input)
    lambd = _number_arg("softshrink", "lambd", lambd, 2)
    _real_floating("softshrink_check", input)
    top = _largest(input)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{_type_name(input)}, but found {lambd:g}: softshrink needs "
                           "lambd >= 0")
    return dispatch(SOFTSHRINK, input, lambd)


def _hardshrink_public(input, lambd=0.5):
    """``hardshrink(input, lambd=0.5)``: x outside [-lambd, lambd], 0 inside
    (HardshrinkBackward0)."""
    _tensor_arg("hardshrink", input)
    lambd = _number_arg("hardshrink", "lambd", lambd, 2)
    _real_floating("hardshrink_cpu", input)
    return dispatch(HARDSHRINK, input, lambd)


_hardshrink_public.__name__ = _hardshrink_public.__qualname__ = "hardshrink"
hardshrink = export("hardshrink")(_hardshrink_public)


# ====================================================================== rrelu
def _rrelu_args(name, input, lower, upper, training):
    _tensor_arg(name, input)
    lower = _number_arg(name, "lower", lower, 2)
    upper = _number_arg(name, "upper", upper, 3)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if training:
        if input._data.dtype.kind != "f" or input._data.dtype == np.float16:
            if input.dtype is not _dtype.bfloat16:
                raise NotImplementedError(f'"rrelu_with_noise_out_cpu" not implemented for '
                                          f"'{_type_name(input)}': {name} in training needs "
                                          "a float32, float64 or bfloat16 input")
    else:
        _real_floating("leaky_relu_cpu", input)
    return float(lower), float(upper), bool(training)


def _noise(input, lower, upper, training, generator):
    """The slopes: in training 1 where x > 0 and uniform in [lower, upper] elsewhere, in the
    input's dtype; in evaluation unused (zeros, PyTorch's is uninitialized memory)."""
    d = input._data
    if not training:
        return Tensor._wrap(np.zeros(d.shape, d.dtype))
    draw = rng(generator).uniform(lower, upper, d.shape)
    return Tensor._wrap(np.where(d > 0, 1.0, draw).astype(d.dtype))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, generator=None):
    """``rrelu(input, lower=1/8, upper=1/3, training=False, inplace=False)``: in training x
    times a slope drawn uniformly from [lower, upper] where x <= 0, in evaluation leaky_relu
    with slope (lower + upper) / 2 (RreluWithNoiseBackward0, both modes)."""
    if inplace:
        return rrelu_(input, lower, upper, training, generator=generator)
    lower, upper, training = _rrelu_args("rrelu", input, lower, upper, training)
    noise = _noise(input, lower, upper, training, generator)
    return dispatch(RRELU, input, noise, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place ``rrelu`` (RreluWithNoiseBackward1)."""
    lower, upper, training = _rrelu_args("rrelu_", input, lower, upper, training)
    noise = _noise(input, lower, upper, training, generator)
    return dispatch_inplace(RRELU_, input, noise, lower, upper, training)


# ====================================================================== softmin
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmin(input, dim=None, _stacklevel=3, dtype=None)``: softmax(-x) along ``dim``
    (SoftmaxBackward0 <- NegBackward0, or <- ToCopyBackward0 with ``dtype``, as PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bad operand type for unary -: '{type(input).__name__}'")
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel + 1)
    return _softmax_like(SOFTMAX, "softmax", -input, dim, dtype)


def _torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``graphgrad.rrelu(input, lower=1/8, upper=1/3, training=False, generator=None)``."""
    return rrelu(input, lower, upper, training, generator=generator)


def _torch_selu(input):
    """``graphgrad.selu(input)``."""
    return selu(input)


def _torch_celu(input, alpha=1.0):
    """``graphgrad.celu(input, alpha=1.0)``."""
    return celu(input, alpha)


for _name, _fn in (("selu", _torch_selu), ("selu_", selu_), ("celu", _torch_celu),
                   ("celu_", celu_), ("rrelu", _torch_rrelu), ("rrelu_", rrelu_)):
    _fn.__name__ = _fn.__qualname__ = _name
    export(_name, method=False)(_fn)
