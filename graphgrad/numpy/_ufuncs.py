"""NumPy's elementwise functions (ufuncs) over Tensors: unary and binary math,
comparisons and predicates, ``where`` and ``clip``.

On Tensors each runs one or a few graphgrad ops after casting its inputs to NumPy's result
dtype (``np.sin`` of an int64 Tensor is float64, as NumPy; Python scalars are weak)."""
from __future__ import annotations

import math

import numpy as _np

from .._tensor.tensor import Tensor
from ..ops.api import (
    comparison as _api_comparison, misc_ops as _api_misc_ops, pointwise as _api_pointwise,
    pointwise_binary as _api_pointwise_binary, pointwise_unary as _api_pointwise_unary)
from ._core import as_result, cast_args, data_of, has_tensor, numpy_errors, on_tensors, \
    result_dtype, tensor

__all__ = []

_UFUNC_KWARGS = ("out", "where", "casting", "order", "dtype", "subok", "signature")


def _check_kwargs(name, kwargs):
    bad = [k for k, v in kwargs.items() if v is not None and k != "dtype"]
    if bad:
        raise NotImplementedError(
            f"graphgrad.numpy.{name}: the ufunc argument(s) {bad} are not supported on graphgrad "
            "Tensors (Tensors are not written in place); drop them or call NumPy on NumPy data")


def _unary(name, body):
    npf = getattr(_np, name)

    same = {}   # input dtype -> whether NumPy's result has it (the fast path below)

    def fn(x, /, *args, **kwargs):
        if not isinstance(x, Tensor) and not has_tensor(x):
            return npf(x, *args, **kwargs)
        if not args and not kwargs and isinstance(x, Tensor):
            d = x._data.dtype
            keep = same.get(d)
            if keep is None:
                keep = same[d] = result_dtype(npf, x) == d
            if keep:   # (a float Tensor in, the same dtype out: the op alone)
                with numpy_errors(name):
                    return body(x)
        if args:
            raise TypeError(f"graphgrad.numpy.{name}: the ufunc's out argument is not "
                            "supported on graphgrad Tensors")
        _check_kwargs(name, kwargs)
        with numpy_errors(name):
            dt, (t,) = cast_args(npf, x, **({"dtype": kwargs["dtype"]}
                                           if kwargs.get("dtype") is not None else {}))
            return as_result(body(t), dt)
    return _publish(fn, name, npf)


def _publish(fn, name, npf):
    """Name ``fn`` as NumPy's ``npf`` and publish it as graphgrad.numpy.<name>."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NumPy's ``{name}``; differentiable on graphgrad Tensors."
    fn.__wrapped_numpy__ = npf
    globals()[name] = fn
    __all__.append(name)
    return fn


def _binary(name, body, keep_scalars=False, scalar_ok=False):
    npf = getattr(_np, name)

    def fn(x1, x2, /, *args, **kwargs):
        if not has_tensor(x1, x2):
            return npf(x1, x2, *args, **kwargs)
        if scalar_ok and not args and not kwargs:
            # a float Tensor and a Python float or int: NumPy's weak scalar keeps the
            # Tensor's dtype, as graphgrad's own Python-number operands do
            if x1.__class__ in _NUMBERS and isinstance(x2, Tensor) and \
                    x2._data.dtype.kind in "fc":
                with numpy_errors(name):
                    return body(x1, x2)
            if x2.__class__ in _NUMBERS and isinstance(x1, Tensor) and \
                    x1._data.dtype.kind in "fc":
                with numpy_errors(name):
                    return body(x1, x2)
        if args:
            raise TypeError(f"graphgrad.numpy.{name}: the ufunc's out argument is not "
                            "supported on graphgrad Tensors")
        _check_kwargs(name, kwargs)
        with numpy_errors(name):
            _broadcast_check(name, x1, x2)
            extra = {"dtype": kwargs["dtype"]} if kwargs.get("dtype") is not None else {}
            dt, (a, b) = cast_args(npf, x1, x2, keep_scalars=keep_scalars, **extra)
            return as_result(body(a, b), dt)
    return _publish(fn, name, npf)


_NUMBERS = (float, int)


def _broadcast_check(name, *xs):
    shapes = [tuple(_np.shape(x)) if not isinstance(x, Tensor) else tuple(x.shape) for x in xs]
    try:
        _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with shapes "
                         f"{' '.join(str(s).replace(' ', '') for s in shapes)} "
                         f"(graphgrad.numpy.{name})") from None


def _alias(new, old):
    globals()[new] = globals()[old]
    __all__.append(new)


# ----------------------------------------------------------------- unary math
for _name, _fn in [("sin", _api_pointwise.sin), ("cos", _api_pointwise.cos),
                   ("tan", _api_pointwise_unary.tan), ("arcsin", _api_pointwise_unary.asin),
                   ("arccos", _api_pointwise_unary.acos), ("arctan", _api_pointwise_unary.atan),
                   ("sinh", _api_pointwise_unary.sinh), ("cosh", _api_pointwise_unary.cosh),
                   ("tanh", _api_pointwise.tanh), ("arcsinh", _api_pointwise_unary.asinh),
                   ("arccosh", _api_pointwise_unary.acosh),
                   ("arctanh", _api_pointwise_unary.atanh), ("exp", _api_pointwise.exp),
                   ("exp2", _api_pointwise_unary.exp2), ("expm1", _api_pointwise_unary.expm1),
                   ("log", _api_pointwise.log), ("log2", _api_pointwise_unary.log2),
                   ("log10", _api_pointwise_unary.log10), ("log1p", _api_pointwise_unary.log1p),
                   ("sqrt", _api_pointwise_unary.sqrt), ("negative", _api_pointwise.neg),
                   ("absolute", _api_pointwise_unary.abs), ("fabs", _api_pointwise_unary.abs),
                   ("sign", _api_pointwise_unary.sign), ("floor", _api_pointwise_unary.floor),
                   ("ceil", _api_pointwise_unary.ceil), ("trunc", _api_pointwise_unary.trunc),
                   ("rint", _api_pointwise_unary.round),
                   ("conjugate", _api_pointwise_unary.conj)]:
    _unary(_name, _fn)
_alias("abs", "absolute")
_alias("conj", "conjugate")
_alias("fix", "trunc")
_unary("positive", lambda t: t)
_unary("square", lambda t: t * t)
_unary("reciprocal",
       lambda t: 1 / t if t._data.dtype.kind in "fc" else _api_pointwise.floor_divide(1, t))
_unary("cbrt", lambda t: _api_pointwise_unary.sign(t) * _api_pointwise_unary.abs(t) ** (1.0 / 3.0))
_unary("deg2rad", lambda t: t * (math.pi / 180.0))
_unary("rad2deg", lambda t: t * (180.0 / math.pi))
_alias("radians", "deg2rad")
_alias("degrees", "rad2deg")
_unary("signbit", lambda t: _api_misc_ops.signbit(t))
_unary("isnan", _api_comparison.isnan)
_unary("isinf", _api_comparison.isinf)
_unary("isfinite", _api_comparison.isfinite)
_unary("logical_not", _api_comparison.logical_not)


def _sinc_body(t):
    px = t * math.pi
    small = _api_pointwise_unary.abs(px) < 1e-3
    safe = _api_comparison.where(small, 1.0, px)
    series = 1 - px * px / 6 + px ** 4 / 120   # (the Taylor series near 0: smooth derivatives)
    return _api_comparison.where(small, series, _api_pointwise.sin(safe) / safe)


@on_tensors(_np.sinc)
def sinc(x):
    """Near 0 a Taylor series, so that every derivative is finite and right."""
    dt = result_dtype(_np.sinc, x)
    return as_result(_sinc_body(tensor(x, dt)), dt)


@on_tensors(_np.real)
def real(val):
    t = tensor(val)
    return _api_pointwise.real(t) if t._data.dtype.kind == "c" else t


@on_tensors(_np.imag)
def imag(val):
    t = tensor(val)
    return _api_pointwise_unary.imag(t) if t._data.dtype.kind == "c" else t * 0


@on_tensors(_np.angle)
def angle(z, deg=False):
    t = tensor(z)
    if t._data.dtype.kind != "c":
        t = tensor(t, _np.result_type(t._data.dtype, _np.float64)
                   if t._data.dtype.kind != "f" else t._data.dtype)
    a = _api_pointwise_unary.angle(t)
    return a * (180.0 / math.pi) if deg else a


@on_tensors(_np.round)
def round(a, decimals=0, out=None):  # noqa: A001
    if out is not None:
        _check_kwargs("round", {"out": out})
    t = tensor(a)
    if t._data.dtype.kind not in "fc":
        if decimals >= 0:
            return t
        return _api_pointwise_unary.round(t.double(), decimals=decimals).to(t.dtype)
    return _api_pointwise_unary.round(t, decimals=decimals)


_alias("around", "round")

# ----------------------------------------------------------------- binary math
for _name, _op in [("add", "__add__"), ("subtract", "__sub__"), ("multiply", "__mul__"),
                   ("true_divide", "__truediv__")]:
    _binary(_name, (lambda op: lambda a, b: getattr(a, op)(b) if isinstance(a, Tensor)
                    else getattr(b, "__r" + op[2:])(a))(_op), scalar_ok=True)
for _name, _fn in [("maximum", _api_pointwise_binary.maximum),
                   ("minimum", _api_pointwise_binary.minimum),
                   ("arctan2", _api_pointwise_binary.atan2),
                   ("hypot", _api_pointwise_binary.hypot),
                   ("logaddexp", _api_pointwise_binary.logaddexp),
                   ("remainder", _api_pointwise_binary.remainder),
                   ("fmod", _api_pointwise_binary.fmod),
                   ("floor_divide", _api_pointwise.floor_divide),
                   ("greater", _api_comparison.gt), ("greater_equal", _api_comparison.ge),
                   ("less", _api_comparison.lt), ("less_equal", _api_comparison.le),
                   ("equal", _api_comparison.eq), ("not_equal", _api_comparison.ne),
                   ("logical_and", _api_comparison.logical_and),
                   ("logical_or", _api_comparison.logical_or),
                   ("logical_xor", _api_comparison.logical_xor)]:
    _binary(_name, _fn)
_alias("divide", "true_divide")
_alias("mod", "remainder")


def _pow(a, b):
    return a ** b if isinstance(a, Tensor) else _api_pointwise.pow(a, b)


def _power_checked(a, b):
    if isinstance(a, Tensor) and a._data.dtype.kind in "iu":
        exps = b if not isinstance(b, Tensor) else data_of(b)
        if _np.any(_np.asarray(exps) < 0):
            raise ValueError("Integers to negative integer powers are not allowed.")
    return _pow(a, b)


_binary("power", _power_checked, keep_scalars=True)
_binary("float_power", _pow, keep_scalars=True)


def _fmax(a, b):
    a, b = tensor(a), tensor(b)
    where, isnan = _api_comparison.where, _api_comparison.isnan
    return where(isnan(b), a, where(isnan(a), b, _api_pointwise_binary.maximum(a, b)))


def _fmin(a, b):
    a, b = tensor(a), tensor(b)
    where, isnan = _api_comparison.where, _api_comparison.isnan
    return where(isnan(b), a, where(isnan(a), b, _api_pointwise_binary.minimum(a, b)))


_binary("fmax", _fmax)
_binary("fmin", _fmin)
_LN2 = math.log(2.0)
_binary("logaddexp2",
        lambda a, b: _api_pointwise_binary.logaddexp(tensor(a) * _LN2, tensor(b) * _LN2) / _LN2)


def _copysign(a, b):
    a, b = tensor(a), tensor(b)
    neg = _api_misc_ops.signbit(b)
    return _api_comparison.where(neg, -_api_pointwise_unary.abs(a), _api_pointwise_unary.abs(a))


_binary("copysign", _copysign)


# ----------------------------------------------------------------- where, clip
def where(condition, *xy):
    """``where(condition)`` is ``nonzero(condition)`` (arrays of indices, no gradient);
    ``where(condition, x, y)`` chooses elementwise, differentiable in ``x`` and ``y``."""
    if len(xy) not in (0, 2):
        raise ValueError("either both or neither of x and y should be given")
    if not has_tensor(condition, *xy):
        return _np.where(condition, *xy)
    if not xy:
        return _np.nonzero(data_of(tensor(condition)))
    x, y = xy
    with numpy_errors("where"):
        _broadcast_check("where", condition, x, y)
        dt, (a, b) = cast_args(lambda p, q: _np.where(True, p, q), x, y, key="where")
        c = tensor(condition)
        if c._data.dtype != _np.bool_:
            c = c != 0
        a, b = tensor(a, dt), tensor(b, dt)
        return _api_comparison.where(c, a, b)


where.__wrapped_numpy__ = _np.where
__all__.append("where")


@on_tensors(_np.clip)
def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    """``clip(a, a_min, a_max)`` (NumPy 2's ``min=``/``max=`` too); the gradient flows
    where ``a`` is inside the bounds, and to a Tensor bound where it applies."""
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    _check_kwargs("clip", dict(kwargs, out=out))
    if a_min is None and a_max is None:
        return tensor(a)
    args = [x for x in (a, a_min, a_max) if x is not None]
    _broadcast_check("clip", *args)
    dt, _ = cast_args(lambda *p: _np.clip(p[0], *(p[1:] + (None,) * (3 - len(p)))), *args,
                      key=("clip", a_min is None, a_max is None))
    t = tensor(a, dt)
    lo = None if a_min is None else tensor(a_min, dt)
    hi = None if a_max is None else tensor(a_max, dt)
    return _api_pointwise_binary.clamp(t, min=lo, max=hi)


__all__.append("clip")
__all__ += ["sinc", "real", "imag", "angle", "round"]
