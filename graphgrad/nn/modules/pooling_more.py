"""MaxUnpool1d/2d/3d and LPPool1d/2d/3d (PyTorch's torch.nn.modules.pooling)."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d"]


def _tuple(n, v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _MaxUnpoolNd(Module):
    _k = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(self._k, kernel_size)
        self.stride = _tuple(self._k, stride if stride is not None else kernel_size)
        self.padding = _tuple(self._k, padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return getattr(F, f"max_unpool{self._k}d")(input, indices, self.kernel_size,
                                                   self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: each value at its index, zeros elsewhere."""
    _k = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: each value at its index, zeros elsewhere."""
    _k = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d: each value at its index, zeros elsewhere."""
    _k = 3


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _k = 2

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return getattr(F, f"lp_pool{self._k}d")(input, float(self.norm_type), self.kernel_size,
                                                self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """Power-average pooling (sum of x ** p over each window) ** (1 / p) of (N, C, L)."""
    _k = 1


class LPPool2d(_LPPoolNd):
    """Power-average pooling of (N, C, H, W) inputs."""
    _k = 2


class LPPool3d(_LPPoolNd):
    """Power-average pooling of (N, C, D, H, W) inputs."""
    _k = 3
