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
from .. import formulas as F
from ..dispatch import binary, dispatch, no_bool
from ..inplace import check_inplace_numbers, dispatch_inplace
from ..._core.opmath import half_in_float32, number_like
from .pointwise import (_as_operand, _floats_only, _int_zero_check, _need_tensor, _no_complex,
                        _out, _tname)
from ..registry import ELEMENTWISE, LINEAR, POINTWISE, defop, export


def _max_min_kernel(name, ufunc):
    def kernel(a, b):
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return ufunc(b, a)  # (between 0.0 and -0.0 NumPy returns its second operand,
        # PyTorch self: maximum(-0.0, 0.0) is -0.0)
    return kernel


def _max_min_jvp(self_t, other_t, tie, self_wins):
    """PyTorch's ``other_t + c * (self_t - other_t)``, c = 1/2 at a tie, 1 where self is the
    result, else 0: at a NaN the tangent is other_t's (plus 0 * a non-finite difference:
    NaN), as PyTorch's, although the backward sends the gradient to both."""
    d = self_t - other_t
    return other_t + F.where(tie, d / 2, F.where(self_wins, d, d * 0))


# ties split the gradient evenly; a NaN sends it to both (it propagates from either)
MAXIMUM = defop("maximum(self, other)", _max_min_kernel("maximum", np.maximum),
                "MaximumBackward0", promote=True,
                self=lambda grad, self, other:
                    F.where(self < other, 0.0, F.where(self == other, grad / 2, grad)),
                other=lambda grad, self, other:
                    F.where(self > other, 0.0, F.where(self == other, grad / 2, grad)),
                jvp=lambda self_t, other_t, self, other: _max_min_jvp(
                    self_t, other_t, self == other, self > other), batched_jvp=POINTWISE)
MINIMUM = defop("minimum(self, other)", _max_min_kernel("minimum", np.minimum),
                "MinimumBackward0", promote=True,
                self=lambda grad, self, other:
                    F.where(self > other, 0.0, F.where(self == other, grad / 2, grad)),
                other=lambda grad, self, other:
                    F.where(self < other, 0.0, F.where(self == other, grad / 2, grad)),
                jvp=lambda self_t, other_t, self, other: _max_min_jvp(
                    self_t, other_t, self == other, self < other), batched_jvp=POINTWISE)


def _fmod_kernel(a, b):
    _no_complex("fmod", a)
    no_bool("fmod_cpu", a)
    if a.dtype.kind in "iub":
        _int_zero_check(np.asarray(b))
    return np.fmod(a, b)


def _remainder_kernel(a, b):
    _no_complex("remainder", a)
    no_bool("remainder_cpu", a)
    if a.dtype.kind in "iub":
        _int_zero_check(np.asarray(b))
        return np.remainder(a, b)
    # PyTorch's: fmod, then the divisor added where the sign is wrong, so a zero keeps the
    # dividend's sign (NumPy's remainder gives it the divisor's: 1 / (3.0 % -1.5) was -inf)
    r = np.fmod(a, b)
    fix = (r != 0) & ((np.asarray(b) < 0) != (r < 0))
    if fix.any():
        r = np.where(fix, r + b, r)
    return np.asarray(r, dtype=a.dtype) if np.ndim(r) == 0 else r


def _mod_jvp(self_t, other_t, self, other, mode):
    q = F.div_Tensor_mode(self, other, mode)
    if F.absent(other_t):
        # a divisor without a tangent adds nothing: fmod(x, 0) has tangent x_t, not NaN from
        # 0 * the NaN quotient (PyTorch's zero tangent is a ZeroTensor)
        return F.plus(self_t, F.absent_term(q))
    return self_t - other_t * q


# with a Python-number divisor only ``self`` has an edge (FmodBackward0 / RemainderBackward0)
FMOD_S = defop("fmod.Scalar(self, other)", _fmod_kernel, "FmodBackward0", promote=True,
               self=lambda grad: grad, jvp=ELEMENTWISE)
FMOD = defop("fmod.Tensor(self, other)", _fmod_kernel, "FmodBackward1", promote=True,
             self=lambda grad: grad,
             other=lambda grad, self, other: -grad * F.div_Tensor_mode(self, other, "trunc"),
             jvp=lambda self_t, other_t, self, other: _mod_jvp(self_t, other_t, self, other,
                                                              "trunc"),
             batched_jvp=POINTWISE)
REMAINDER_S = defop("remainder.Scalar(self, other)", _remainder_kernel, "RemainderBackward0",
                    promote=True, self=lambda grad: grad, jvp=ELEMENTWISE)
REMAINDER = defop("remainder.Tensor(self, other)", _remainder_kernel, "RemainderBackward1",
                  promote=True,
                  self=lambda grad: grad,
                  other=lambda grad, self, other:
                      -grad * F.div_Tensor_mode(self, other, "floor"),
                  jvp=lambda self_t, other_t, self, other: _mod_jvp(self_t, other_t, self,
                                                                   other, "floor"),
                  batched_jvp=POINTWISE)


def _atan2_kernel(a, b):
    _no_complex("atan2", a)
    return np.arctan2(a, b)


def _hypot_kernel(a, b):
    _floats_only("hypot", a)
    return np.hypot(a, b)


def _atan2_recip(self, other):
    # 1 / (y^2 + x^2), taken as 0 at the origin (PyTorch's choice there); the inf is
    # selected away, not avoided, so the double backward there is NaN as in PyTorch
    d = self * self + other * other
    return F.where(d == 0, 0.0, 1 / d)


def _atan2_jvp(self_t, other_t, self, other):
    # PyTorch's forward rule: no guard (0 / 0 at the origin); an input without a tangent
    # adds nothing (its zero times an infinite other input is no NaN)
    if F.absent(other_t):
        n = F.plus(self_t * other, F.absent_term(self))
    elif F.absent(self_t):
        n = F.plus(-(other_t * self), F.absent_term(other))
    else:
        n = self_t * other - other_t * self
    return n / (self * self + other * other)


def _hypot_jvp(self_t, other_t, self, other, result):
    if F.absent(other_t):
        return self * self_t / result
    if F.absent(self_t):
        return other * other_t / result
    return (self * self_t + other * other_t) / result


ATAN2 = defop("atan2(self, other)", _atan2_kernel, "Atan2Backward0", promote="float",
              self=lambda grad, self, other: grad * other * _atan2_recip(self, other),
              other=lambda grad, self, other: grad * -self * _atan2_recip(self, other),
              jvp=_atan2_jvp, batched_jvp=POINTWISE)
HYPOT = defop("hypot(self, other)", _hypot_kernel, "HypotBackward0", promote=True,
              self=lambda grad, self, result: grad * self / result,
              other=lambda grad, other, result: grad * other / result,
              jvp=_hypot_jvp, batched_jvp=POINTWISE)


@half_in_float32
def _lerp_kernel(a, end, weight):
    if a.dtype.kind not in "fcV":
        raise NotImplementedError(f'"lerp_kernel_scalar" not implemented for \'{_tname(a)}\'')
    # PyTorch's two-sided form: exact at weight 0 and at weight 1
    diff = end - a
    small = np.abs(weight) < 0.5
    if np.ndim(small) == 0 and not isinstance(small, np.ndarray):
        return a + weight * diff if small else end - diff * (1 - weight)
    return np.where(small, a + weight * diff, end - diff * (1 - weight))


LERP_S = defop("lerp.Scalar(self, end, *, weight)", _lerp_kernel, "LerpBackward0",
               self=lambda grad, weight: grad * F.conj(1 - weight),
               end=lambda grad, weight: grad * F.conj(weight),
               jvp=LINEAR, batched_jvp=POINTWISE)
LERP = defop("lerp.Tensor(self, end, weight)", _lerp_kernel, "LerpBackward1",
             self=lambda grad, weight: grad * F.conj(1 - weight),
             end=lambda grad, weight: grad * F.conj(weight),
             weight=lambda grad, self, end: grad * F.conj(end - self),
             jvp=lambda self_t, end_t, weight_t, self, end, weight:
                 self_t * (1 - weight) + end_t * weight + weight_t * (end - self),
             batched_jvp=POINTWISE)


def _addcdiv_check(t1, t2):
    if t1.dtype.kind in "iub" and t2.dtype.kind in "iub":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. Use "
            "addcmul(input, tensor1, 1 / tensor2, value=value) (or convert to float) instead.")


@half_in_float32
def _addcdiv_kernel(a, t1, t2, value):
    _addcdiv_check(t1, t2)
    return a + value * (t1 / t2)


@half_in_float32
def _addcmul_kernel(a, t1, t2, value):
    no_bool("addcmul_cpu_out", a)
    return a + value * (t1 * t2)


ADDCMUL = defop("addcmul(self, tensor1, tensor2, *, value)",
                _addcmul_kernel, "AddcmulBackward0", promote=True,
                self=lambda grad: grad,
                tensor1=lambda grad, tensor2, value: grad * F.conj(tensor2 * value),
                tensor2=lambda grad, tensor1, value: grad * F.conj(tensor1 * value),
                jvp=lambda self_t, tensor1_t, tensor2_t, tensor1, tensor2, value:
                    self_t + value * (tensor1_t * tensor2 + tensor1 * tensor2_t),
                batched_jvp=POINTWISE)
ADDCDIV = defop("addcdiv(self, tensor1, tensor2, *, value)", _addcdiv_kernel, "AddcdivBackward0",
                promote=True,
                self=lambda grad: grad,
                tensor1=lambda grad, tensor2, value: grad * F.conj(value / tensor2),
                tensor2=lambda grad, tensor1, tensor2, value:
                    -grad * F.conj(value * tensor1 / (tensor2 * tensor2)),
                jvp=lambda self_t, tensor1_t, tensor2_t, tensor1, tensor2, value:
                    self_t + value * (tensor1_t / tensor2
                                      - tensor1 * tensor2_t / (tensor2 * tensor2)),
                batched_jvp=POINTWISE)


# ------------------------------------------------------------ clamp
@half_in_float32
def _clamp_kernel(a, min, max):  # noqa: A002
    if a.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if isinstance(min, np.ndarray) and isinstance(max, np.ndarray):
        no_bool("clamp_cpu", a)
    # (operands swapped: at a tie of 0.0 and -0.0 NumPy returns the second, PyTorch keeps
    # the input: relu(-0.0) and clamp(-0.0, min=0) are -0.0)
    if min is None:
        return np.minimum(max, a)
    if max is None:
        return np.maximum(min, a)
    return np.minimum(max, np.maximum(min, a))


def _clamp_self_mask(self, min, max):  # noqa: A002
    """Where ``self`` lies within the bounds (number bounds compared in a bfloat16 ``self``'s
    own dtype, as PyTorch compares them)."""
    min, max = number_like(min, self), number_like(max, self)  # noqa: A001
    if min is None:
        return self <= max
    if max is None:
        return self >= min
    return (self >= min) & (self <= max)


def _clamp_min_vjp(grad, self, min, max):  # noqa: A002
    mask = self < min if max is None else (self < min) & (min < max)
    return F.where(mask, grad, 0.0)


def _clamp_max_vjp(grad, self, min, max):  # noqa: A002
    mask = self > max if min is None else (self > max) | (min > max)
    return F.where(mask, grad, 0.0)


def _clamp_jvp(self_t, min_t, max_t, self, min, max):  # noqa: A002
    # PyTorch's forward rule (it differs from the VJP at ties, and with one bound at NaN:
    # the bound's tangent is taken unless self is strictly inside)
    if max is None:
        return F.where(self > min, self_t, min_t)
    if min is None:
        return F.where(self < max, self_t, max_t)
    r = self_t
    if max is not None:
        r = F.where(self > max, max_t, r)
    if min is not None:
        r = F.where(self < min, min_t, r)
        if max is not None:
            r = F.where(min > max, max_t, r)
    return r


def _clamp_self_vjp(grad, self, min, max):  # noqa: A002
    return F.where(_clamp_self_mask(self, min, max), grad, 0.0)


CLAMP = defop("clamp(self, *, min, max)", _clamp_kernel, "ClampBackward1",
              self=_clamp_self_vjp, jvp=ELEMENTWISE)
CLAMP_T = defop("clamp.Tensor(self, min, max)", _clamp_kernel, "ClampBackward0", promote=True,
                self=_clamp_self_vjp, min=_clamp_min_vjp, max=_clamp_max_vjp, jvp=_clamp_jvp,
                batched_jvp=POINTWISE)
CLAMP_MIN = defop("clamp_min(self, *, min)", lambda a, min: _clamp_kernel(a, min, None),
                  "ClampMinBackward0",
                  self=lambda grad, self, min: _clamp_self_vjp(grad, self, min, None),
                  jvp=ELEMENTWISE)
CLAMP_MIN_T = defop("clamp_min.Tensor(self, min)", lambda a, min: _clamp_kernel(a, min, None),
                    "ClampMinBackward1", promote=True,
                    self=lambda grad, self, min: F.where(self >= min, grad, 0.0),
                    min=lambda grad, self, min: F.where(self < min, grad, 0.0),
                    jvp=lambda self_t, min_t, self, min: F.where(self >= min, self_t, min_t),
                    batched_jvp=POINTWISE)
CLAMP_MAX = defop("clamp_max(self, *, max)", lambda a, max: _clamp_kernel(a, None, max),
                  "ClampMaxBackward0",
                  self=lambda grad, self, max: _clamp_self_vjp(grad, self, None, max),
                  jvp=ELEMENTWISE)
CLAMP_MAX_T = defop("clamp_max.Tensor(self, max)", lambda a, max: _clamp_kernel(a, None, max),
                    "ClampMaxBackward1", promote=True,
                    self=lambda grad, self, max: F.where(self <= max, grad, 0.0),
                    max=lambda grad, self, max: F.where(self > max, grad, 0.0),
                    jvp=lambda self_t, max_t, self, max: F.where(self <= max, self_t, max_t),
                    batched_jvp=POINTWISE)


# ============================================================ public functions
def _binary_tensors(name, op, inplace=True):
    def fn(input, other, *, out=None):
        _need_tensor(name, input, 1, "input")
        _need_tensor(name, other, 2, "other")
        return _out(binary(op, input, other), out)

    def fn_(self, other):
        _need_tensor(name + "_", other, 1, "other")
        return dispatch_inplace(op, self, other)
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Elementwise ``{name}(input, other)`` (backward node {op.node_name})."
    export(name)(fn)
    if inplace:
        export(name + "_")(fn_)
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
from ..._core.opmath import BFLOAT16 as _BF16  # noqa: E402
from ..._core import dtypes as _dtype
@half_in_float32
def _logaddexp_kernel(a, b):
    if a.dtype.kind in "iub" or b.dtype.kind in "iub":
        raise NotImplementedError(f'"logaddexp_cpu" not implemented for \'{_tname(a)}\'')
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return np.logaddexp(a, b)
    # complex: the larger real part first, log1p of the rest
    a, b = np.broadcast_arrays(a, b)
    big = np.where(a.real >= b.real, a, b)
    small = np.where(a.real >= b.real, b, a)
    with np.errstate(all="ignore"):
        r = big + np.log1p(np.exp(small - big))
    return np.where(np.isinf(big.real) & (a == b), a, r)


def _logaddexp_weight(x, y):
    """d logaddexp(x, y) / dx = 1 / (1 + exp(y - x)) (PyTorch's rule, NaN at inf - inf)."""
    return 1 / (1 + F.exp(y - x))


LOGADDEXP = defop("logaddexp(self, other)", _logaddexp_kernel, "LogaddexpBackward0",
                  promote=True,
                  self=lambda grad, self, other: grad * F.conj(_logaddexp_weight(self, other)),
                  other=lambda grad, self, other: grad * F.conj(_logaddexp_weight(other, self)),
                  jvp=lambda self_t, other_t, self, other:
                      self_t * _logaddexp_weight(self, other) +
                      other_t * _logaddexp_weight(other, self), batched_jvp=POINTWISE)
logaddexp = _binary_tensors("logaddexp", LOGADDEXP, inplace=False)


def _xlogy_kernel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise NotImplementedError(f'"xlogy_cpu" not implemented for \'{_tname(a)}\'')
    with np.errstate(all="ignore"):
        if a.dtype.itemsize == 2 and a.dtype.kind == "f" or a.dtype == _BF16:
            # half precision: PyTorch rounds log(y) to the half type, multiplies in
            # float32 and rounds again
            hl = np.log(b.astype(np.float32)).astype(a.dtype).astype(np.float32)
            r = (a.astype(np.float32) * hl).astype(a.dtype)
        else:
            r = np.asarray(a * np.log(b))
    # PyTorch: 0 where x == 0, unless y is NaN
    return np.where((a == 0) & ~np.isnan(b), np.zeros((), r.dtype), r)


def _xlogy_self_grad(grad, self, other):
    """xlogy(grad, other), 0 where self == 0 and other <= 0 (PyTorch's rule)."""
    return F.where((self == 0) & (other <= 0), 0.0, _xlogy_poly(grad, other))


def _xlogy_self_rule(grad, self, other):
    return _xlogy_self_grad(grad, self, other)


def _xlogy_other_rule(grad, self, other):
    return grad * self / other


# one entry per PyTorch overload (its node names): both tensors, a number as self, a
# number as other (the number sits in the tensor slot and gets no edge)
XLOGY = defop("xlogy.Tensor(self, other)", _xlogy_kernel, "XlogyBackward0", promote="float",
              self=_xlogy_self_rule, other=_xlogy_other_rule,
              jvp=lambda self_t, other_t, self, other:
                  _xlogy_self_grad(self_t, self, other) + other_t * self / other,
              batched_jvp=POINTWISE)
XLOGY_SCALAR_SELF = defop("xlogy.Scalar_Self(self, other)", _xlogy_kernel, "XlogyBackward1",
                          promote="float", other=_xlogy_other_rule,
                          jvp=lambda other_t, self, other: other_t * self / other,
                          batched_jvp=POINTWISE)
XLOGY_SCALAR_OTHER = defop("xlogy.Scalar_Other(self, other)", _xlogy_kernel, "XlogyBackward2",
                           promote="float", self=_xlogy_self_rule,
                           jvp=lambda self_t, self, other: _xlogy_self_grad(self_t, self, other),
                           batched_jvp=POINTWISE)

_xlogy_poly = F.make_poly(XLOGY)   # xlogy on ndarrays (the kernel) or Tensors (recorded)


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
