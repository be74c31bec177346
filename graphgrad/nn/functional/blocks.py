"""local_response_norm, channel_shuffle (and torch.channel_shuffle /
native_channel_shuffle) and gumbel_softmax (PyTorch's torch.nn.functional)."""
from __future__ import annotations

import operator
import warnings

from ..._core import dtypes as _dtype
from ..._tensor.creation import empty_like, zeros_like
from ...ops.derivatives.nn_upsample import CHANNEL_SHUFFLE
from ...ops.dispatch import dispatch
from ...ops.registry import export
from ._utils import _tensor_arg
from .padding import pad
from .pool import avg_pool2d

__all__ = ["local_response_norm", "channel_shuffle", "native_channel_shuffle", "gumbel_softmax"]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0)``: each entry over
    (k + alpha / size * the sum of squares of ``size`` neighbouring channels) ** beta
    (channels are dim 1; PyTorch's composition, ending in DivBackward0)."""
    _tensor_arg("local_response_norm", input)
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"local_response_norm: expected a 3-D or higher input (N, C, ...), "
                         f"got {dim} dimensions (shape {tuple(input.shape)})")
    if input.numel() == 0:
        return input
    integer = not (input.is_floating_point() or input.is_complex())
    if integer and input.dtype != _dtype.int64:
        raise NotImplementedError(
            f'"avg_pool{2 if dim == 3 else 3}d" not implemented for '
            f"'{_dtype.scalar_type_name(input.dtype)}' (local_response_norm of a "
            f"{input.dtype} input; use int64 or a floating dtype)")
    div = input.mul(input)
    sizes = input.shape
    # the channels' windows: an average over (size, 1) windows of (N, 1, C, rest), zero
    # padded (PyTorch pools 4-D and larger inputs with avg_pool3d over (size, 1, 1):
    # the same numbers)
    div = div.unsqueeze(1) if dim == 3 else div.view(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    if integer:  # (PyTorch's integer average: the window's sum // size)
        div = (avg_pool2d(div.double(), (size, 1), stride=1) * size).round().long() // size
    else:
        div = avg_pool2d(div, (size, 1), stride=1)
    div = div.squeeze(1)
    if dim != 3:
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def _shuffle_checks(name, input, groups):
    _tensor_arg(name, input)
    groups = operator.index(groups)
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError(f"{name} expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    return groups


def channel_shuffle(input, groups):
    """``channel_shuffle(input, groups)``: the C channels (dim 1) of (N, C, *) seen as
    (groups, C / groups) and transposed (ChannelShuffleBackward0)."""
    groups = _shuffle_checks("channel_shuffle", input, groups)
    return dispatch(CHANNEL_SHUFFLE, input, groups, 1 - input.dim())


def native_channel_shuffle(input, groups):
    """``torch.native_channel_shuffle``: channel_shuffle (see docs/differences.md)."""
    groups = _shuffle_checks("channel_shuffle", input, groups)
    return dispatch(CHANNEL_SHUFFLE, input, groups, 1 - input.dim())


export("channel_shuffle", method=False)(channel_shuffle)
export("native_channel_shuffle", method=False)(native_channel_shuffle)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """``gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1)``: a sample of the
    Gumbel-softmax distribution, softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn
    from graphgrad's generator; ``hard``: the one-hot of its argmax, with the soft sample's
    gradient (straight through)."""
    _tensor_arg("gumbel_softmax", logits, "logits")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not (logits.is_floating_point() or logits.dtype == _dtype.bfloat16):
        raise RuntimeError(f"gumbel_softmax: logits must be floating point (got "
                           f"{logits.dtype}); convert them, e.g. logits.float()")
    gumbels = -empty_like(logits).exponential_().log()  # ~ Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
