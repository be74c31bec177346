"""Reductions, scans and sorting: table entries and public functions.

sum, mean, prod, max/min (whole, ``dim=`` and binary), amax/amin, argmax/argmin,
logsumexp, norm / linalg.vector_norm, var/std, cumsum/cumprod, all/any,
sort/argsort/topk/msort, cummax/cummin.

Conventions used by the rules below:

* Reductions over a set of dims store them as a sorted tuple of non-negative
  ints relative to the input (``None`` = every dim), as PyTorch's ``_saved_dim``
  shows them.  Rules rebuild the reduced shape with ``_restore`` /
  ``F.expand_reduced``, which count dims from the end, so a gradient with
  extra leading batch dims (``is_grads_batched``) broadcasts correctly.
* Ops that select elements (max.dim, sort, topk, cummax) send the gradient to
  the selected indices with the linear helper ops ``value_selecting_reduction_backward``
  (a scatter), ``_scatter_add_dim`` and ``_gather_dim``; each is the other's VJP,
  so derivatives of any order work.
* JVP rules are written the same way (``_sum_dims(..., nd)`` sums an
  ``nd``-dim value's dims counted from the end), so they take tangents with a
  leading batch dim (``batched_jvp=True``, see registry.py).
* Ties: whole-tensor ``max``/``min`` and ``amax``/``amin`` split the gradient
  evenly between equal extreme values; ``max(dim=)`` sends it to the returned
  index (the first occurrence), like PyTorch.
* prod and cumprod are exact at zeros: the fast ``result / input`` form is used
  only when the input has no zero; otherwise the products of "all the others"
  are formed explicitly (O(n) in NumPy, and an O(n^2) graph of differentiable
  ops under ``create_graph=True`` so higher derivatives are exact as well).
"""
from __future__ import annotations

import builtins
import warnings
import numpy as np

from ..._core import dtypes as _dtype
from ..._core.state import tls
from ... import return_types
from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..dispatch import dispatch, unary
from ..inplace import dispatch_inplace
from ..registry import export, export_linalg
from ..derivatives.reductions import (
    ALL, AMAX, AMIN, ANY, ARGMAX, ARGMIN, ARGSORT, CUMMAX, CUMMIN, CUMPROD, CUMSUM, LOGSUMEXP,
    MAX, MAX_DIM, MEAN, MEAN_DIM, MEAN_DTYPE, MIN, MIN_DIM, PROD, PROD_DIM, SORT, STD, SUM,
    SUM_DIM, SUM_DTYPE, TOPK, VAR, VECTOR_NORM)
from ..kernels.reductions import _INF


# ============================================================ argument handling
def _check_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _dims(dim, nd, empty_means_all=True, name="dim"):
    """``dim`` (None, int or sequence) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return tuple(range(nd)) if empty_means_all else ()
        out = []
        for d in dim:
            w = _wrap_dim(_as_int(d, name), nd)
            if w in out:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            out.append(w)
        return tuple(sorted(out)) if nd else ()
    w = _wrap_dim(_as_int(dim, name), nd)  # (a 0-d tensor takes dim 0 and -1 only)
    return (w,) if nd else ()


def _as_int(d, name="dim"):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' must be int or tuple of ints, not "
                        f"{type(d).__name__}")
    return int(d)


def _one_dim(name, dim, nd):
    if isinstance(dim, (list, tuple)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__} "
                        f"({name} reduces over a single dimension)")
    return _wrap_dim(_as_int(dim, name), nd)


def _opt_dtype(dtype):
    return None if dtype is None else _dtype.to_dtype(dtype)


def _out(r, out):
    if out is None:
        return r
    from .conversion import _write_out
    if isinstance(r, tuple):
        for src, dst in zip(r, out):
            _write_out(src, dst)
        return type(r)(*out) if hasattr(r, "_fields") else tuple(out)
    return _write_out(r, out)


def _empty_check(name, x, dims):
    shp = x._data.shape
    if x._data.size == 0:
        if dims is None:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                f"Specify the reduction dim with the 'dim' argument.")
        for d in dims:
            if shp[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _no_complex(name, x, exc=RuntimeError, result_empty=False):
    """Refuse complex ``x``; ``result_empty``: not when the result has no elements (PyTorch's
    kernel, which refuses complex, does not run then: checked after the dims)."""
    if x._data.dtype.kind == "c" and not result_empty:
        raise exc(f"{name}(): does not support complex input (got {x.dtype}); compare .abs() "
                  f"or .real instead")


def _no_complex_autograd(name, x):
    """PyTorch's autograd refusal of a complex result that would require grad (amax, cummax
    of an empty complex tensor: their kernels, which refuse complex, do not run then)."""
    if x._data.dtype.kind == "c" and x._requires_grad and tls.grad_enabled:
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           f"with complex dtype. ({name} of an empty complex tensor that "
                           f"requires grad: detach() it or call it under no_grad())")


# ============================================================ public: sum / mean / prod
@export()
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001
    """Sum of all elements, or over ``dim`` (int or tuple; ``()`` means all dims)."""
    if dim is None and dtype is None and out is None and not keepdim and \
            input.__class__ is Tensor:
        return unary(SUM, input)  # t.sum(): what the general path below does for it
    _check_tensor("sum", input)
    dtype = _opt_dtype(dtype)
    if dim is None:
        r = unary(SUM, input) if dtype is None else dispatch(SUM_DTYPE, input, dtype)
        if keepdim:
            r = r.reshape((1,) * input._data.ndim)
        return _out(r, out)
    return _out(dispatch(SUM_DIM, input, _dims(dim, input._data.ndim), bool(keepdim), dtype),
                out)


@export()
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_tensor("mean", input)
    dtype = _opt_dtype(dtype)
    d = input._data.dtype
    if dtype is None and d.kind not in "fcV":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype.name.capitalize()}")
    if dtype is not None and dtype.category < 2:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {dtype.name.capitalize()}")
    if dim is None:
        r = unary(MEAN, input) if dtype is None else dispatch(MEAN_DTYPE, input, dtype)
        if keepdim:
            r = r.reshape((1,) * input._data.ndim)
        return _out(r, out)
    return _out(dispatch(MEAN_DIM, input, _dims(dim, input._data.ndim), bool(keepdim), dtype),
                out)


@export()
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product of all elements, or over one ``dim``; exact gradients with zeros in the input."""
    _check_tensor("prod", input)
    dtype = _opt_dtype(dtype)
    if dim is None:
        r = dispatch(PROD, input, dtype)
        if keepdim:
            r = r.reshape((1,) * input._data.ndim)
        return _out(r, out)
    d = _one_dim("prod", dim, input._data.ndim)
    return _out(dispatch(PROD_DIM, input, d, bool(keepdim), dtype), out)


# ============================================================ public: max / min family
def _binary_extreme(name, input, other):
    public = "maximum" if name == "max" else "minimum"
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' must be Tensor, not {type(other).__name__} "
                        f"(for a scalar bound use clamp)")
    from .pointwise_binary import maximum, minimum
    return (maximum if public == "maximum" else minimum)(input, other)


def _make_extreme(name, whole_op, dim_op, rtype):
    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        _check_tensor(name, input)
        if other is not None or isinstance(dim, Tensor):
            return _out(_binary_extreme(name, input, dim if other is None else other), out)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}(): keepdim=True needs a dim; use amax/amin(input, "
                                "dim=(), keepdim=True) to keep every dim")
            _empty_check(name, input, None)
            _no_complex(name, input, NotImplementedError)
            return _out(unary(whole_op, input), out)
        nd = input._data.ndim
        d = _one_dim(name, dim, nd)
        if nd:
            _empty_check(name, input, (d,))
        _no_complex(name, input)
        return _out(rtype(*dispatch(dim_op, input, d, bool(keepdim))), out)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(input)``: the {name}imum value (gradient split evenly between "
                  f"ties); ``{name}(input, dim, keepdim=False)``: named tuple (values, indices), "
                  f"gradient to the index; ``{name}(input, other)``: elementwise "
                  f"{'maximum' if name == 'max' else 'minimum'}.")
    return fn


max = export("max")(_make_extreme("max", MAX, MAX_DIM, return_types.max))  # noqa: A001
min = export("min")(_make_extreme("min", MIN, MIN_DIM, return_types.min))  # noqa: A001


def _make_amax(name, op):
    def fn(input, dim=(), keepdim=False, *, out=None):
        _check_tensor(name, input)
        nd = input._data.ndim
        dims = _dims(dim, nd)
        if input._data.size == 0:
            every = dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0)
            _empty_check(name, input, None if every else dims)
        _no_complex(name, input, NotImplementedError, input._data.size == 0)
        _no_complex_autograd(name, input)
        return _out(dispatch(op, input, dims, bool(keepdim)), out)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(input, dim=(), keepdim=False)``: {name[1:]}imum over ``dim`` (all "
                  f"dims when empty); the gradient is split evenly between ties.")
    return fn


amax = export("amax")(_make_amax("amax", AMAX))
amin = export("amin")(_make_amax("amin", AMIN))


def _make_argext(name, op):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check_tensor(name, input)
        _no_complex(name, input)
        nd = input._data.ndim
        if dim is None:
            if input._data.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 f"input.numel() == 0.")
            return _out(dispatch(op, input, None, bool(keepdim)), out)
        d = _one_dim(name, dim, nd)
        if nd and input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _out(dispatch(op, input, d, bool(keepdim)), out)
    fn.__name__ = name
    return fn


argmax = export("argmax")(_make_argext("argmax", ARGMAX))
argmin = export("argmin")(_make_argext("argmin", ARGMIN))


# ============================================================ public: logsumexp, norms
def _float_input(x):
    if x._data.dtype.kind not in "fcV":
        return x.to(_dtype.get_default_dtype())
    return x


@export()
def logsumexp(input, dim, keepdim=False, *, out=None):
    """log(sum(exp(input), dim)), computed stably (the max is subtracted first)."""
    _check_tensor("logsumexp", input)
    x = _float_input(input)
    return _out(dispatch(LOGSUMEXP, x, _dims(dim, x._data.ndim), bool(keepdim)), out)


def _check_norm_input(name, x, dtype):
    d = x.dtype
    if d.category < 2:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype.scalar_type_name(d)}")
    if dtype is not None:
        if dtype.category != d.category:
            kind = "complex" if d.category == 3 else "real"
            raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                               f"{_dtype.scalar_type_name(dtype)}")
        if dtype.itemsize < d.itemsize:
            raise RuntimeError(f"{name}: the dtype of the input ({_dtype.scalar_type_name(d)}) "
                               f"should be convertible without narrowing to the specified dtype "
                               f"({_dtype.scalar_type_name(dtype)})")




def _check_ord(name, ord):
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}(): argument 'ord' must be a number, not {type(ord).__name__} "
                        f"(use linalg.matrix_norm for 'fro' and 'nuc')")
    return float(ord)


@export_linalg("vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``linalg.vector_norm``: the ``ord``-norm over ``dim`` (all dims when None)."""
    _check_tensor("linalg.vector_norm", x)
    ord = _check_ord("linalg.vector_norm", ord)
    dtype = _opt_dtype(dtype)
    _check_norm_input("linalg.vector_norm", x, dtype)
    nd = x._data.ndim
    dims = _dims(dim, nd)
    if ord in (_INF, -_INF) and x._data.size == 0 and (
            nd == 0 or builtins.any(x._data.shape[d] == 0 for d in dims)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor "
                           f"because the operation does not have an identity")
    return _out(dispatch(VECTOR_NORM, x, ord, dims, bool(keepdim), dtype), out)


@export()
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: vector p-norms (``'fro'`` is the 2-norm); ``'nuc'`` is the nuclear norm."""
    _check_tensor("norm", input)
    if isinstance(p, str):
        if p == "fro":
            if dim is not None and isinstance(dim, (list, tuple)) and len(dim) > 2:
                raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or "
                                   f"2. Got {list(dim)}")
            return vector_norm(input, 2, dim, keepdim, dtype=dtype, out=out)
        if p == "nuc":
            from .linalg_decompositions import matrix_norm as mn
            if dim is None:
                dim = (-2, -1)
            if not isinstance(dim, (list, tuple)) or len(dim) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
            r = mn(input, "nuc", dim=tuple(dim), keepdim=keepdim, dtype=dtype)
            return _out(r, out)
        raise RuntimeError(f"norm(): unknown p {p!r}; use a number, 'fro' or 'nuc'")
    if p is None:
        p = 2
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


# ============================================================ public: var / std
def _var_args(name, input, dim, unbiased, keepdim, correction):
    _check_tensor(name, input)
    if isinstance(dim, bool):          # var(input, unbiased)
        if unbiased is not None and not isinstance(unbiased, bool):
            raise TypeError(f"{name}(): got both an 'unbiased' flag and a dim")
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}(): cannot specify both 'unbiased' and 'correction'; "
                        f"unbiased=True is correction=1, unbiased=False is correction=0")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    nd = input._data.ndim
    dims = _dims(dim, nd)
    n = F.numel(input._data.shape, dims)
    if n - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      f"than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    return dims, correction


@export()
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` with ``correction`` (Bessel's by default; ``unbiased=`` legacy)."""
    dims, c = _var_args("var", input, dim, unbiased, keepdim, correction)
    return _out(dispatch(VAR, input, _all_none(dim, dims), c, bool(keepdim)), out)


@export()
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation over ``dim``; the gradient is 0 (not NaN) where the result is 0."""
    dims, c = _var_args("std", input, dim, unbiased, keepdim, correction)
    return _out(dispatch(STD, input, _all_none(dim, dims), c, bool(keepdim)), out)


def _all_none(dim, dims):
    """``dim=None`` stays None for var/std (PyTorch's rules and ``_saved_dim`` tell "all
    elements" from an explicit list of every dim)."""
    return None if dim is None or isinstance(dim, bool) else dims


# ============================================================ public: scans
def _make_scan(name, op):
    def fn(input, dim, *, dtype=None, out=None):
        _check_tensor(name, input)
        d = _one_dim(name, dim, input._data.ndim)
        return _out(dispatch(op, input, d, _opt_dtype(dtype)), out)

    def fn_(self, dim, *, dtype=None):
        d = _one_dim(name + "_", dim, self._data.ndim)
        dt = _opt_dtype(dtype)
        if dt is not None and dt != self.dtype:
            raise RuntimeError(f"{name}_(): dtype {dt} differs from self's {self.dtype}; use the "
                               f"out-of-place {name}")
        return dispatch_inplace(op, self, d, dt)
    fn.__name__, fn_.__name__ = name, name + "_"
    export(name)(fn)
    export(name + "_", function=False)(fn_)
    return fn


cumsum = _make_scan("cumsum", CUMSUM)
cumprod = _make_scan("cumprod", CUMPROD)


def _make_cumext(name, op, rtype):
    def fn(input, dim, *, out=None):
        _check_tensor(name, input)
        d = _one_dim(name, dim, input._data.ndim)
        _no_complex(name, input, NotImplementedError, input._data.size == 0)
        _no_complex_autograd(name, input)
        return _out(rtype(*dispatch(op, input, d)), out)
    fn.__name__ = name
    export(name)(fn)
    return fn


cummax = _make_cumext("cummax", CUMMAX, return_types.cummax)
cummin = _make_cumext("cummin", CUMMIN, return_types.cummin)


# ============================================================ public: sorting
@export()
def sort(input, dim=-1, descending=False, *, stable=None, out=None):
    """(values, indices) sorted along ``dim``.  Always stable (equal elements keep their
    order; ``stable=False`` allows any order in PyTorch).  NaN sorts as the largest value.

    ``stable`` is keyword-only, as in PyTorch, where passing it picks the ``sort.stable``
    overload, whose node is ``SortBackward1``."""
    _check_tensor("sort", input)
    _no_complex("sort", input)
    d = _one_dim("sort", dim, input._data.ndim)
    values, indices = dispatch(SORT, input, bool(stable), d, bool(descending))
    if stable is not None and values._grad_fn is not None:
        from .views import _renamed
        _renamed(values._grad_fn, "SortBackward1")
    return _out(return_types.sort(values, indices), out)


@export()
def argsort(input, dim=-1, descending=False, stable=False):
    _check_tensor("argsort", input)
    _no_complex("argsort", input)
    d = _one_dim("argsort", dim, input._data.ndim)
    return dispatch(ARGSORT, input, bool(stable), d, bool(descending))


@export()
def msort(input, *, out=None):
    return _out(sort(input, 0).values, out)


@export()
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` as (values, indices).

    The result is always in sorted order (``sorted=False`` leaves the order unspecified in
    PyTorch).  Which of several equal elements is picked is unspecified too."""
    _check_tensor("topk", input)
    _no_complex("topk", input)
    nd = input._data.ndim
    d = _one_dim("topk", dim, nd)
    n = input._data.shape[d] if nd else 1
    k = _as_int(k, "topk")
    if k < 0 or k > n:
        raise RuntimeError(f"selected index k out of range (topk: k={k} but dimension {d} has "
                           f"size {n})")
    return _out(return_types.topk(*dispatch(TOPK, input, k, d, bool(largest), bool(sorted))),
                out)


# ============================================================ public: all / any
def _make_logical(name, op):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check_tensor(name, input)
        nd = input._data.ndim
        if dim is None:
            dims = None
            if keepdim:
                dims = tuple(range(nd))
        else:
            dims = _dims(dim, nd, empty_means_all=False)
        return _out(dispatch(op, input, dims, bool(keepdim)), out)
    fn.__name__ = name
    fn.__doc__ = f"``{name}(input, dim=None, keepdim=False)``: logical {name} (bool result)."
    export(name)(fn)
    return fn


all = _make_logical("all", ALL)  # noqa: A001
any = _make_logical("any", ANY)  # noqa: A001
