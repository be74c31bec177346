"""ChannelShuffle and LocalResponseNorm (PyTorch's torch.nn.modules.channelshuffle and
LocalResponseNorm of torch.nn.modules.normalization)."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle", "LocalResponseNorm"]


class ChannelShuffle(Module):
    """Shuffles the C channels of (N, C, *) inputs: seen as (groups, C / groups),
    transposed (F.channel_shuffle)."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class LocalResponseNorm(Module):
    """Normalises each entry of (N, C, *) inputs over ``size`` neighbouring channels
    (F.local_response_norm)."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
