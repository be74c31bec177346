"""layer_norm and normalize."""
from __future__ import annotations

import numpy as np

from ..._core.dtypes import scalar_type_name
from ...ops.dispatch import dispatch
from ...ops.api.pointwise import div as _div
from ._utils import _tensor_arg, _real_floating
from ...ops.derivatives.nn_norm import LAYER_NORM


# ====================================================================== layer norm
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
