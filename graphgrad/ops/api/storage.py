"""Storage-level tensor methods: ``resize_``, ``resize_as_``, ``set_``, ``storage()`` and
``untyped_storage()``.

A graphgrad tensor is a NumPy array; its "storage" is the array that owns the memory (the
root of the ``.base`` chain).  ``storage()`` / ``untyped_storage()`` return small read-only
descriptions of it (length, bytes, data pointer), enough for code that compares storages;
they do not support writing through the storage object.
"""
from __future__ import annotations

import numpy as np

from ..._core.state import tls
from ..._tensor.tensor import Tensor
from ..registry import export
from ._args import require
from ..._tensor.creation import _size
from ..._tensor.tensor import device


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class UntypedStorage:
    """The bytes behind a tensor (PyTorch's ``torch.UntypedStorage``, read-only here)."""

    def __init__(self, array):
        self._root = _root(array)

    def nbytes(self):
        return int(self._root.nbytes)

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def data_ptr(self):
        return int(self._root.__array_interface__["data"][0])

    @property
    def device(self):
        return device("cpu")

    def __repr__(self):
        return f"graphgrad.UntypedStorage(nbytes={self.nbytes()}, data_ptr={self.data_ptr():#x})"


class TypedStorage(UntypedStorage):
    """The elements behind a tensor (PyTorch's deprecated ``torch.TypedStorage``)."""

    def __init__(self, array, dtype):
        super().__init__(array)
        self._itemsize = array.itemsize
        self.dtype = dtype

    def size(self):
        return self.nbytes() // self._itemsize

    def __len__(self):
        return self.size()

    def element_size(self):
        return self._itemsize

    def untyped(self):
        u = UntypedStorage.__new__(UntypedStorage)
        u._root = self._root
        return u

    def __repr__(self):
        return f"graphgrad.TypedStorage(size={self.size()}, dtype={self.dtype})"


@export(function=False)
def storage(self):
    return TypedStorage(self._data, self.dtype)


@export(function=False)
def untyped_storage(self):
    return UntypedStorage(self._data)


def _check_resizable(fn, self):
    if self._requires_grad and not tls.inference:
        raise RuntimeError(f"{fn}(): cannot resize variables that require grad (resize a "
                           "detached copy, e.g. t.detach().resize_(...), or use reshape)")


def _resize(self, shape):
    old = self._data
    if tuple(old.shape) == shape:
        return self
    n = int(np.prod(shape, dtype=np.int64))
    flat = old.reshape(-1)   # a view when the tensor is contiguous
    if n <= flat.size and np.shares_memory(flat, old):
        data = flat[:n].reshape(shape)
    else:  # grows: a new buffer holding the old elements first (the rest zeros)
        data = np.zeros(n, old.dtype)
        k = min(n, flat.size)
        data[:k] = flat[:k]
        data = data.reshape(shape)
    self._bump_version()
    self._data = data
    return self


@export(function=False)
def resize_(self, *sizes, memory_format=None):
    """Change the shape in place, keeping the elements in row-major order (new elements,
    when it grows, are zeros); bumps the version when the shape changes."""
    require("resize_", sizes, "size")
    _check_resizable("resize_", self)
    return _resize(self, _size(sizes))


@export(function=False)
def resize_as_(self, the_template, *, memory_format=None):
    _check_resizable("resize_as_", self)
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' must be Tensor, not "
                        f"{type(the_template).__name__}")
    return _resize(self, tuple(the_template._data.shape))


@export(function=False)
def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Make this tensor share ``source``'s data, shape and strides (``set_()``: an empty
    tensor).  Bumps the version; a leaf's gradient accumulator starts afresh, so a graph
    that used the tensor before no longer reaches it (as in PyTorch)."""
    if storage_offset is not None or size is not None or stride is not None:
        raise NotImplementedError("set_(source, storage_offset, size, stride) is not supported "
                                  "by graphgrad; use set_(source_tensor) or as_strided")
    if source is not None and not isinstance(source, Tensor):
        raise TypeError(f"set_(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__} (graphgrad has no Storage objects to set from)")
    if source is not None and source._data.dtype != self._data.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type "
                           f"{self.dtype}")
    if tls.grad_enabled and self._requires_grad:
        if self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation (set_). Wrap it in torch.no_grad() or set it on a "
                               "detached copy.")
        raise NotImplementedError("set_() of a tensor with autograd history is not supported "
                                  "by graphgrad; call it on a detached tensor")
    self._bump_version()
    self._data = source._data if source is not None else np.zeros(0, self._data.dtype)
    if self._grad_fn is None:
        self._acc = None
    return self


# ---------------------------------------------------------------- (ops-shape) layout facts
@export(function=False)
def storage_offset(self):
    """The tensor's first element's offset, in elements, from the start of its storage."""
    a = self._data
    ptr = a.__array_interface__["data"][0]
    root = _root(a)
    return (ptr - root.__array_interface__["data"][0]) // max(a.itemsize, 1)


Tensor.nbytes = property(lambda self: int(self._data.size * self._data.itemsize),
                         doc="numel() * element_size(), as PyTorch's Tensor.nbytes")
Tensor.itemsize = property(lambda self: int(self._data.itemsize),
                           doc="The size of one element in bytes (element_size())")
Tensor.is_cpu = property(lambda self: True, doc="Always True: graphgrad computes on the CPU")
