"""isin, and the unsafe_split family (split/chunk whose outputs are not views to autograd).

``unsafe_split``/``unsafe_chunk``/``unsafe_split_with_sizes`` share memory with their input
like ``split``, but autograd does not track them as views (PyTorch's "unsafe" ops): an
in-place op on one output is allowed and does not rewrite the input's history.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor, _check_device
from ..dispatch import dispatch
from ..registry import export
from .views import check_split_size, check_split_sizes, chunk_with, _split_dim
from ..._tensor import creation as _creation
from ..derivatives.misc_ops import (
    CLONE_CHANNELS_LAST, TO_CHANNELS_LAST, UNSAFE_SPLIT, UNSAFE_SPLIT_WITH_SIZES)


# ------------------------------------------------------------------ isin
def _as_array(x, name):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (bool, int, float, np.number)):
        return np.asarray(x)
    raise TypeError(f"isin(): argument '{name}' must be Tensor or Number, not "
                    f"{type(x).__name__}")


@export(method=False)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements`` (a bool tensor, never
    requiring grad)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): at least one of 'elements' and 'test_elements' must be a "
                        "Tensor")
    a = _as_array(elements, "elements")
    b = _as_array(test_elements, "test_elements")
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise RuntimeError("isin(): complex tensors are not supported (compare the real and "
                           "imaginary parts separately)")
    return Tensor._wrap(np.asarray(np.isin(a, b, invert=bool(invert))))


# ------------------------------------------------------------------ unsafe_split family
def _unsafe_split_int(input, split_size, d):
    nd = input._data.ndim
    n = input._data.shape[d]
    check_split_size("unsafe_split", split_size, n)
    return dispatch(UNSAFE_SPLIT, input, split_size, d - nd)


def _unsafe_split_sizes(input, sizes, d):
    nd = input._data.ndim
    n = input._data.shape[d]
    sizes = check_split_sizes(sizes, n, d)
    if not sizes:
        return ()
    return dispatch(UNSAFE_SPLIT_WITH_SIZES, input, sizes, d - nd)


@export()
def unsafe_split(tensor, split_size, dim=0):
    """Like ``split`` (equal pieces of ``split_size``), but the outputs are not views to
    autograd, so in-place ops on them are allowed."""
    if isinstance(split_size, (list, tuple)) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__} (for a list of sizes use "
                        f"unsafe_split_with_sizes)")
    d = _split_dim(tensor, dim, "unsafe_split")
    return _unsafe_split_int(tensor, int(split_size), d)


@export()
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return _unsafe_split_sizes(input, split_sizes,
                               _split_dim(input, dim, "unsafe_split_with_sizes"))


@export()
def unsafe_chunk(input, chunks, dim=0):
    """Like ``chunk``, but the outputs are not views to autograd."""
    return chunk_with(input, chunks, dim, "unsafe_chunk", _unsafe_split_int, _unsafe_split_sizes)


# ------------------------------------------------------------------ signbit
@export()
def signbit(input, *, out=None):
    """Whether each element's sign bit is set (True for -0.0 and negative values); a bool
    tensor, never requiring grad."""
    if not isinstance(input, Tensor):
        raise TypeError(f"signbit(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input._data.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    r = Tensor._wrap(np.asarray(np.signbit(input._data)))
    if out is not None:
        from .conversion import _write_out
        return _write_out(r, out)
    return r


# ------------------------------------------------------------------ channels_last layouts
def channels_last_strides(shape, itemsize=1):
    """The strides (in units of ``itemsize``) of a channels-last tensor of ``shape``."""
    nd = len(shape)
    order = [0] + list(range(2, nd)) + [1]        # slowest to fastest
    strides = [0] * nd
    step = itemsize
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def is_channels_last(a, nd):
    if a.ndim != nd:
        return False
    want = channels_last_strides(a.shape, a.itemsize)
    return all(s == w for s, w, n in zip(a.strides, want, a.shape) if n > 1)


def to_channels_last(op, t, fmt_name, nd):
    if t._data.ndim != nd:
        raise RuntimeError(f"{op}(): required rank {nd} tensor to use {fmt_name} format "
                           f"(got a {t._data.ndim}-d tensor)")
    return dispatch(TO_CHANNELS_LAST if op == "to" else CLONE_CHANNELS_LAST, t, nd)


# ------------------------------------------------------------------ empty_strided
@export(method=False)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A tensor of ``size`` whose elements sit ``stride`` elements apart in a buffer just
    large enough for them (values zero here; PyTorch leaves them uninitialised)."""
    _check_device(device)
    size = _creation._size((tuple(size),))
    stride = tuple(int(s) for s in stride)
    if len(stride) != len(size):
        raise RuntimeError(f"mismatch in length of strides and shape (size {list(size)}, "
                           f"stride {list(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided(): negative strides are not supported (got "
                           f"{list(stride)})")
    dt = _creation._dt(dtype)
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    buf = np.zeros(extent, dt)
    item = buf.itemsize
    arr = np.lib.stride_tricks.as_strided(buf, shape=size, strides=[s * item for s in stride])
    return _creation._finish(arr, requires_grad)
