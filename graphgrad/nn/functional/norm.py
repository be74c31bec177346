"""layer_norm and normalize."""
from __future__ import annotations

import numpy as np

from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ...ops import formulas as F
from ...ops.dispatch import dispatch
from ...ops.registry import defop
from ..._core.opmath import half_in_float32
from ...ops.api.pointwise import div as _div
from ._utils import _tensor_arg, _real_floating, _sumk, _bpad

# ====================================================================== layer norm
def _ln_axes(normalized_shape):
    return tuple(range(-len(normalized_shape), 0))


@half_in_float32
def _layer_norm_kernel(x, weight, bias, normalized_shape, eps):
    axes = _ln_axes(normalized_shape)
    mean = x.mean(axis=axes, keepdims=True)
    out = np.subtract(x, mean)
    var = np.mean(out * out, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    out *= rstd
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return out, mean, rstd


def _ln_stats(input, result1, result2, normalized_shape, eps):
    """(xhat, rstd): from the saved mean/rstd, or recomputed with graphgrad ops when the rule
    runs on Tensors (create_graph / forward AD), so they are differentiated too."""
    if isinstance(input, Tensor):
        axes = _ln_axes(normalized_shape)
        n = F.numel(normalized_shape)
        xc = input - _sumk(input, axes) / n
        rstd = (_sumk(xc * xc, axes) / n + eps) ** -0.5
        return xc * rstd, rstd
    xhat = np.subtract(input, result1)
    xhat *= result2
    return xhat, result2


@half_in_float32   # (sums of half-precision gradients in float32)
def _ln_input_vjp(grad, input, weight, result1, result2, normalized_shape, eps):
    axes = _ln_axes(normalized_shape)
    n = F.numel(normalized_shape)
    xhat, rstd = _ln_stats(input, result1, result2, normalized_shape, eps)
    g = grad if weight is None else grad * weight
    if isinstance(g, Tensor):
        return rstd * (g - _sumk(g, axes) / n - xhat * (_sumk(g * xhat, axes) / n))
    out = g - g.mean(axis=axes, keepdims=True)
    out -= xhat * (g * xhat).mean(axis=axes, keepdims=True)
    out *= rstd
    return out


def _ln_jvp(input_t, weight_t, bias_t, input, weight, bias, result1, result2, normalized_shape,
            eps):
    axes = _ln_axes(normalized_shape)
    n = F.numel(normalized_shape)
    xhat, rstd = _ln_stats(input, result1, result2, normalized_shape, eps)
    xt = input_t - _sumk(input_t, axes) / n
    out_t = rstd * (xt - xhat * (_sumk(xhat * xt, axes) / n))
    if weight is not None:
        out_t = out_t * weight + xhat * weight_t
    if bias is not None:
        out_t = out_t + bias_t
    return out_t


def _in_param_dtype(g, p):
    """A half-precision gradient of a float32 parameter (mixed type) in float32 before it is
    multiplied and summed, as PyTorch accumulates it."""
    if g.__class__ is np.ndarray and g.dtype != p.dtype and g.dtype.itemsize == 2:
        return g.astype(p.dtype)
    return g


LAYER_NORM = defop(
    "native_layer_norm(input, weight, bias, *, normalized_shape, eps)", _layer_norm_kernel,
    "NativeLayerNormBackward0", n_outputs=3, nondiff_outputs=(1, 2),
    input=_ln_input_vjp,
    weight=lambda grad, input, weight, result1, result2, normalized_shape, eps:
        _in_param_dtype(grad, weight)
        * _in_param_dtype(_ln_stats(input, result1, result2, normalized_shape, eps)[0], weight),
    bias=lambda grad, bias: _in_param_dtype(grad, bias),
    jvp=_ln_jvp,
    # weight and bias have the trailing (normalized) shape: their batched tangents are padded
    # to the input's rank
    batched_jvp=lambda input_t, weight_t, bias_t, input, weight, bias, result1, result2,
    normalized_shape, eps: _ln_jvp(
        input_t, None if weight is None else _bpad(weight_t, weight, F.ndim(input)),
        None if bias is None else _bpad(bias_t, bias, F.ndim(input)), input, weight, bias,
        result1, result2, normalized_shape, eps))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)``: normalise
    over the trailing ``normalized_shape`` dims, then scale and shift
    (NativeLayerNormBackward0)."""
    _tensor_arg("layer_norm", input)
    ns = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else \
        tuple(int(s) for s in normalized_shape)
    shape = input._data.shape
    if not ns or len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in ns)}], but got input of size"
                           f"{list(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t._data.shape)} and normalized_shape "
                               f"= {list(ns)}")
    _real_floating("LayerNormKernelImpl", input)
    dt = input._data.dtype
    # PyTorch's "mixed type": a half-precision input with float32 parameters (LayerNorm
    # after an autocast Linear) runs, the result in the input's dtype
    mixed = dt.itemsize == 2 and dt.kind in "fV" and all(
        t is None or t._data.dtype == np.float32 for t in (weight, bias))
    if not mixed:
        if weight is not None and weight._data.dtype != dt:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                               f"{scalar_type_name(dt)} [layer_norm: weight is "
                               f"{scalar_type_name(weight._data.dtype)}]")
        if bias is not None and bias._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {scalar_type_name(dt)} but found "
                               f"{scalar_type_name(bias._data.dtype)} [layer_norm: bias]")
    out = dispatch(LAYER_NORM, input, weight, bias, ns, float(eps))
    return out[0]


# ====================================================================== normalize, one_hot
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``normalize(input, p=2.0, dim=1, eps=1e-12, out=None)``: input / max(||input||_p, eps)
    along ``dim`` (as PyTorch: norm, clamp_min, expand_as, div)."""
    _tensor_arg("normalize", input)
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _div(input, denom, out=out)
