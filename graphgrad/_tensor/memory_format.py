"""Memory formats (PyTorch's ``torch.memory_format``) and ``torch.is_inference``.

graphgrad tensors are NumPy arrays: ``contiguous_format`` (row-major) and
``preserve_format`` (keep a dense input's strides) are honoured where PyTorch takes a
``memory_format=``; ``clone``, ``contiguous`` and ``to`` also produce the
``channels_last``/``channels_last_3d`` layouts of 4-d/5-d tensors (NumPy arrays whose
channel dim varies fastest); the ``*_like`` creators give row-major tensors.
"""
from __future__ import annotations
from .tensor import Tensor

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
    if isinstance(fmt, memory_format):
        return fmt
    raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, "
                    f"not {type(fmt).__name__}")


def channels_last_rank(fmt):
    """4 for channels_last, 5 for channels_last_3d, None for the other formats."""
    return 4 if fmt is channels_last else 5 if fmt is channels_last_3d else None


def apply(op, t, fmt, copy):
    """``t`` in layout ``fmt`` (a channels-last copy, a row-major copy, or ``t`` itself when
    it is already laid out so and ``copy`` is False); None: the caller's default."""
    from ..ops.api import misc_ops
    nd = channels_last_rank(fmt)
    if nd is not None:
        if not copy and misc_ops.is_channels_last(t._data, nd):
            return t
        return misc_ops.to_channels_last(op, t, fmt._name, nd)
    return None


def is_inference(input):
    """True if ``input`` was made in inference mode (an inference tensor)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    return input.is_inference()
