"""Small names of ``torch.*`` and ``Tensor.*`` that code written for PyTorch uses: aliases
and thin composites of graphgrad's ops (the same graphs as PyTorch's), factory functions,
predicates, and the thread / determinism settings.

Published through the registry (``export``) before graphgrad/__init__ installs the public
names, so this module only has to be imported there.  It sits above nn.functional (layer 7):
torch.dropout and torch.embedding are nn.functional's with ATen's argument conventions.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from ._core import dtypes as _dtype
from ._core.dtypes import to_dtype
from ._tensor.creation import _finish, from_numpy, linspace, tensor
from ._tensor.tensor import Tensor
from .nn.functional.dropout import dropout as _dropout
from .nn.functional.embedding import embedding as _embedding
from .ops.derivatives.nn_linear import ADDMM
from .ops.api.conversion import _write_out
from .ops.api.misc_ops import empty_strided
from .ops.api.pointwise_binary import xlogy_
from .ops.api.special import sinc_
from .ops.derivatives.pointwise import NEG
from .ops.inplace import dispatch_inplace
from .ops.registry import METHODS, PUBLIC, export

__all__ = []


# ---------------------------------------------------------------- autograd / nn aliases
@export(method=False)
def detach(input):
    """``torch.detach(input)``: ``input.detach()``."""
    return input.detach()


@export(method=False)
def dropout(input, p, train):
    """``torch.dropout(input, p, train)``: ATen's dropout (nn.functional.dropout's values and
    MulBackward0 graph; a probability out of [0, 1] is a RuntimeError here, as ATen's)."""
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _dropout(input, p, train)


@export(method=False)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, indices, padding_idx=-1, ...)``: ATen's argument order
    (weight first); a negative padding_idx means none (EmbeddingBackward0)."""
    return _embedding(indices, weight, padding_idx=None if padding_idx < 0 else padding_idx,
                      scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# ---------------------------------------------------------------- factories
def _float_dtype(dtype):
    return _dtype.get_default_dtype() if dtype is None else to_dtype(dtype)


@export(method=False)
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False, out=None):
    """``base ** linspace(start, end, steps)``, computed in float64 and rounded once."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _float_dtype(dtype)
    e = linspace(float(start), float(end), steps, dtype=_dtype.float64)._data
    arr = np.power(float(base), e)
    if dt.is_floating_point or dt.is_complex:
        arr = arr.astype(dt.np)
    else:
        arr = np.trunc(arr).astype(dt.np)
    r = _finish(arr, requires_grad)
    return r if out is None else _write_out(r, out)


@export("range", method=False)
def range_(start=0, end=None, step=1, *, dtype=None, layout=None, device=None,
           requires_grad=False, out=None):
    """Deprecated ``torch.range``: [start, end] with ``end`` included, in the default float
    dtype unless ``dtype`` is given (warns as PyTorch does; use ``arange``)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[2] > 0 and vals[1] < vals[0]) or (vals[2] < 0 and vals[1] > vals[0]):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int(np.floor((vals[1] - vals[0]) / vals[2])) + 1
    dt = _float_dtype(dtype)
    arr = (vals[0] + vals[2] * np.arange(n, dtype=np.float64)).astype(dt.np)
    return _finish(arr, requires_grad)


@export(method=False)
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """A 0-d tensor holding ``s`` in ``dtype`` (default: the default float dtype)."""
    if isinstance(s, Tensor):
        s = s.item()
    return tensor(s, dtype=_float_dtype(dtype), requires_grad=requires_grad)


@export(method=False)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``torch.asarray``: shares memory with a tensor or an ndarray when the dtype allows and
    ``copy`` is not True; copies otherwise (``copy=False`` that needs a copy raises)."""
    dt = None if dtype is None else to_dtype(dtype)
    if isinstance(obj, Tensor):
        same = dt is None or dt is obj.dtype
        if copy is False and not same:
            raise ValueError("can't alias tensor from a different dtype (asarray with "
                             "copy=False)")
        r = obj if same else obj.to(dt)
        if copy and r is obj:
            r = obj.clone()
    elif isinstance(obj, np.ndarray):
        same = dt is None or np.dtype(dt.np) == obj.dtype
        if copy is False and not same:
            raise ValueError("can't alias a NumPy array of a different dtype (asarray with "
                             "copy=False)")
        if same and not copy:
            r = from_numpy(obj)
        else:
            r = tensor(obj, dtype=dt)
    else:
        r = tensor(obj, dtype=dt)   # (Python numbers and sequences: always a copy)
    if requires_grad:
        if r is obj:
            r = obj.detach()
        r.requires_grad_(True)
    return r


# ---------------------------------------------------------------- predicates
@export()
def is_nonzero(input):
    """Whether the single value of ``input`` is nonzero (RuntimeError for 0 or several
    values)."""
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()) != 0)


@export()
def is_signed(input):
    """Whether ``input``'s dtype is signed (every dtype but uint8 and bool)."""
    return input.dtype.is_signed


@export()
def is_same_size(input, other):
    return tuple(input._data.shape) == tuple(other._data.shape)


PUBLIC["newaxis"] = None   # torch.newaxis (NumPy's)


@export(function=False)
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    """``empty_strided`` with ``self``'s dtype unless ``dtype`` is given (zeros here)."""
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device,
                         requires_grad=requires_grad)


# ---------------------------------------------------------------- threads, determinism
# NumPy's BLAS picks its threads when it is loaded (OMP_NUM_THREADS / OPENBLAS_NUM_THREADS):
# these record the numbers PyTorch code sets and reads; graphgrad's own code is
# single-threaded Python (docs/differences.md).
_THREADS = {"intra": max(1, int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
                          or (os.cpu_count() or 1)),
            "inter": os.cpu_count() or 1}
_DETERMINISTIC = {"mode": False, "warn_only": False}


def _positive(n, name):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name}(): argument 'int' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name}: Expected a positive number of threads, but got {n}")
    return n


@export(method=False)
def set_num_threads(int):  # noqa: A002 (PyTorch's parameter name)
    """Records the number (NumPy's BLAS threads are not changed: set OMP_NUM_THREADS)."""
    _THREADS["intra"] = _positive(int, "set_num_threads")


@export(method=False)
def get_num_threads():
    return _THREADS["intra"]


@export(method=False)
def set_num_interop_threads(int):  # noqa: A002
    """Records the number (graphgrad runs no inter-op thread pool)."""
    _THREADS["inter"] = _positive(int, "set_num_interop_threads")


@export(method=False)
def get_num_interop_threads():
    return _THREADS["inter"]


@export(method=False)
def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the setting: graphgrad's CPU kernels are deterministic either way."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not "
                        f"{type(mode).__name__}")
    _DETERMINISTIC["mode"], _DETERMINISTIC["warn_only"] = mode, bool(warn_only)


@export(method=False)
def are_deterministic_algorithms_enabled():
    return _DETERMINISTIC["mode"]


@export(method=False)
def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC["warn_only"]


# ---------------------------------------------------------------- in-place aliases
def _check_addmm_(self, mat1, mat2):
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"addmm_(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if mat1.dtype is not self.dtype or mat2.dtype is not self.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_dtype.scalar_type_name(self.dtype)} and "
                           f"{_dtype.scalar_type_name(mat2.dtype)} [addmm_]")
    if mat1._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"{'mat1' if mat1._data.ndim != 2 else 'mat2'} must be a matrix, "
                           f"got {mat1._data.ndim if mat1._data.ndim != 2 else mat2._data.ndim}"
                           "-D tensor")
    want = (mat1._data.shape[0], mat2._data.shape[1])
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({mat1._data.shape[0]}x{mat1._data.shape[1]} and "
                           f"{mat2._data.shape[0]}x{mat2._data.shape[1]})")
    if tuple(self._data.shape) != want:
        raise RuntimeError(f"The input tensor must be a matrix of the product's shape "
                           f"{list(want)} for addmm_, got {list(self._data.shape)}")


@export(function=False)
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """``self = beta self + alpha mat1 @ mat2`` in place (AddmmBackward0)."""
    _check_addmm_(self, mat1, mat2)
    return dispatch_inplace(ADDMM, self, mat1, mat2, beta, alpha)


for _alias, _of in (("divide_", "div_"), ("multiply_", "mul_"), ("subtract_", "sub_"),
                    ("greater_", "gt_"), ("greater_equal_", "ge_"), ("less_", "lt_"),
                    ("less_equal_", "le_"), ("not_equal_", "ne_")):
    METHODS[_alias] = METHODS[_of]


@export()
def negative_(self):
    """``neg_`` (NegBackward0)."""
    return dispatch_inplace(NEG, self)


PUBLIC["xlogy_"] = xlogy_   # torch.xlogy_ / torch.sinc_: the Tensor methods as functions
PUBLIC["sinc_"] = sinc_


@export(function=False)
def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all dims equal, or 2-D) in place through a strided view of it
    (CopySlices, as PyTorch's); ``wrap``: a tall matrix's diagonal restarts every
    ncols + 1 rows."""
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = self._data.shape
    if nd > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    strides = self.stride()
    size = min(shape)
    step = sum(strides)
    off = self.storage_offset()
    self.as_strided((size,), (step,), off).fill_(fill_value)
    if wrap and nd == 2 and shape[0] > shape[1] + 1:
        height, width = shape
        n_wrap = (height * width + width) // (width + 1) - size
        if n_wrap > 0:
            self.as_strided((n_wrap,), (step,), off + strides[0] * (width + 1)).fill_(
                fill_value)
    return self
