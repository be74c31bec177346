"""Dtype conversion, new_* constructors, contiguous, item assignment, ``out=`` writes."""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import to_dtype
from ..._tensor.tensor import Tensor, _check_device
from ..._core.state import ALL_THREADS, tls
from ..dispatch import _record, dispatch, unary
from ..forward_mode import _overlaps
from ...autograd.views import _set_view, select_view
from ..derivatives.pointwise import CLONE, CLONE_CONTIGUOUS, TO_COPY
from ..registry import export
from ._args import require
from ..derivatives.shape import SELECT, SLICE
from .shape import getitem
from ..._tensor.memory_format import apply, check_memory_format
from ..._tensor.creation import tensor
from ...autograd._saved_hooks import before_inplace


@export(function=False)
def to(self, *args, dtype=None, device=None, copy=False, non_blocking=False,
       memory_format=None):
    """``t.to(dtype)`` / ``t.to(other)`` / ``t.to('cpu')``: a new tensor only if needed."""
    for a in args:
        if a.__class__ is int:
            raise RuntimeError("Cannot access accelerator device when none is available. "
                               f"(to({a}) names an accelerator; graphgrad runs on the CPU only)")
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, _dtype.dtype) or (not isinstance(a, str) and a is not None and
                                             not hasattr(a, "type")):
            dtype = a
        else:
            _check_device(a)  # only the CPU exists ('cuda' raises as PyTorch's CPU build)
    _check_device(device)
    if memory_format is not None:  # (PyTorch keeps a strided tensor as it is here too)
        check_memory_format("to", memory_format)
        r = apply("to", self, memory_format, copy=False)
        if r is not None and r is not self:
            self, copy = r, False
    if dtype is None:
        return unary(CLONE, self) if copy else self
    d = to_dtype(dtype)
    if d.np == self._data.dtype and not copy:
        return self
    if self._data.dtype.kind == "c" and d.category < 3:
        import warnings
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=2)
    return dispatch(TO_COPY, self, d)


def _caster(name, d):
    def fn(self, memory_format=None):
        return to(self, d)
    fn.__name__ = name
    export(name, function=False)(fn)


for _n, _d in (("float", _dtype.float32), ("double", _dtype.float64), ("half", _dtype.float16),
               ("bfloat16", _dtype.bfloat16), ("long", _dtype.int64), ("int", _dtype.int32),
               ("short", _dtype.int16), ("bool", _dtype.bool), ("byte", _dtype.uint8),
               ("char", _dtype.int8), ("cfloat", _dtype.complex64),
               ("cdouble", _dtype.complex128)):
    _caster(_n, _d)


@export(function=False)
def type_as(self, other):
    return to(self, other.dtype)


@export(function=False)
def type(self, dtype=None, non_blocking=False):  # noqa: A001
    if dtype is None:
        return f"graphgrad.{_dtype.scalar_type_name(self.dtype)}Tensor"
    return to(self, dtype)


@export(function=False)
def contiguous(self, memory_format=None):
    if memory_format is not None:
        check_memory_format("contiguous", memory_format)
        r = apply("contiguous", self, memory_format, copy=False)
        if r is not None:
            return r
    if self._data.flags.c_contiguous:
        return self
    return unary(CLONE_CONTIGUOUS, self)


def _new(self, data, dtype, requires_grad, device=None):
    _check_device(device)
    t = Tensor._wrap(data.astype(to_dtype(dtype).np) if dtype is not None else data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


@export(function=False)
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    require("new_zeros", size, "size")
    return _new(self, np.zeros(_shape(size), self._data.dtype), dtype, requires_grad, device)


@export(function=False)
def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    require("new_ones", size, "size")
    return _new(self, np.ones(_shape(size), self._data.dtype), dtype, requires_grad, device)


@export(function=False)
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    require("new_empty", size, "size")
    return _new(self, np.zeros(_shape(size), self._data.dtype), dtype, requires_grad, device)


@export(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _new(self, np.full(tuple(size), fill_value, self._data.dtype), dtype, requires_grad, device)


@export(function=False)
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


@export(method=False)
def _write_out(result, out):
    """Implements ``out=``: copy the result into ``out`` (not recorded when it needs grad)."""
    if tls.fw_level is not None and (result._fw is not None and result._fw[0] is tls.fw_level
                                     or out._fw is not None and out._fw[0] is tls.fw_level):
        raise NotImplementedError(
            "Trying to use forward AD with an out= function, which does not support it: call "
            "the function without out= to get a dual result")
    if (result._requires_grad or out._requires_grad) and tls.grad_enabled:
        raise RuntimeError(
            f"functions with out=... arguments don't support automatic differentiation, but one "
            f"of the arguments requires grad.")
    if tls.mutation_ctx is not None:
        # allow_mutation_on_saved_tensors: clone a saved ``out`` before it is overwritten
        before_inplace(out)
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)
    np.copyto(out._data, result._data, casting="unsafe")
    out._bump_version()
    return out


@export(function=False)
def __getitem__(self, key):
    if key.__class__ is int:  # t[i] (not a bool): the select view, without getitem's parsing
        d = self._data
        if d.ndim:
            n = d.shape[0]
            if -n <= key < n:
                if key < 0:
                    key += n
                if self._requires_grad or not ALL_THREADS.plain:
                    return dispatch(SELECT, self, -d.ndim, key)
                # nothing to record (e.g. x[t] of a constant input): the view alone
                return select_view(self, d, key, SELECT)
    elif key.__class__ is slice:  # t[a:b] (not a full slice): the slice view, as getitem
        d = self._data
        if d.ndim:
            start, stop, step = key.indices(d.shape[0])
            if step > 0 and not (start == 0 and stop == d.shape[0] and step == 1):
                if stop < start:
                    stop = start
                if ALL_THREADS.plain:
                    return _slice_plain(self, d, start, stop, step)
                return dispatch(SLICE, self, -d.ndim, start, stop, step)
    if vmap_index_hook is not None:   # graphgrad.func.vmap: batched index tensors
        r = vmap_index_hook(self, key, None, False)
        if r is not NotImplemented:
            return r
    return getitem(self, key)


vmap_index_hook = None   # set by graphgrad.func while a vmap level is active


def _slice_plain(x, d, start, stop, step):
    """``x[start:stop:step]`` (a slice of dim 0, ``step > 0``) on a plain thread (grad mode
    on, nothing extra, NOTE [hot flags]): what ``dispatch(SLICE, x, -d.ndim, start, stop,
    step)`` does there -- the view, ``_set_view``, the record -- without its generic steps
    (x[1:] and x[:-1] are common in small losses: W7's Rosenbrock)."""
    o = _object_new(Tensor)
    o._data = d[start:stop:step]  # (the kernel's d[..., start:stop:step] for dim -d.ndim)
    o._requires_grad = False
    o._grad_fn = None
    o._output_nr = 0
    o._vc = None
    args = (x, -d.ndim, start, stop, step)
    _set_view(SLICE, args, o)
    if x._requires_grad:
        _record(SLICE, args, (o,))
    return o


_object_new = object.__new__


@export(function=False)
def __setitem__(self, key, value):
    """``t[key] = value``: copy_ into the view ``t[key]`` (differentiable in both)."""
    from .shape import getitem, sequence_as_tuple
    from .inplace import copy_, fill_
    if vmap_index_hook is not None:   # graphgrad.func.vmap: batched index tensors
        r = vmap_index_hook(self, key, value, True)
        if r is not NotImplemented:
            return None
    key = sequence_as_tuple(key, 3) or key
    if isinstance(key, Tensor) and key._data.dtype == np.bool_ or not _basic_key(key):
        from .indexing import index_put_
        return index_put_(self, _as_index_tuple(key), value)
    # (a key of full slices and Ellipsis writes into the tensor itself, as PyTorch's
    # indexing skips a slice that covers its dim: t[:] = 0 is t.fill_(0), whose gradient
    # is no longer connected to the incoming one)
    whole = _whole_tensor_key(key, self._data.shape)
    view = self if whole else getitem(self, key)
    if isinstance(value, Tensor) and (value._data.ndim or view._data.ndim == 0):
        # (a 0-d value is fill_'s, as PyTorch's, unless the view is 0-d too: copy_, which
        # refuses c.imag[...] = c)
        shape = value._data.shape
        if shape != view._data.shape:
            # as PyTorch's: a value of another shape is viewed without its leading size-1
            # dims (t[1] = ones(1) writes the element) and expanded to the view's shape
            # (ViewBackward0 and ExpandBackward0 in its history); one of the same shape is
            # copied as it is (w[0] = w5 of one memory is then a full overlap, allowed)
            k = next((i for i, n in enumerate(shape) if n != 1), len(shape))
            value = value.view(shape[k:])
            if value._data.shape != view._data.shape:
                value = value.expand(view._data.shape)
        copy_(view, value)
    elif whole and not isinstance(value, (Tensor, complex)) and self._data.dtype.kind in "fc":
        # (PyTorch fills with the number as a 0-d tensor of t's dtype: fill_.Tensor's node)
        fill_(view, Tensor._wrap(np.asarray(value, dtype=self._data.dtype)))
    else:
        if 0 in view._data.strides and _overlaps(view._data):
            # (PyTorch copies a number into the view: its overlap error, which fill_ has not)
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                f"operation. (t[key] = {value!r} on an expanded tensor)")
        fill_(view, value)


def _whole_tensor_key(key, shape):
    """Whether ``key`` (a basic key) is only slices that each cover their dim, and
    Ellipsis: ``t[key]`` is all of ``t``."""
    keys = key if isinstance(key, tuple) else (key,)
    if not all(k is Ellipsis or k.__class__ is slice for k in keys):
        return False
    slices = [k for k in keys if k is not Ellipsis]
    if len(slices) > len(shape) or len(keys) - len(slices) > 1:
        return False
    if Ellipsis in keys:   # (the slices before it index the leading dims, after it the last)
        i = keys.index(Ellipsis)
        dims = list(range(i)) + list(range(len(shape) - (len(keys) - i - 1), len(shape)))
    else:
        dims = range(len(slices))
    return all(k.indices(shape[d]) == (0, shape[d], 1) and (k.start is None or k.start == 0)
               for k, d in zip(slices, dims))   # (x[-n:] = v writes through a slice view)


def _basic_key(key):
    """Whether ``t[key] = v`` writes through a view: ints, slices, None, Ellipsis, and 0-d
    integer tensors, which PyTorch indexes as the int they hold (a select, not index_put_:
    ``g[i] += 1`` with ``i = tensor(1)`` copies the row onto itself)."""
    keys = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or (isinstance(k, (int, slice)) and
                                              not isinstance(k, bool)) or
               (isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu")
               for k in keys)


def _as_index_tuple(key):
    return key if isinstance(key, tuple) else (key,)
