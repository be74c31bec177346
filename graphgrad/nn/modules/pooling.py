"""Pooling layers (PyTorch's torch.nn.modules.pooling): MaxPool1d/2d, AvgPool1d/2d,
AdaptiveAvgPool1d/2d.

The 1-D poolings run the 2-D kernels on a (.., 1, L) view and squeeze it away again, as
PyTorch's own max_pool1d/avg_pool1d do when autograd is recording (so the result's
``grad_fn`` is the same SqueezeBackward1)."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d"]


def _one(v, name):
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError(f"{name} must be a single int, or a tuple of one int, but got "
                               f"{tuple(v)}")
        return v[0]
    return v


def _check_1d_input(fname, input):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"{fname}() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)} ({input.dim()}-D); pass (N, C, L) or (C, L)")


def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    _check_1d_input("max_pool1d", input)
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _one(stride, "stride")
    out = F.max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")),
                       (1, _one(dilation, "dilation")), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def _avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True):
    _check_1d_input("avg_pool1d", input)
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _one(stride, "stride")
    return F.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")),
                        ceil_mode, count_include_pad).squeeze(-2)


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of (N, C, L) or (C, L) inputs."""

    def forward(self, input):
        fn = getattr(F, "max_pool1d", _max_pool1d)
        return fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                  ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of (N, C, H, W) or (C, H, W) inputs."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of (N, C, L) or (C, L) inputs."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) \
            else (kernel_size,)
        st = kernel_size if stride is None else stride
        self.stride = tuple(st) if isinstance(st, (tuple, list)) else (st,)
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        fn = getattr(F, "avg_pool1d", _avg_pool1d)
        return fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                  self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """Mean over sliding windows of (N, C, H, W) or (C, H, W) inputs."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mean pooling to a fixed output length."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mean pooling to a fixed output size (an int, or (H, W) with None keeping a dim)."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)
