"""More pointwise functions: fmax/fmin, copysign, heaviside, logaddexp2, float_power,
deg2rad/rad2deg, isneginf/isposinf/isreal, frexp, ldexp, nextafter, gcd/lcm, the bit shifts,
rsub and positive (with their in-place forms where PyTorch has them).

``float_power`` is PyTorch's composition (both operands cast to float64 or complex128, then
``pow``: ToCopyBackward0 and PowBackward0/1/2 nodes); the others are table entries with
PyTorch's nodes (ops/derivatives/pointwise_more.py).
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core import dtypes as _dtypes
from ..._core.dtypes import scalar_type_name
from ..dispatch import binary, dispatch
from ..inplace import dispatch_inplace
from ..registry import export
from .conversion import _write_out
from .pointwise import _as_operand, _make_unary, _need_tensor, _out
from .pointwise_binary import _binary_tensors
from ..kernels.pointwise import _no_bool_sub
from ..derivatives.pointwise_more import (
    COPYSIGN, COPYSIGN_S, DEG2RAD, I0, SPECIAL_I1, FMAX, FMIN, FREXP, GCD, HEAVISIDE, LCM, LDEXP, LOGADDEXP2,
    LSHIFT, NEXTAFTER, RAD2DEG, RSHIFT, RSUB_S_ALPHA, RSUB_T)
from ... import return_types as _return_types


def _tensors(name, op, inplace=False, method_only=True):
    return _binary_tensors(name, op, inplace, inplace_function=not method_only)


fmax = _tensors("fmax", FMAX)
fmin = _tensors("fmin", FMIN)
fmax.__doc__ = "The elementwise maximum, ignoring NaN (NaN only where both are NaN)."
fmin.__doc__ = "The elementwise minimum, ignoring NaN (NaN only where both are NaN)."
logaddexp2 = _tensors("logaddexp2", LOGADDEXP2)
nextafter = _tensors("nextafter", NEXTAFTER, inplace=True)
gcd = _tensors("gcd", GCD, inplace=True, method_only=False)
lcm = _tensors("lcm", LCM, inplace=True, method_only=False)


# ---------------------------------------------------------------- copysign
def _copysign_op(name, other):
    if isinstance(other, Tensor):
        return COPYSIGN, other
    return COPYSIGN_S, _as_operand(name, other)


@export()
def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other`` (a tensor or a number)."""
    _need_tensor("copysign", input, 1, "input")
    op, other = _copysign_op("copysign", other)
    return _out(dispatch(op, input, other), out)


@export(function=False)
def copysign_(self, other):
    op, other = _copysign_op("copysign_", other)
    return dispatch_inplace(op, self, other)


# ---------------------------------------------------------------- heaviside
HEAVISIDE.node_cls.name = lambda self: "torch::autograd::NotImplemented"   # (PyTorch's name)

def _heaviside_check(name, input, values):
    _need_tensor(name, input, 1, "input")
    _need_tensor(name, values, 2, "values")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           f"dtypes. [got {scalar_type_name(input._data.dtype)} and "
                           f"{scalar_type_name(values._data.dtype)}; convert values with "
                           ".to(input.dtype)]")


@export()
def heaviside(input, values, *, out=None):
    """0 where input < 0, 1 where input > 0, ``values`` where input == 0 (no derivative)."""
    _heaviside_check("heaviside", input, values)
    return _out(dispatch(HEAVISIDE, input, values), out)


@export(function=False)
def heaviside_(self, values):
    _heaviside_check("heaviside_", self, values)
    return dispatch_inplace(HEAVISIDE, self, values)


# ---------------------------------------------------------------- float_power
def _float_power_dtype(input, exponent):
    cplx = any(isinstance(x, Tensor) and x._data.dtype.kind == "c" or isinstance(x, complex)
               for x in (input, exponent))
    return "complex128" if cplx else "float64"


def _as_double(x, dt):
    if isinstance(x, Tensor):
        return x if x.dtype.name == dt else x.to(getattr(_dtypes, dt))
    return x


@export()
def float_power(input, exponent, *, out=None):
    """``pow`` in double precision: both operands as float64 (complex128 if either is
    complex), as PyTorch composes it."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): at least one of 'input' and 'exponent' must be a Tensor")
    dt = _float_power_dtype(input, exponent)
    a, b = _as_double(input, dt), _as_double(exponent, dt)
    if not isinstance(b, Tensor) and isinstance(b, (int, float)) and dt == "complex128":
        b = complex(b)
    return _out(a ** b if isinstance(a, Tensor) else b.__rpow__(a), out)


@export(function=False)
def float_power_(self, exponent):
    dt = _float_power_dtype(self, exponent)
    if self.dtype.name != dt:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{scalar_type_name(self._data.dtype)} but the operation's result "
                           f"requires dtype {'Double' if dt == 'float64' else 'ComplexDouble'}"
                           " [convert the base with .double() first]")
    return self.pow_(_as_double(exponent, dt))


# ---------------------------------------------------------------- deg2rad / rad2deg
deg2rad = _make_unary("deg2rad", DEG2RAD)
rad2deg = _make_unary("rad2deg", RAD2DEG)


# ---------------------------------------------------------------- i0 / special.i1
i0 = _make_unary("i0", I0)
i0.__doc__ = "The modified Bessel function of the first kind of order 0 (I0Backward0)."


def special_i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1 (SpecialI1Backward0)."""
    _need_tensor("special.i1", input, 1, "input")
    return _out(dispatch(SPECIAL_I1, input), out)


# ---------------------------------------------------------------- classification
def _inf_test(name, sign):
    def fn(input, *, out=None):
        _need_tensor(name, input, 1, "input")
        d = input._data
        if d.dtype.kind == "c":
            raise RuntimeError(f"{name} does not support complex inputs.")
        # (table ops, so that vmap batches them)
        r = input.isinf() & ((input > 0) if sign > 0 else (input < 0))
        return _out(r, out)
    fn.__name__ = name
    fn.__doc__ = f"Whether each element is {'+' if sign > 0 else '-'}inf (a bool tensor)."
    return export(name)(fn)


isposinf = _inf_test("isposinf", 1)
isneginf = _inf_test("isneginf", -1)


@export()
def isreal(input):
    """Whether each element is real (imaginary part 0; every element of a real tensor)."""
    _need_tensor("isreal", input, 1, "input")
    if input._data.dtype.kind == "c":
        return input.imag == 0
    return input == input if input._data.dtype.kind not in "fV" else \
        (input == input) | input.isnan()


# ---------------------------------------------------------------- frexp / ldexp
@export()
def frexp(input, *, out=None):
    """(mantissa, exponent): ``input == mantissa * 2 ** exponent``, the mantissa in
    [0.5, 1) in magnitude (the input's dtype), the exponent int32."""
    _need_tensor("frexp", input, 1, "input")
    m, e = dispatch(FREXP, input)
    if out is not None:
        m, e = _write_out(m, out[0]), _write_out(e, out[1])
    return _return_types.frexp(m, e)


@export()
def ldexp(input, other, *, out=None):
    """``input * 2 ** other``."""
    _need_tensor("ldexp", input, 1, "input")
    _need_tensor("ldexp", other, 2, "other")
    return _out(binary(LDEXP, input, other), out)


@export()
def ldexp_(self, other):
    _need_tensor("ldexp_", other, 1, "other")
    return dispatch_inplace(LDEXP, self, other)


# ---------------------------------------------------------------- bit shifts
def _shift(name, op):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            if not isinstance(other, Tensor):
                raise TypeError(f"{name}(): at least one of 'input' and 'other' must be a "
                                "Tensor")
            input = Tensor._wrap(np.asarray(_as_operand(name, input), other._data.dtype
                                            if isinstance(input, int) else None))
        other = other if isinstance(other, Tensor) else _as_operand(name, other)
        return _out(dispatch(op, input, other), out)

    def fn_(self, other):
        other = other if isinstance(other, Tensor) else _as_operand(name + "_", other)
        return dispatch_inplace(op, self, other)
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Elementwise {'<<' if 'left' in name else '>>'} of integer tensors."
    export(name)(fn)
    export(name + "_", function=False)(fn_)
    return fn


bitwise_left_shift = _shift("bitwise_left_shift", LSHIFT)
bitwise_right_shift = _shift("bitwise_right_shift", RSHIFT)


# ---------------------------------------------------------------- rsub / positive
@export(method=False)
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    _need_tensor("rsub", input, 1, "input")
    alpha = _as_operand("rsub", alpha)
    if isinstance(other, Tensor):
        if input._data.dtype == np.bool_ or other._data.dtype == np.bool_:
            _no_bool_sub((input, other))
        return dispatch(RSUB_T, input, other, alpha)
    if alpha == 1:
        return input.__rsub__(other)
    other = _as_operand("rsub", other)
    if input._data.dtype == np.bool_:
        _no_bool_sub((input, other))
    if input._data.dtype.kind in "iub" and isinstance(other, float):
        input = input.to(_dtypes.get_default_dtype())
    return dispatch(RSUB_S_ALPHA, input, other, alpha)


@export()
def positive(input):
    """``input`` itself (PyTorch's unary +); bool tensors are refused."""
    _need_tensor("positive", input, 1, "input")
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported. [positive: "
                           "use the tensor itself]")
    return input


# ---------------------------------------------------------------- << and >> on tensors
# (published as methods: graphgrad/__init__ sets every METHODS entry on Tensor)
export("__lshift__", function=False)(lambda self, other: bitwise_left_shift(self, other))
export("__rshift__", function=False)(lambda self, other: bitwise_right_shift(self, other))
export("__rlshift__", function=False)(lambda self, other: bitwise_left_shift(other, self))
export("__rrshift__", function=False)(lambda self, other: bitwise_right_shift(other, self))
export("__ilshift__", function=False)(lambda self, other: self.bitwise_left_shift_(other))
export("__irshift__", function=False)(lambda self, other: self.bitwise_right_shift_(other))
