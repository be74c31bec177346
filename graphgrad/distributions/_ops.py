"""The public functions graphgrad.distributions is written with, gathered from the layers
below (the package is a composite of graphgrad's ops; pointwise math is Tensor methods)."""
from __future__ import annotations

from .._core.dtypes import bool as bool_, finfo, get_default_dtype, int64  # noqa: F401
from .._tensor._size_device import Size  # noqa: F401
from .._tensor.creation import (arange, as_tensor, eye, full, ones, rand, randn, tensor,  # noqa: F401
                                zeros)
from .._tensor.random import numpy_rng  # noqa: F401
from .._tensor.tensor import Tensor  # noqa: F401
from ..autograd.grad_mode import enable_grad, no_grad  # noqa: F401
from ..nn.functional.activation import softplus  # noqa: F401
from ..nn.functional.embedding import one_hot  # noqa: F401
from ..nn.functional.loss_bce import binary_cross_entropy_with_logits  # noqa: F401
from ..nn.functional.softmax import log_softmax, softmax  # noqa: F401
from ..ops.api.comparison import where  # noqa: F401
from ..ops.api.copies import cat, stack  # noqa: F401
from ..ops.api.linalg import diag_embed, diagonal  # noqa: F401
from ..ops.api.linalg_decompositions import cholesky_ex, eigvalsh, slogdet  # noqa: F401
from ..ops.api.linalg_extra import solve_triangular  # noqa: F401
from ..ops.api.pointwise_binary import clamp, xlogy  # noqa: F401
from ..ops.api.random_ops import multinomial  # noqa: F401
from ..ops.api.reductions import logsumexp  # noqa: F401
from ..ops.api.shape_composite import broadcast_shapes, broadcast_tensors  # noqa: F401
from ..autograd.forward_ad import unpack_dual  # noqa: F401
from ..nn.functional.activation_extra import logsigmoid  # noqa: F401
from ..nn.functional.padding import pad  # noqa: F401
from ..ops.api.pointwise_more import special_i1  # noqa: F401
from ..ops.api.special import mvlgamma  # noqa: F401
import numpy as _np  # noqa: E402

from ..ops.interpose import all_values as _all_values  # noqa: E402


def all_true(t):
    """Whether every entry of the bool tensor ``t`` is True -- inside vmap, of every example
    (as torch._is_all_true), so that argument validation works under vmap."""
    return bool(_np.all(_all_values(t._data)))
