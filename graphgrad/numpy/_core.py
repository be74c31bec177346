"""What every family of graphgrad.numpy shares: telling a Tensor call from a plain NumPy
call, NumPy's type promotion for Tensors, turning arrays into Tensors, NumPy's exception
types, and the wrappers of NumPy functions that graphgrad.numpy passes through.

The rule of the namespace: a function called with plain NumPy/Python data returns what
NumPy returns (NumPy computes it); once any argument is a graphgrad Tensor, the result is
computed with graphgrad's public ops (differentiable in both modes, under vmap and the
func transforms), with NumPy's conventions for the arguments and the result's dtype.
"""
from __future__ import annotations

import functools

import numpy as _np

from .. import linalg as _gg_linalg
from .._core.dtypes import from_numpy_dtype as _from_numpy_dtype
from .._tensor.creation import as_tensor as _as_tensor
from .._tensor.tensor import Tensor
from ..ops.api.copies import stack as _stack

try:   # NumPy >= 2
    from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple
except ImportError:   # pragma: no cover - NumPy 1.x
    from numpy.core.numeric import normalize_axis_index, normalize_axis_tuple  # noqa: F401

_DTYPES = {}


def has_tensor(*args):
    """Whether any argument (or an element of a list/tuple argument) is a Tensor."""
    for a in args:
        if isinstance(a, Tensor):
            return True
        if isinstance(a, (list, tuple)) and has_tensor(*a):
            return True
    return False


def np_dtype(x):
    """NumPy's dtype of an argument (a Tensor's storage dtype)."""
    if isinstance(x, Tensor):
        return x._data.dtype
    return _np.result_type(x)


def _standin(x):
    """A 0-d stand-in with ``x``'s dtype for asking NumPy's promotion rules; Python
    scalars stay Python scalars (NumPy treats them as weak)."""
    if isinstance(x, Tensor):
        return _np.ones((), x._data.dtype)
    if isinstance(x, (bool, int, float, complex)):
        return x
    return _np.ones((), _np.result_type(x))


def result_dtype(np_func, *args, key=None, **kwargs):
    """The dtype NumPy's ``np_func`` gives for arguments of these dtypes (it is asked on
    0-d stand-ins, so its own rules decide: ints to float64 for float functions, Python
    scalars weak, NEP 50).  Answers are cached by ``key`` (default: ``np_func`` itself,
    unless it is a lambda made per call, which is then asked every time)."""
    if key is None and getattr(np_func, "__name__", "") != "<lambda>":
        key = np_func
    if key is not None:
        key = (key,) + tuple(type(a) if isinstance(a, (bool, int, float, complex))
                             else np_dtype(a) for a in args) + tuple(sorted(kwargs.items()))
        try:
            return _DTYPES[key]
        except (KeyError, TypeError):
            pass
    with _np.errstate(all="ignore"):
        out = np_func(*[_standin(a) for a in args], **kwargs)
    if isinstance(out, tuple):
        out = out[0]
    dt = _np.result_type(out)
    if key is not None:
        try:
            _DTYPES[key] = dt
        except TypeError:
            pass
    return dt


def tensor(x, dtype=None):
    """``x`` as a Tensor (of NumPy dtype ``dtype`` when given): Tensors are cast, arrays,
    NumPy scalars and Python numbers are wrapped (lists of Tensors are stacked)."""
    if isinstance(x, Tensor):
        if dtype is not None and x._data.dtype != dtype:
            return x.to(_gg_dtype(dtype))
        return x
    if isinstance(x, (list, tuple)) and has_tensor(x):
        from_list = _stack_nested(x)
        return tensor(from_list, dtype)
    arr = _np.asarray(x) if dtype is None else _np.asarray(x, dtype=dtype)
    if not (arr.flags.c_contiguous and arr.flags.writeable) or arr.dtype.kind not in "biufc":
        arr = _np.array(arr)   # (a data array is used as it is: graphgrad never writes to it)
    return _as_tensor(arr)


def _stack_nested(items):
    parts = [tensor(_stack_nested(i)) if isinstance(i, (list, tuple)) else i for i in items]
    dt = _np.result_type(*[_standin(p) for p in parts]) if parts else _np.float64
    ts = [tensor(p, dt) for p in parts]
    shapes = {tuple(t.shape) for t in ts}
    if len(shapes) > 1:
        raise ValueError("setting an array element with a sequence. The requested array has an "
                         f"inhomogeneous shape: the elements have shapes {sorted(shapes)}; "
                         "graphgrad.numpy.array stacks equal shapes only")
    return _stack(ts, 0)


def _gg_dtype(npdt):
    return _from_numpy_dtype(_np.dtype(npdt))


def tensors(dtype, *args):
    """Each argument as a Tensor of NumPy dtype ``dtype`` (Python scalars too)."""
    return [tensor(a, dtype) for a in args]


def cast_args(np_func, *args, keep_scalars=False, key=None, **kwargs):
    """The NumPy result dtype of ``np_func`` on ``args``, and the arguments ready for the
    graphgrad op: Tensors and arrays as Tensors of the dtype the computation runs in
    (that dtype when it is inexact, else NumPy's common dtype), Python scalars as they are."""
    dt = result_dtype(np_func, *args, key=key, **kwargs)
    work = dt if dt.kind in "fc" else _np.result_type(*[_standin(a) for a in args])
    if work.kind == "f" and any(np_dtype(a).kind == "c" for a in args):
        work = complex_of(work)   # (abs, angle of complex inputs: computed on them)
    out = [a if keep_scalars and isinstance(a, (bool, int, float, complex)) else tensor(a, work)
           for a in args]
    return dt, out


def complex_of(dt):
    """The complex dtype holding the real dtype ``dt`` (float32 -> complex64)."""
    return _np.result_type(dt, _np.complex64)


def as_result(t, dt):
    """``t`` cast to NumPy dtype ``dt`` when the op produced another dtype."""
    if isinstance(t, Tensor) and t._data.dtype != dt:
        return t.to(_gg_dtype(dt))
    return t


def axes(axis, ndim):
    """NumPy's ``axis`` (None, int or tuple) as a sorted tuple of non-negative dims;
    ``numpy.exceptions.AxisError`` when out of range, as NumPy."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(normalize_axis_tuple(axis, ndim)))


class numpy_errors:
    """Re-raises graphgrad's (PyTorch's) shape and value errors as NumPy's types: a
    ``RuntimeError`` becomes ``ValueError``, graphgrad's ``LinAlgError`` NumPy's
    ``numpy.linalg.LinAlgError``; the message names the graphgrad.numpy function."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, tp, exc, tb):
        if tp is None or tp is NotImplementedError or not issubclass(tp, RuntimeError) or \
                str(exc).startswith("vmap:"):
            return False
        msg = f"graphgrad.numpy.{self.name}: {exc}"
        if issubclass(tp, _gg_linalg.LinAlgError):
            raise _np.linalg.LinAlgError(msg) from exc
        raise ValueError(msg) from exc


def on_tensors(np_func, name=None):
    """Decorator: the function runs its body (graphgrad ops) when an argument is a Tensor
    and calls ``np_func`` otherwise; the body's errors get NumPy's types."""
    def deco(body):
        nm = name or body.__name__

        @functools.wraps(body)
        def fn(*args, **kwargs):
            if not (has_tensor(*args) or has_tensor(*kwargs.values())):
                return np_func(*args, **kwargs)
            with numpy_errors(nm):
                return body(*args, **kwargs)
        fn.__doc__ = (f"NumPy's ``{nm}``; differentiable on graphgrad Tensors. "
                      + (body.__doc__ or ""))
        fn.__wrapped_numpy__ = np_func
        return fn
    return deco


def nondifferentiable(np_func):
    """NumPy's function on the arrays of the arguments' data: for results that have no
    gradient (shapes, predicates, indices, ``*_like`` constructors).  A Tensor argument is
    read through ``detach()``; the result is what NumPy returns."""
    @functools.wraps(np_func)
    def fn(*args, **kwargs):
        if has_tensor(*args) or has_tensor(*kwargs.values()):
            args = [_detached(a) for a in args]
            kwargs = {k: _detached(v) for k, v in kwargs.items()}
        return np_func(*args, **kwargs)
    fn.__wrapped_numpy__ = np_func
    return fn


def data_of(t):
    """A Tensor's values as an ndarray, for the data-dependent parts (indices, masks): under
    vmap this raises vmap's RuntimeError (data-dependent control flow) instead of reading
    one example's data."""
    return t.detach().numpy()


def _detached(x):
    if isinstance(x, Tensor):
        return data_of(x)
    if isinstance(x, (list, tuple)) and has_tensor(x):
        return type(x)(_detached(i) for i in x) if isinstance(x, tuple) else \
            [_detached(i) for i in x]
    return x


def numpy_only(np_func, name):
    """NumPy's function for NumPy data; on a Tensor argument it raises NotImplementedError
    (graphgrad.numpy has no differentiable version, and reading the Tensor's data would
    silently drop its gradient)."""
    @functools.wraps(np_func)
    def fn(*args, **kwargs):
        if has_tensor(*args) or has_tensor(*kwargs.values()):
            raise NotImplementedError(
                f"graphgrad.numpy.{name} is not differentiable in graphgrad: it was called with "
                "a graphgrad Tensor. Call it on NumPy data (x.detach().numpy()) if no gradient "
                "is needed, or write it with graphgrad.numpy's covered functions "
                "(docs/func.md lists them; docs/differences.md the gaps).")
        return np_func(*args, **kwargs)
    fn.__wrapped_numpy__ = np_func
    return fn
