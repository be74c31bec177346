"""Comparisons, logical ops and ``where``.

Comparisons and logical ops are non-differentiable: their results are bool
tensors that never require grad.  ``where`` is differentiable in its two
value arguments (not in the condition), with PyTorch's rule: the gradient
flows to the branch that was taken, and is exactly zero (never NaN) in the
other, even where that branch holds NaN or inf.
"""
from __future__ import annotations

import numpy as np

from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ..dispatch import binary, dispatch, unary
from ..inplace import dispatch_inplace
from ..registry import export
from ..._core import dtypes as _dtype
from ..derivatives.comparison import (
    BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR, EQ, GE, GT, ISCLOSE, ISFINITE, ISINF,
    ISNAN, LE, LOGICAL_AND, LOGICAL_NOT, LOGICAL_OR, LOGICAL_XOR, LT, NE, WHERE)
from ..kernels.comparison import _complex_type_name


def _no_order(name, a, b):
    """Complex numbers have no order: PyTorch's error (NumPy would compare them
    lexicographically, a silent wrong answer)."""
    a = a._data if isinstance(a, Tensor) else a
    b = b._data if isinstance(b, Tensor) else b
    raise NotImplementedError(f'"{name}_cpu" not implemented for '
                              f"'{_complex_type_name(a, b)}'")


def _ordered_operator(name, op):
    """``x < y`` etc., refusing complex operands (the check costs a few attribute reads);
    also the body of ``lt``/``le``/``gt``/``ge``."""
    def operator(self, other):
        if self._data.dtype.kind == "c" or other.__class__ is complex or \
                (isinstance(other, Tensor) and other._data.dtype.kind == "c"):
            _no_order(name, self, other)
        return binary(op, self, other)
    return operator


def _cmp(name, op):
    if name in ("lt", "le", "gt", "ge"):
        compare = _ordered_operator(name, op)
    else:
        def compare(a, b):
            return binary(op, a, b)

    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
        if isinstance(other, np.generic):
            other = other.item()
        return _out(compare(input, other), out)
    fn.__name__ = name
    export(name)(fn)
    return fn, compare


eq, _ = _cmp("eq", EQ)
ne, _ = _cmp("ne", NE)
lt, _lt = _cmp("lt", LT)
le, _le = _cmp("le", LE)
gt, _gt = _cmp("gt", GT)
ge, _ge = _cmp("ge", GE)
greater, greater_equal, less, less_equal = gt, ge, lt, le
not_equal = ne
for _alias, _f in (("greater", gt), ("greater_equal", ge), ("less", lt), ("less_equal", le),
                   ("not_equal", ne)):
    export(_alias)(_f)


def _logical(name, op):
    def fn(input, other, *, out=None):
        return _out(binary(op, input, other), out)
    fn.__name__ = name
    export(name)(fn)
    return fn


logical_and = _logical("logical_and", LOGICAL_AND)
logical_or = _logical("logical_or", LOGICAL_OR)
logical_xor = _logical("logical_xor", LOGICAL_XOR)


@export()
def logical_not(input, *, out=None):
    return _out(unary(LOGICAL_NOT, input), out)


def _out(r, out):
    """``out=``: copy the result into ``out`` (cast to its dtype, as PyTorch does)."""
    if out is None:
        return r
    from .conversion import _write_out
    return _write_out(r, out)


export("bitwise_and")(lambda input, other: binary(BITWISE_AND, input, other))
export("bitwise_or")(lambda input, other: binary(BITWISE_OR, input, other))
export("bitwise_xor")(lambda input, other: binary(BITWISE_XOR, input, other))
export("bitwise_not")(lambda input: unary(BITWISE_NOT, input))
export("bitwise_and_", function=False)(lambda self, other: dispatch_inplace(BITWISE_AND, self,
                                                                          other))
export("bitwise_or_", function=False)(lambda self, other: dispatch_inplace(BITWISE_OR, self,
                                                                         other))
export("bitwise_xor_", function=False)(lambda self, other: dispatch_inplace(BITWISE_XOR, self,
                                                                          other))
export("bitwise_not_", function=False)(lambda self: dispatch_inplace(BITWISE_NOT, self))

isnan = export("isnan")(lambda input: unary(ISNAN, input))
isinf = export("isinf")(lambda input: unary(ISINF, input))
isfinite = export("isfinite")(lambda input: unary(ISFINITE, input))


def _inplace_via_copy(name, fn):
    """``x.eq_(y)`` etc.: the result, cast to x's dtype, copied into x.  Going through copy_
    gives x's history a zero gradient, as PyTorch's non-differentiable in-place ops do."""
    def fn_(self, other):
        from .inplace import copy_
        return copy_(self, fn(self, other))
    fn_.__name__ = name + "_"
    export(name + "_", function=False)(fn_)


for _name, _f in (("eq", eq), ("ne", ne), ("lt", lt), ("le", le), ("gt", gt), ("ge", ge),
                  ("logical_and", logical_and), ("logical_or", logical_or),
                  ("logical_xor", logical_xor)):
    _inplace_via_copy(_name, _f)


@export(function=False)
def logical_not_(self):
    from .inplace import copy_
    return copy_(self, logical_not(self))


# ------------------------------------------------------------------ isclose / allclose
@export()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (bool tensor, no gradient)."""
    for pos, (n, v) in enumerate((("input", input), ("other", other))):
        if not isinstance(v, Tensor):
            raise TypeError(f"isclose(): argument '{n}' (position {pos + 1}) must be Tensor, "
                            f"not {type(v).__name__}")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match "
                           f"{scalar_type_name(other.dtype)} (isclose compares tensors of one "
                           "dtype; convert one with .to())")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    return dispatch(ISCLOSE, input, other, float(rtol), float(atol), bool(equal_nan))


@export()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (see ``isclose``): a Python bool."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


# ------------------------------------------------------------------ where
@export(method=False)
def where(condition, input=None, other=None, *, out=None):
    """``where(cond, x, y)``: elements of x where cond, else y (differentiable in x and y)."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError("where(): argument 'condition' must be Tensor")
    if condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype.name.capitalize()}")
    vals = [v for v in (input, other)]
    rt = _dtype.result_type(*vals)
    conv = []
    for v in vals:
        if isinstance(v, Tensor):
            conv.append(v if v._data.dtype == rt.np else v.to(rt))
        else:
            conv.append(v)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        # two Python scalars: NumPy would compute in float64/complex128; PyTorch uses the
        # default dtype (rt), so the kernel gets one of them as a 0-d array of that dtype
        conv[0] = Tensor._wrap(np.asarray(input, dtype=rt.np))
    return dispatch(WHERE, condition, conv[0], conv[1])


@export("where", function=False)
def _where_method(self, condition, y):
    """``Tensor.where(condition, y)``: ``where(condition, self, y)`` (the tensor is the
    values where the condition holds, not the condition)."""
    return where(condition, self, y)


def _invert(self):
    if self._data.dtype.kind not in "iub":  # (Python's ~: PyTorch raises a TypeError)
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return unary(BITWISE_NOT, self)


OPERATORS = {
    "__eq__": lambda self, other: binary(EQ, self, other) if _cmp_ok(other) else NotImplemented,
    "__ne__": lambda self, other: binary(NE, self, other) if _cmp_ok(other) else NotImplemented,
    "__lt__": _lt, "__le__": _le, "__gt__": _gt, "__ge__": _ge,
    "__and__": lambda self, other: binary(BITWISE_AND, self, other),
    "__rand__": lambda self, other: binary(BITWISE_AND, self, other),
    "__or__": lambda self, other: binary(BITWISE_OR, self, other),
    "__ror__": lambda self, other: binary(BITWISE_OR, self, other),
    "__xor__": lambda self, other: binary(BITWISE_XOR, self, other),
    "__rxor__": lambda self, other: binary(BITWISE_XOR, self, other),
    "__iand__": lambda self, other: dispatch_inplace(BITWISE_AND, self, other),
    "__ior__": lambda self, other: dispatch_inplace(BITWISE_OR, self, other),
    "__ixor__": lambda self, other: dispatch_inplace(BITWISE_XOR, self, other),
    "__invert__": _invert,
}


def _cmp_ok(other):
    # (NumPy scalars come back through Tensor.__array_ufunc__ as Python numbers; np.float64
    # is a float subclass, so it is refused here by class)
    return isinstance(other, (Tensor, int, float, bool, complex)) and \
        not isinstance(other, np.generic)
