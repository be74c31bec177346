"""dropout."""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ...ops import registry as _registry
from ...ops.dispatch import binary
from ...ops.inplace import dispatch_inplace
from ._utils import _tensor_arg, _type_name
from ..._tensor.creation import rng

# ====================================================================== dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """``dropout(input, p=0.5, training=True, inplace=False)``.

    Zeroes each element with probability ``p`` (drawn from graphgrad's generator, seeded by
    ``graphgrad.manual_seed``) and scales the rest by ``1 / (1 - p)``; the result is
    ``input * mask`` (MulBackward0), so the gradient is ``mask``.  Returns ``input`` itself
    when not training or ``p == 0``.
    """
    _tensor_arg("dropout", input)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    d = input._data
    if d.dtype.kind != "f" and input.dtype.name != "bfloat16":
        raise RuntimeError(f'"bernoulli_scalar_cpu_" not implemented for \'{_type_name(input)}\'')
    real = d.dtype if d.dtype in (np.float32, np.float64) else np.float32
    if input.__class__ is not Tensor and p != 1:
        # a Tensor subclass (vmap's BatchedTensor, whose _data is one example): the mask
        # drawn by the table's bernoulli_ on a tensor like the input, so vmap's randomness
        # modes apply (PyTorch draws per example under randomness="different")
        mask = (input.detach() * 0).bernoulli_(1.0 - p) * (1.0 / (1.0 - p))
        if inplace:
            return dispatch_inplace(_registry.OPS["mul"], input, mask)
        return binary(_registry.OPS["mul"], input, mask)
    if p == 1:
        mask = np.zeros(d.shape, d.dtype)
    else:
        u = rng().random(d.shape, dtype=real)
        mask = (u >= p).astype(d.dtype)
        mask *= np.asarray(1.0 / (1.0 - p), d.dtype)
    m = Tensor._wrap(mask)
    if inplace:
        return dispatch_inplace(_registry.OPS["mul"], input, m)
    return binary(_registry.OPS["mul"], input, m)
