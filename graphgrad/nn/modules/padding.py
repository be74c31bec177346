"""Padding layers (PyTorch's torch.nn.modules.padding): constant/zero, reflection,
replication and circular padding of the last 1, 2 or 3 dims, via ``F.pad``."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
           "CircularPad2d", "ConstantPad3d", "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d",
           "CircularPad3d"]


def _tuple(n, v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _PadNd(Module):
    __constants__ = ["padding"]
    _n = 2
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _tuple(self._n, padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value`` ((left, right) or one int for both)."""
    _n = 2


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with ``value`` ((left, right, top, bottom) or one int)."""
    _n = 4


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pads the last dim with its reflection (edge not repeated)."""
    _n, _mode = 2, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last two dims with their reflection."""
    _n, _mode = 4, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values."""
    _n, _mode = 2, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last two dims by repeating their edge values."""
    _n, _mode = 4, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"
    _dims = (2, 3)

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got "
                             f"{input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dim periodically (wrapping around)."""
    _n, _dims = 2, (2, 3)


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims periodically."""
    _n, _dims = 4, (3, 4)


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with ``value`` ((left, right, top, bottom, front, back) or
    one int)."""
    _n = 6


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad3d(_PadNd):
    """Pads the last three dims with their reflection."""
    _n, _mode = 6, "reflect"


class ReplicationPad3d(_PadNd):
    """Pads the last three dims by repeating their edge values."""
    _n, _mode = 6, "replicate"


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims periodically."""
    _n, _dims = 6, (4, 5)
