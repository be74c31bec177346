"""Memory formats (PyTorch's ``torch.memory_format``) and ``torch.is_inference``.

graphgrad tensors are NumPy arrays: ``contiguous_format`` (row-major) and
``preserve_format`` (keep a dense input's strides) are honoured where PyTorch takes a
``memory_format=``; ``channels_last``/``channels_last_3d`` exist as names but producing
such a layout raises NotImplementedError (docs/differences.md).
"""
from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d", "is_inference"]


class memory_format:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def check_memory_format(op, fmt):
    """Validate a ``memory_format=`` argument; returns it (None means the op's default)."""
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return fmt
    if fmt is channels_last or fmt is channels_last_3d:
        raise NotImplementedError(
            f"{op}(): memory_format={fmt!r} is not supported by graphgrad (tensors are NumPy "
            "arrays in row-major or their input's layout); use torch.contiguous_format or "
            "torch.preserve_format")
    raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, "
                    f"not {type(fmt).__name__}")


def is_inference(input):
    """True if ``input`` was made in inference mode (an inference tensor)."""
    from ._tensor import Tensor
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    return input.is_inference()
