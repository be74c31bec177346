"""Pointwise ops: the table entries (forward kernel, VJPs, JVP) and the public functions.

Rules follow PyTorch's derivatives.yaml, including the complex convention
(the gradient is the conjugate Wirtinger derivative: ``grad * conj(f'(z))``).
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor
from ..dispatch import binary, dispatch, unary, unary_attr
from ..inplace import check_inplace_numbers, dispatch_inplace
from ..codegen.entries import make_binary_function, make_binary_operator, make_unary_function
from ..registry import export
from ..._core.dtypes import get_default_dtype
from ..._tensor.memory_format import apply, check_memory_format, contiguous_format
from ..derivatives.pointwise import (
    ADD, ADD_ALPHA, CLONE, CLONE_CONTIGUOUS, CONJ_PHYSICAL, COS, DIV, DIV_MODE, EXP, LOG, MUL,
    NEG, POW, POW_S, POW_T, REAL, RECIPROCAL, RELU, RSUB, SIGMOID, SIN, SUB, SUB_ALPHA, TANH)
from ..kernels.pointwise import _no_bool_sub


# ============================================================ rounding division, shared checks
def _rounding_mode(mode):
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{mode}'")
    return mode


# ============================================================ public functions
_UNARY = {"exp": EXP, "log": LOG, "sin": SIN, "cos": COS, "tanh": TANH, "sigmoid": SIGMOID,
          "relu": RELU, "neg": NEG, "reciprocal": RECIPROCAL}


def _check_tensor(name, x, pos="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{pos}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _make_unary(name, op):
    fn = make_unary_function(op, name, lambda x: _check_tensor(name, x),
                             lambda r, out: _out(r, out))

    def fn_(self):
        return dispatch_inplace(op, self)
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Elementwise {name} (``graphgrad.{name}``; backward node {op.node_name})."
    export(name)(fn)
    export(name + "_")(fn_)
    return fn


for _n, _op in _UNARY.items():
    globals()[_n] = _make_unary(_n, _op)
negative = export("negative")(globals()["neg"])


def _number_first(name, input, other):
    """``input`` of ``graphgrad.add/sub/mul/div(input, other)`` when it is not a Tensor:
    PyTorch takes a Number there when ``other`` is a Tensor (``torch.sub(2.0, t)`` is
    ``2.0 - t``), as a 0-d tensor of the result's dtype, so ``t``'s dtype is kept."""
    if isinstance(input, Tensor):
        return input
    if isinstance(input, (int, float, bool, complex, np.generic)) and \
            isinstance(other, (Tensor, int, float, bool, complex, np.generic)):
        v = input.item() if isinstance(input, np.generic) else input
        if isinstance(v, bool):  # (a bool stays bool: sub(True, t) raises as PyTorch's)
            return Tensor._wrap(np.asarray(v))
        if not isinstance(other, Tensor):  # (two numbers: a 0-d tensor of their type)
            other = other.item() if isinstance(other, np.generic) else other
        return Tensor._wrap(np.asarray(v, _dtype.result_type(v, other).np))
    _check_tensor(name, input)


def _as_operand(name, x):
    c = x.__class__
    if c is float or c is int or c is bool or c is complex or isinstance(x, Tensor):
        return x
    if isinstance(x, _NP_SCALARS):  # (np.float64 is a float subclass: test it first)
        return x.item()  # a NumPy scalar is a number, as in PyTorch (no dtype of its own)
    if isinstance(x, (int, float, bool, complex)):
        return x
    raise TypeError(f"{name}(): argument 'other' must be Tensor or Number, not {type(x).__name__}")


def _plain_alpha(name, input, other, alpha):
    """Whether ``alpha`` is the int 1 (plain add/sub); else checks it against the result
    dtype with PyTorch's rules (no bool alpha unless the result is bool, no float alpha for
    integral results, no complex alpha for real results)."""
    if alpha.__class__ is int and alpha == 1:
        return True
    if name.startswith("sub"):
        _no_bool_sub((input, other))
    rt = _dtype.result_type(input, other)
    if isinstance(alpha, bool):
        if rt.np != np.bool_:
            raise RuntimeError(f"Boolean alpha only supported for Boolean results. [{name}: "
                               f"pass alpha as a number of the result's dtype, {rt}]")
    elif isinstance(alpha, (float, complex)) and rt.category < 2:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           f"point number. [{name}: the result is {rt}; pass an int alpha]")
    elif isinstance(alpha, complex) and rt.category < 3:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           f"number. [{name}: the result is {rt}]")
    return False


def _add(input, other, *, alpha=1, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("add", input, other)
    other = _as_operand("add", other)
    r = binary(ADD, input, other) if _plain_alpha("add", input, other, alpha) else \
        dispatch(ADD_ALPHA, input, other, alpha)
    return _out(r, out)


def _sub(input, other, *, alpha=1, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("sub", input, other)
    other = _as_operand("sub", other)
    r = binary(SUB, input, other) if _plain_alpha("sub", input, other, alpha) else \
        dispatch(SUB_ALPHA, input, other, alpha)
    return _out(r, out)


# graphgrad.add/sub/mul/div(input, other): the generated entry (as fast as ``a + b``) for
# a Tensor and a Tensor or number; the functions above for anything else
_PLAIN_ALPHA = "out is not None or alpha.__class__ is not int or alpha != 1"
add = export("add")(make_binary_function(ADD, "add", "input, other, *, alpha=1, out=None",
                                         _PLAIN_ALPHA, _add))
sub = export("sub")(make_binary_function(SUB, "sub", "input, other, *, alpha=1, out=None",
                                         _PLAIN_ALPHA, _sub))
subtract = export("subtract")(sub)


def _mul(input, other, *, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("mul", input, other)
    return _out(binary(MUL, input, _as_operand("mul", other)), out)


mul = export("mul")(make_binary_function(MUL, "mul", "input, other, *, out=None",
                                         "out is not None", _mul))
multiply = export("multiply")(mul)


def _div(input, other, *, rounding_mode=None, out=None):
    if input.__class__ is not Tensor:
        input = _number_first("div", input, other)
    other = _as_operand("div", other)
    if rounding_mode is None:
        return _out(binary(DIV, input, other), out)
    return _out(dispatch(DIV_MODE, input, other, _rounding_mode(rounding_mode)), out)


div = export("div")(make_binary_function(
    DIV, "div", "input, other, *, rounding_mode=None, out=None",
    "out is not None or rounding_mode is not None", _div))
divide = export("divide")(div)
@export()
def true_divide(input, other, *, out=None):
    return div(input, other, out=out)


@export()
def pow(input, exponent, *, out=None):  # noqa: A001
    if not isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _out(_scalar_pow(_as_operand("pow", input), exponent), out)
        _check_tensor("pow", input)
    if isinstance(exponent, Tensor):
        return _out(binary(POW_T, input, exponent), out)
    exponent = _as_operand("pow", exponent)
    if isinstance(exponent, float) and input._data.dtype.kind in "iub":
        input = input.to(_default_float())
    return _out(dispatch(POW, input, exponent), out)


def _default_float():
    return get_default_dtype()


def _out(r, out):
    """``out=`` of an elementwise op: PyTorch refuses an ``out`` the result cannot be cast
    to (a float result into an int tensor), rather than truncating."""
    if out is None:
        return r
    if isinstance(out, Tensor) and not _dtype.can_cast(r.dtype, out.dtype):
        name = _dtype.scalar_type_name
        raise RuntimeError(f"result type {name(r.dtype)} can't be cast to the desired output "
                           f"type {name(out.dtype)}")
    from .conversion import _write_out
    return _write_out(r, out)


@export()
def add_(self, other, *, alpha=1):
    other = _as_operand("add_", other)
    if _plain_alpha("add_", self, other, alpha):
        return dispatch_inplace(ADD, self, other)
    return dispatch_inplace(ADD_ALPHA, self, other, alpha)


@export()
def sub_(self, other, *, alpha=1):
    other = _as_operand("sub_", other)
    if _plain_alpha("sub_", self, other, alpha):
        return dispatch_inplace(SUB, self, other)
    return dispatch_inplace(SUB_ALPHA, self, other, alpha)


@export()
def mul_(self, other):
    return dispatch_inplace(MUL, self, _as_operand("mul_", other))


@export()
def div_(self, other, *, rounding_mode=None):
    other = _as_operand("div_", other)
    if rounding_mode is not None:
        return dispatch_inplace(DIV_MODE, self, other, _rounding_mode(rounding_mode))
    return dispatch_inplace(DIV, self, other)


@export(function=False)
def true_divide_(self, other):
    return dispatch_inplace(DIV, self, _as_operand("true_divide_", other))


@export()
def pow_(self, exponent):
    if isinstance(exponent, Tensor):
        return dispatch_inplace(POW_T, self, exponent)
    check_inplace_numbers("pow_", self, exponent)
    return dispatch_inplace(POW, self, exponent)


@export()
def clone(input, *, memory_format=None):
    _check_tensor("clone", input)
    if memory_format is not None:
        if check_memory_format("clone", memory_format) is contiguous_format:
            return unary(CLONE_CONTIGUOUS, input)
        r = apply("clone", input, memory_format, copy=True)
        if r is not None:
            return r
    return unary(CLONE, input)


@export()
def conj_physical(input):
    """The conjugate, computed; a real tensor is returned as it is (as in PyTorch)."""
    _check_tensor("conj_physical", input)
    return unary(CONJ_PHYSICAL, input) if input._data.dtype.kind == "c" else input


@export(method=False)
def real(input):
    if input._data.dtype.kind != "c":
        return input
    return unary(REAL, input)


def _need_tensor(name, x, pos, argname):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


# ------------------------------------------------------------ Python operators
def _rsub(self, other):
    c = other.__class__
    if (c is float or c is int) and self._data.dtype.kind == "f":
        return unary_attr(RSUB, self, other)  # ``1.0 - t`` (what the steps below do for it)
    if isinstance(other, Tensor):
        return binary(SUB, other, self)
    other = _as_operand("rsub", other)
    if self._data.dtype == np.bool_:
        _no_bool_sub((self, other))
    if self._data.dtype.kind in "iub" and isinstance(other, float):
        self = self.to(_default_float())
    return dispatch(RSUB, self, other)


def _rdiv(self, other):
    if isinstance(other, Tensor):
        return binary(DIV, other, self)
    return binary(MUL, unary(RECIPROCAL, self), _as_operand("rdiv", other))


def _rpow(self, other):
    if isinstance(other, Tensor):
        return binary(POW_T, other, self)
    return _scalar_pow(_as_operand("rpow", other), self)


def _scalar_pow(base, exponent):
    """``base ** exponent`` for a Python number base, in PyTorch's result dtype (a float base
    and an integer exponent give the default dtype; NumPy would give float64)."""
    rt = _dtype.result_type(exponent, base)
    if rt.np == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if rt.np != exponent._data.dtype:
        exponent = exponent.to(rt)
    return dispatch(POW_S, exponent, base)


def _iadd(self, other):
    return add_(self, other)


def _isub(self, other):
    return sub_(self, other)


def _imul(self, other):
    return mul_(self, other)


def _itruediv(self, other):
    return div_(self, other)


_NP_SCALARS = (np.number, np.bool_)

def _pow_operator(self, other):
    """``t ** 2.0``: a Python int or float exponent of a float tensor goes to the op
    directly (what ``pow`` does for it, without its argument checks)."""
    if (other.__class__ is int or other.__class__ is float) and \
            self._data.dtype.kind == "f":
        return unary_attr(POW, self, other)
    return pow(self, other)


# ufunc -> (Tensor's operator, its reflected operator)
_UFUNC_OPERATORS = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"), np.true_divide: ("__truediv__", "__rtruediv__"),
    np.power: ("__pow__", "__rpow__"), np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"),
    np.less: ("__lt__", "__gt__"), np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"), np.greater_equal: ("__ge__", "__le__"),
    np.equal: ("__eq__", "__eq__"), np.not_equal: ("__ne__", "__ne__"),
    np.bitwise_and: ("__and__", "__rand__"), np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"), np.matmul: ("__matmul__", "__rmatmul__"),
}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """A NumPy scalar and a Tensor: ``np.float64(1) - t`` is ``1.0 - t``, as in PyTorch.

    Python hands ``t * np.float64(2)`` to NumPy once Tensor's operator declines the scalar,
    and NumPy's scalar operators call this (comparisons pass the scalar as a 0-d array);
    the scalar becomes a Python number (a wrapped number for type promotion: float32 stays
    float32) and the Tensor's own operator runs.

    An ndarray and a Tensor (``x - t``, ``t * x``, ``x @ t``, either side): the array
    becomes a Tensor and the Tensor's operator runs -- a deliberate difference from
    PyTorch, which refuses the mix, so that NumPy code ported with graphgrad.numpy
    (data arrays meeting parameter Tensors) runs (docs/differences.md).  Anything else is
    refused (TypeError)."""
    names = _UFUNC_OPERATORS.get(ufunc)
    if names is None or method != "__call__" or kwargs or len(inputs) != 2:
        return NotImplemented
    a, b = inputs
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        t, x, name = a, b, names[0]
    elif isinstance(b, Tensor) and not isinstance(a, Tensor):
        t, x, name = b, a, names[1]
    else:
        return NotImplemented
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, np.ndarray) and x.dtype.kind in "biufc":
        return getattr(t, name)(Tensor._wrap(np.array(x)))
    if not isinstance(x, _NP_SCALARS):
        return NotImplemented
    return getattr(t, name)(x.item())


OPERATORS = {
    "__array_ufunc__": _array_ufunc,
    "__add__": make_binary_operator(ADD, "__add__"),
    "__radd__": make_binary_operator(ADD, "__radd__"),
    "__sub__": make_binary_operator(SUB, "__sub__"),
    "__rsub__": _rsub,
    "__mul__": make_binary_operator(MUL, "__mul__"),
    "__rmul__": make_binary_operator(MUL, "__rmul__"),
    "__truediv__": make_binary_operator(DIV, "__truediv__"),
    "__rtruediv__": _rdiv,
    "__pow__": _pow_operator,
    "__rpow__": _rpow,
    "__ipow__": lambda self, other: pow_(self, other),  # (in place: views see it)
    "__neg__": lambda self: unary(NEG, self),
    "__pos__": lambda self: self,
    "__iadd__": _iadd, "__isub__": _isub, "__imul__": _imul, "__itruediv__": _itruediv,
    "__floordiv__": lambda self, other: div(self, other, rounding_mode="floor"),
    "__rfloordiv__": lambda self, other: _rdiv_floor(self, other),
    "__ifloordiv__": lambda self, other: div_(self, other, rounding_mode="floor"),
}


def _rdiv_floor(self, other):
    other = _as_operand("floordiv", other)
    return div(Tensor._wrap(np.asarray(other, _dtype.result_type(other, self).np)), self,
               rounding_mode="floor")


@export()
def floor_divide(input, other, *, out=None):
    """``input // other``: division rounded toward minus infinity (rounding_mode='floor')."""
    return div(input, other, rounding_mode="floor", out=out)


@export()
def floor_divide_(self, other):
    return div_(self, other, rounding_mode="floor")

