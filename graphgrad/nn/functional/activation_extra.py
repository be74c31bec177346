"""Activations for graphgrad.nn.functional: hardtanh / relu6, hardsigmoid, hardswish, mish,
logsigmoid, prelu, glu (table ops with PyTorch's nodes), softsign and tanhshrink
(composites, as PyTorch's), and the channel-wise dropouts dropout1d / dropout2d /
feature_alpha_dropout and alpha_dropout (``input * mask`` / ``input * a + b``, MulBackward0 /
AddBackward0 as in PyTorch).

Derivatives select with ``where`` rather than multiply by a mask, so a NaN or inf on the
branch PyTorch does not take does not leak into the gradient.
"""
from __future__ import annotations

import warnings
import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.creation import rng
from ..._tensor.tensor import Tensor, _wrap_dim
from ...ops.dispatch import dispatch, unary
from ...ops.inplace import dispatch_inplace
from ...ops.registry import export
from ._utils import _real_floating, _tensor_arg, _type_name
from ...ops.derivatives.nn_activation_extra import (
    GLU, HARDSIGMOID, HARDSWISH, HARDTANH, HARDTANH_, LOGSIGMOID, MISH, PRELU)

from ...ops.interpose import interposable

__all__ = ["hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish", "mish", "logsigmoid",
           "softsign", "tanhshrink", "prelu", "glu", "dropout1d", "dropout2d",
           "alpha_dropout", "feature_alpha_dropout"]


# ====================================================================== hardtanh / relu6
def _hardtanh_args(input, min_val, max_val):
    _tensor_arg("hardtanh", input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input._data.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input._data.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False)``: clamp to
    [min_val, max_val]; gradient 1 strictly inside (HardtanhBackward0)."""
    _hardtanh_args(input, min_val, max_val)
    if inplace:
        return dispatch_inplace(HARDTANH_, input, min_val, max_val)
    return dispatch(HARDTANH, input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    _hardtanh_args(input, min_val, max_val)
    return dispatch_inplace(HARDTANH_, input, min_val, max_val)


def relu6(input, inplace=False):
    """``relu6(input, inplace=False)``: hardtanh(input, 0, 6) (HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


# ====================================================================== hardsigmoid / hardswish
def hardsigmoid(input, inplace=False):
    """``hardsigmoid(input, inplace=False)``: relu6(x + 3) / 6 (HardsigmoidBackward0)."""
    _tensor_arg("hardsigmoid", input)
    _real_floating("hardsigmoid_cpu", input)
    return dispatch_inplace(HARDSIGMOID, input) if inplace else unary(HARDSIGMOID, input)


def hardswish(input, inplace=False):
    """``hardswish(input, inplace=False)``: x relu6(x + 3) / 6 (HardswishBackward0)."""
    _tensor_arg("hardswish", input)
    _real_floating("hardswish_cpu", input)
    return dispatch_inplace(HARDSWISH, input) if inplace else unary(HARDSWISH, input)


# ====================================================================== mish / logsigmoid
def mish(input, inplace=False):
    """``mish(input, inplace=False)``: x tanh(softplus(x)) (MishBackward0)."""
    _tensor_arg("mish", input)
    _real_floating("mish_cpu", input)
    return dispatch_inplace(MISH, input) if inplace else unary(MISH, input)


def logsigmoid(input):
    """``logsigmoid(input)``: log(sigmoid(x)) = -softplus(-x) (LogSigmoidBackward0)."""
    _tensor_arg("logsigmoid", input)
    _real_floating("log_sigmoid_cpu", input)
    return unary(LOGSIGMOID, input)


def softsign(input):
    """``softsign(input)``: x / (1 + |x|) (composite, as PyTorch's: DivBackward0)."""
    _tensor_arg("softsign", input)
    return input / (input.abs() + 1)


def tanhshrink(input):
    """``tanhshrink(input)``: x - tanh(x) (composite, as PyTorch's: SubBackward0)."""
    _tensor_arg("tanhshrink", input)
    return input - input.tanh()


# ====================================================================== prelu
@interposable("prelu")
def prelu(input, weight):
    """``prelu(input, weight)``: max(0, x) + weight * min(0, x), one weight or one per channel
    (dim 1); the weight is viewed to broadcast (ViewBackward0 -> PreluKernelBackward0)."""
    _tensor_arg("prelu", input)
    _tensor_arg("prelu", weight, "weight", 2)
    if weight._data.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight._data.ndim}")
    nd = input._data.ndim
    nw = weight._data.size
    c = input._data.shape[1] if nd >= 2 else 1
    if nw != 1 and nw != c:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {nw} and channel size = {c}.")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_type_name(input)} and "
                           f"{_type_name(weight)}")
    _real_floating("prelu_cpu", input)
    w = weight
    if nd >= 2:
        shape = [1] * nd
        shape[1] = nw
        w = weight.view(tuple(shape))
    return dispatch(PRELU, input, w)


# ====================================================================== glu
def glu(input, dim=-1):
    """``glu(input, dim=-1)``: a * sigmoid(b) of the two halves of ``dim`` (GluBackward0)."""
    _tensor_arg("glu", input)
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, nd)
    if input._data.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input._data.shape[d]}")
    _real_floating("glu_cpu", input)
    return dispatch(GLU, input, d - nd)


# ====================================================================== channel dropouts
def _p_check(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _bernoulli_keep(shape, p, dtype):
    real = dtype if dtype in (np.float32, np.float64) else np.float32
    return rng().random(shape, dtype=real) >= p


def _feature_dropout(input, p, training, inplace):
    """PyTorch's feature_dropout: one draw per (sample, channel) of an (N, C, *) tensor."""
    if not training or p == 0:
        return input
    d = input._data
    if d.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input "
                           f"(got a {d.ndim}-D tensor of shape {list(d.shape)}: channel-wise "
                           "dropout needs a channel dimension; use dropout for this input)")
    shape = d.shape[:2] + (1,) * (d.ndim - 2)
    if p == 1:   # (no draw: any dtype, as PyTorch's input * zeros)
        m = Tensor._wrap(np.zeros(shape, d.dtype))
        return input.mul_(m) if inplace else input * m
    if d.dtype.kind != "f" and input.dtype is not _dtype.bfloat16:
        raise RuntimeError(f'"bernoulli_scalar_cpu_" not implemented for \'{_type_name(input)}\'')
    keep = _bernoulli_keep(shape, p, d.dtype)
    mask = keep.astype(d.dtype)
    if p < 1:
        mask *= np.asarray(1.0 / (1.0 - p), d.dtype)
    m = Tensor._wrap(mask)
    if inplace:
        return input.mul_(m)
    return input * m


def dropout1d(input, p=0.5, training=True, inplace=False):
    """``dropout1d(input, p=0.5, training=True, inplace=False)`` on (N, C, L) or (C, L):
    zero whole channels with probability p, scale the rest by 1 / (1 - p) (MulBackward0)."""
    _tensor_arg("dropout1d", input)
    _p_check(p)
    nd = input._data.ndim
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    if nd == 3:
        return _feature_dropout(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    r = _feature_dropout(x, p, training, inplace)
    return r.squeeze_(0) if inplace else r.squeeze(0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """``dropout2d(input, p=0.5, training=True, inplace=False)`` on (N, C, H, W): zero whole
    channels (MulBackward0); a 3-D input is taken as (N, C, L), with PyTorch's warning."""
    _tensor_arg("dropout2d", input)
    _p_check(p)
    nd = input._data.ndim
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout(input, p=0.5, training=False, inplace=False)``: dropout for SELU
    networks; dropped units take SELU's saturation value, then an affine map keeps mean and
    variance (AddBackward0 <- MulBackward0)."""
    _tensor_arg("alpha_dropout", input)
    _p_check(p)
    if not training or p == 0:
        return input
    d = input._data
    keep = np.zeros(d.shape, bool) if p == 1 else _bernoulli_keep(d.shape, p, d.dtype)
    return _alpha_apply(input, keep, p, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``feature_alpha_dropout(input, p=0.5, training=False, inplace=False)``: alpha dropout
    of whole channels."""
    _tensor_arg("feature_alpha_dropout", input)
    _p_check(p)
    if not training or p == 0:
        return input
    d = input._data
    if d.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input "
                           f"(got a {d.ndim}-D tensor of shape {list(d.shape)}: channel-wise "
                           "dropout needs a channel dimension; use dropout for this input)")
    shape = d.shape[:2] + (1,) * (d.ndim - 2)
    keep = np.zeros(shape, bool) if p == 1 else _bernoulli_keep(shape, p, d.dtype)
    return _alpha_apply(input, keep, p, inplace)


_SELU_SAT = -1.7580993408473766   # -scale * alpha of SELU


def _alpha_apply(input, keep, p, inplace):
    """(x * keep + sat * (1 - keep)) * a + b with a, b restoring zero mean, unit variance:
    computed as x * (keep * a) + ((1 - keep) * sat * a + b)."""
    d = input._data
    a = 1.0 / np.sqrt((_SELU_SAT * _SELU_SAT * p + 1) * (1 - p)) if p < 1 else 0.0
    b = -a * _SELU_SAT * p
    mult = Tensor._wrap((keep * a).astype(d.dtype))
    add = Tensor._wrap(((~keep) * (_SELU_SAT * a) + b).astype(d.dtype))
    if inplace:
        return input.mul_(mult).add_(add)
    return input * mult + add


export("prelu")(prelu)
export("alpha_dropout", method=False)(alpha_dropout)
export("feature_alpha_dropout", method=False)(feature_alpha_dropout)
