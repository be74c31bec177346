"""``tensor.shape``'s ``Size`` and ``device`` (PyTorch's ``torch.Size``, ``torch.device``),
with the check that a device is the CPU (re-exported by tensor.py)."""
from __future__ import annotations


class Size(tuple):
    """``tensor.shape``: a tuple that prints like PyTorch's ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"graphgrad.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:
    """A device description, as ``torch.device``: ``device('cpu')``, ``device('cuda', 0)``,
    ``device('cuda:1')``.  Any of PyTorch's device types can be described; only the CPU
    can hold tensors (see ``_check_device``)."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type   # torch.device(0) is cuda:0
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments: got "
                            f"{builtins_type(type).__name__}")
        else:
            if ":" in type:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index "
                                       f"was passed explicitly: {type}")
                type, _, idx = type.partition(":")
                if not idx.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
                index = int(idx)
            if type not in _DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at "
                                   f"start of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = type, index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, device):
            return self.type == other.type and self.index == other.index
        return isinstance(other, str) and other == str(self)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

def builtins_type(x):
    return x.__class__


def _check_device(dev):
    """Accept ``dev`` (None, a str, an int or a device) only if it is the CPU: without CUDA,
    PyTorch's CPU build raises AssertionError("Torch not compiled with CUDA enabled")."""
    if dev is None or dev is _CPU or dev == "cpu":
        return
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cpu":
        return
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled (graphgrad runs on the CPU "
                             "only; graphgrad.cuda.is_available() is False)")
    raise RuntimeError(f"graphgrad runs on the CPU only; device {str(d)!r} is not available")


_CPU = device()
