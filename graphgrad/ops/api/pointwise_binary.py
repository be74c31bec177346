"""Pointwise binary and ternary ops beyond the arithmetic core: maximum/minimum, fmod,
remainder, atan2, hypot, lerp, addcmul/addcdiv and the clamp family.

Entries follow PyTorch's derivatives.yaml (including its choices at ties and
kinks: ``maximum`` splits a tie's gradient evenly, ``clamp`` passes the
gradient to ``self`` on the closed interval ``[min, max]``) and the complex
convention ``grad * conj(df/dz)`` where PyTorch supports complex inputs.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ..dispatch import binary, dispatch
from ..inplace import check_inplace_numbers, dispatch_inplace
from .pointwise import _as_operand, _need_tensor, _out
from ..registry import export
from ..._core import dtypes as _dtype
from ..derivatives.pointwise_binary import (
    ADDCDIV, ADDCMUL, ATAN2, CLAMP, CLAMP_MAX, CLAMP_MAX_T, CLAMP_MIN, CLAMP_MIN_T, CLAMP_T,
    FMOD, FMOD_S, HYPOT, LERP, LERP_S, LOGADDEXP, MAXIMUM, MINIMUM, REMAINDER, REMAINDER_S,
    XLOGY, XLOGY_SCALAR_OTHER, XLOGY_SCALAR_SELF)
from ..kernels.pointwise_binary import _addcdiv_check


# ============================================================ public functions
def _binary_tensors(name, op, inplace=True, inplace_function=True):
    def fn(input, other, *, out=None):
        _need_tensor(name, input, 1, "input")
        _need_tensor(name, other, 2, "other")
        return _out(binary(op, input, other), out)

    def fn_(self, other):
        _need_tensor(name + "_", other, 1, "other")
        return dispatch_inplace(op, self, other)
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Elementwise ``{name}(input, other)``" + (
        f" (backward node {op.node_name})." if op.node_name else ".")
    export(name)(fn)
    if inplace:   # (graphgrad.<name>_ too unless only a Tensor method in PyTorch)
        export(name + "_", function=inplace_function)(fn_)
    return fn


maximum = _binary_tensors("maximum", MAXIMUM, inplace=False)
minimum = _binary_tensors("minimum", MINIMUM, inplace=False)
atan2 = _binary_tensors("atan2", ATAN2)
arctan2 = export("arctan2")(atan2)
export("arctan2_")(lambda self, other: dispatch_inplace(ATAN2, self, other))
hypot = _binary_tensors("hypot", HYPOT)


def _mod_op(name, op_s, op_t):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor) and isinstance(other, Tensor) and name == "remainder":
            # remainder(Number, Tensor): the number as a 0-d tensor of the result dtype
            input = Tensor._wrap(np.asarray(input, _dtype.result_type(input, other).np))
        _need_tensor(name, input, 1, "input")
        if isinstance(other, Tensor):
            return _out(binary(op_t, input, other), out)
        return _out(dispatch(op_s, input, _as_operand(name, other)), out)

    def fn_(self, other):
        if isinstance(other, Tensor):
            return dispatch_inplace(op_t, self, other)
        return dispatch_inplace(op_s, self, _as_operand(name + "_", other))
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = (f"Elementwise ``{name}(input, other)``: the remainder with the sign of "
                  f"{'the dividend (C fmod)' if name == 'fmod' else 'the divisor (Python %)'}.")
    export(name)(fn)
    export(name + "_")(fn_)
    return fn, fn_


fmod, fmod_ = _mod_op("fmod", FMOD_S, FMOD)
remainder, remainder_ = _mod_op("remainder", REMAINDER_S, REMAINDER)


def _lerp_args(input, end, weight):
    _need_tensor("lerp", input, 1, "input")
    _need_tensor("lerp", end, 2, "end")
    if end._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected dtype {input.dtype.name.replace('float64', 'double')} for "
                           f"`end` but got dtype {end.dtype.name.replace('float32', 'float')} "
                           "(lerp does not promote; convert `end` with .to(input.dtype))")
    if isinstance(weight, Tensor):
        if weight._data.dtype != input._data.dtype:
            if weight._data.ndim:
                raise RuntimeError(
                    f"expected dtype {input.dtype.name} for `weight` but got dtype "
                    f"{weight.dtype.name} (lerp does not promote; convert `weight` with "
                    ".to(input.dtype))")
            weight = weight.to(input.dtype)
        return LERP, weight
    if isinstance(weight, np.generic):
        weight = weight.item()
    if not isinstance(weight, (int, float, complex)) or isinstance(weight, bool):
        raise TypeError(f"lerp(): argument 'weight' must be Tensor or Number, not "
                        f"{type(weight).__name__}")
    return LERP_S, weight


@export()
def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)``, weight a number or a tensor."""
    op, weight = _lerp_args(input, end, weight)
    return _out(dispatch(op, input, end, weight), out)


@export()
def lerp_(self, end, weight):
    op, weight = _lerp_args(self, end, weight)
    return dispatch_inplace(op, self, end, weight)


def _addc(name, op):
    def fn(input, tensor1, tensor2, *, value=1, out=None):
        for i, (t, n) in enumerate(((input, "input"), (tensor1, "tensor1"),
                                    (tensor2, "tensor2"))):
            _need_tensor(name, t, i + 1, n)
        if op is ADDCDIV:  # before promotion casts the integer operands
            _addcdiv_check(tensor1._data, tensor2._data)
        return _out(dispatch(op, input, tensor1, tensor2, _as_operand(name, value)), out)

    def fn_(self, tensor1, tensor2, *, value=1):
        return dispatch_inplace(op, self, tensor1, tensor2, _as_operand(name + "_", value))
    fn.__name__, fn_.__name__ = name, name + "_"
    sym = "*" if name == "addcmul" else "/"
    fn.__doc__ = f"``input + value * tensor1 {sym} tensor2`` (backward node {op.node_name})."
    export(name)(fn)
    export(name + "_")(fn_)
    return fn


addcmul = _addc("addcmul", ADDCMUL)
addcdiv = _addc("addcdiv", ADDCDIV)


def _clamp_call(input, min, max, name="clamp"):  # noqa: A002
    """The op and arguments of ``clamp(input, min, max)`` (numbers or tensors)."""
    _need_tensor(name, input, 1, "input")
    if input._data.dtype.kind == "f" and (min is None or min.__class__ in (int, float)) and \
            (max is None or max.__class__ in (int, float)) and (min is not None or max is not None):
        return CLAMP, (input, min, max)  # the common case: numbers keep a float dtype
    if min is None and max is None:
        raise RuntimeError(f"torch.{name}: At least one of 'min' or 'max' must not be None")
    bounds = [b.item() if isinstance(b, np.generic) else b for b in (min, max)]
    kinds = {isinstance(b, Tensor) for b in bounds if b is not None}
    if len(kinds) > 1:
        raise TypeError(f"{name}() received an invalid combination of arguments: min and max "
                        "must both be Tensors or both be Numbers (or None)")
    if kinds == {True}:
        return CLAMP_T, (input, bounds[0], bounds[1])
    for b in bounds:
        if b is not None and not isinstance(b, (int, float)):
            raise TypeError(f"{name}(): min and max must be Numbers or Tensors, not "
                            f"{type(b).__name__}")
    rt = _dtype.result_type(input, *[b for b in bounds if b is not None])
    if rt.np != input._data.dtype and input._data.dtype.kind != "c":
        input = input.to(rt)
    return CLAMP, (input, bounds[0], bounds[1])


@export()
def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """Clamp every element into ``[min, max]`` (numbers or broadcastable tensors)."""
    op, args = _clamp_call(input, min, max)
    return _out(dispatch(op, *args), out)


@export()
def clamp_(self, min=None, max=None):  # noqa: A002
    op, args = _clamp_call(self, min, max, "clamp_")
    check_inplace_numbers("clamp_", self, *[b for b in (min, max) if not isinstance(b, Tensor)])
    return dispatch_inplace(op, self, *args[1:])


clip = export("clip")(clamp)
clip_ = export("clip_")(clamp_)


@export()
def clamp_min(input, min):  # noqa: A002
    _need_tensor("clamp_min", input, 1, "input")
    if isinstance(min, Tensor):
        return binary(CLAMP_MIN_T, input, min)
    return dispatch(*_clamp_scalar_one(CLAMP_MIN, input, min))


@export()
def clamp_max(input, max):  # noqa: A002
    _need_tensor("clamp_max", input, 1, "input")
    if isinstance(max, Tensor):
        return binary(CLAMP_MAX_T, input, max)
    return dispatch(*_clamp_scalar_one(CLAMP_MAX, input, max))


def _clamp_scalar_one(op, input, bound):
    bound = _as_operand(op.name, bound)
    rt = _dtype.result_type(input, bound)
    if rt.np != input._data.dtype:
        input = input.to(rt)
    return op, input, bound


@export()
def clamp_min_(self, min):  # noqa: A002
    if isinstance(min, Tensor):
        return dispatch_inplace(CLAMP_MIN_T, self, min)
    min = _as_operand("clamp_min_", min)  # noqa: A001
    check_inplace_numbers("clamp_min_", self, min)
    return dispatch_inplace(CLAMP_MIN, self, min)


@export()
def clamp_max_(self, max):  # noqa: A002
    if isinstance(max, Tensor):
        return dispatch_inplace(CLAMP_MAX_T, self, max)
    max = _as_operand("clamp_max_", max)  # noqa: A001
    check_inplace_numbers("clamp_max_", self, max)
    return dispatch_inplace(CLAMP_MAX, self, max)


# ============================================================ logaddexp / xlogy
logaddexp = _binary_tensors("logaddexp", LOGADDEXP, inplace=False)


def _xlogy_op(name, self, other):
    if isinstance(self, Tensor) and isinstance(other, Tensor):
        return XLOGY, self, other
    if isinstance(other, Tensor):
        return XLOGY_SCALAR_SELF, _as_operand(name, self), other
    _need_tensor(name, self, 1, "self")
    return XLOGY_SCALAR_OTHER, self, _as_operand(name, other)


@export()
def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where input is 0 (unless other is NaN); either may be a
    number."""
    op, a, b = _xlogy_op("xlogy", input, other)
    return _out(dispatch(op, a, b), out)


@export(function=False)
def xlogy_(self, other):
    op, a, b = _xlogy_op("xlogy_", self, other)
    return dispatch_inplace(op, a, b)


# (Tensor's % operators, installed with pointwise's and pointwise_unary's by graphgrad/__init__)
OPERATORS = {
    "__mod__": lambda self, other: remainder(self, other),
    "__rmod__": lambda self, other: remainder(other, self),
    "__imod__": lambda self, other: remainder_(self, other),
}
