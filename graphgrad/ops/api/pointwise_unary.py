"""Pointwise unary ops: math functions, rounding, special functions, complex parts.

Each entry follows PyTorch's derivatives.yaml, with the complex convention
``grad * conj(f'(z))`` for holomorphic functions (so ``jvp=ELEMENTWISE``
applies).  The non-holomorphic ones (``abs``, ``sgn``, ``angle``, ``imag``,
``conj``, ``polar``, ``complex``) state their JVP explicitly.  Rounding ops
are piecewise constant: their gradient is zero, as in PyTorch.
"""
from __future__ import annotations

from ..._tensor.tensor import Tensor
from ..dispatch import dispatch, unary
from ..inplace import check_inplace_numbers, dispatch_inplace
from ..derivatives.pointwise import POW
from .pointwise import _check_tensor, _make_unary, _need_tensor, _out
from ..registry import export
from ..._core import dtypes as _dtype
from ..._core.state import tls
from ..derivatives.pointwise_unary import (
    ABS, ACOS, ACOSH, ANGLE, ASIN, ASINH, ATAN, ATANH, CEIL, COMPLEX, CONJ, COSH, DIGAMMA, ERF,
    ERFC, ERFINV, EXP2, EXPM1, FLOOR, FRAC, IMAG, LGAMMA, LOG10, LOG1P, LOG2, LOGIT,
    NAN_TO_NUM, POLAR, POLYGAMMA, POLYGAMMA_, ROUND, ROUND_DECIMALS, RSQRT, SGN, SIGN, SINH,
    SQRT, TAN, TRUNC, _NO_GRAD_INPLACE)


# ============================================================ public functions
_SIMPLE = {"exp2": EXP2, "expm1": EXPM1, "log2": LOG2, "log10": LOG10, "log1p": LOG1P,
           "sqrt": SQRT, "rsqrt": RSQRT, "tan": TAN, "asin": ASIN, "acos": ACOS, "atan": ATAN,
           "sinh": SINH, "cosh": COSH, "asinh": ASINH, "acosh": ACOSH, "atanh": ATANH,
           "erf": ERF, "erfc": ERFC, "erfinv": ERFINV, "sign": SIGN, "sgn": SGN, "abs": ABS,
           "floor": FLOOR, "ceil": CEIL, "trunc": TRUNC, "frac": FRAC}
for _n, _op in _SIMPLE.items():
    globals()[_n] = _make_unary(_n, _op)


@export()
def angle(input, *, out=None):
    """The argument of each element (0 or pi for real inputs), as a real tensor."""
    _check_tensor("angle", input)
    return _out(unary(ANGLE, input), out)


for _n, _op in _NO_GRAD_INPLACE.items():
    export(_n + "_")(lambda self, _op=_op: dispatch_inplace(_op, self))

for _alias, _n in (("absolute", "abs"), ("arcsin", "asin"), ("arccos", "acos"),
                   ("arctan", "atan"), ("arcsinh", "asinh"), ("arccosh", "acosh"),
                   ("arctanh", "atanh"), ("fix", "trunc")):
    export(_alias)(globals()[_n])
    export(_alias + "_")(lambda self, _op=_NO_GRAD_INPLACE.get(_n, _SIMPLE[_n]):
                         dispatch_inplace(_op, self))


def _abs_(self):
    """``abs_``: refused on complex tensors, whose absolute value is real (as in PyTorch)."""
    if isinstance(self, Tensor) and self._data.dtype.kind == "c":
        raise RuntimeError("In-place abs is not supported for complex tensors. [abs_: use "
                           "x = x.abs(), which returns a real tensor]")
    return dispatch_inplace(ABS, self)


export("abs_")(_abs_)
export("absolute_")(_abs_)


@export()
def square(input, *, out=None):
    """``input * input``, recorded as ``pow(input, 2)`` (PowBackward0) as in PyTorch."""
    _check_tensor("square", input)
    if input._data.dtype.kind == "b":
        input = input.to(_dtype.int64)
    return _out(dispatch(POW, input, 2), out)


@export()
def square_(self):
    check_inplace_numbers("square_", self, 2)   # (a bool tensor's square is int64)
    return dispatch_inplace(POW, self, 2)


@export()
def round(input, *, decimals=0, out=None):  # noqa: A001
    """Round half to even; ``decimals`` may be negative (tens, hundreds ...)."""
    _check_tensor("round", input)
    if decimals == 0:
        return _out(unary(ROUND, input), out)
    return _out(dispatch(ROUND_DECIMALS, input, int(decimals)), out)


@export()
def round_(self, *, decimals=0):
    if decimals == 0:
        return dispatch_inplace(ROUND, self)
    return dispatch_inplace(ROUND_DECIMALS, self, int(decimals))


@export()
def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``; with ``eps`` the input is first clamped to ``[eps, 1 - eps]``."""
    _check_tensor("logit", input)
    return _out(dispatch(LOGIT, input, None if eps is None else float(eps)), out)


@export()
def logit_(self, eps=None):
    return dispatch_inplace(LOGIT, self, None if eps is None else float(eps))


def _nan_to_num_args(input, nan, posinf, neginf):
    _check_tensor("nan_to_num", input)
    if input._data.dtype.kind == "c" and input._requires_grad:
        if tls.grad_enabled:
            raise RuntimeError("nan_to_num does not support automatic differentiation for "
                               "outputs with complex dtype.")
    return (float(nan) if nan is not None else 0.0,
            None if posinf is None else float(posinf), None if neginf is None else float(neginf))


@export()
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN by ``nan`` and +-inf by ``posinf``/``neginf`` (default: the dtype's extremes)."""
    return _out(dispatch(NAN_TO_NUM, input, *_nan_to_num_args(input, nan, posinf, neginf)), out)


@export()
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return dispatch_inplace(NAN_TO_NUM, self, *_nan_to_num_args(self, nan, posinf, neginf))


@export(method=False)
def imag(input):
    """The imaginary part of a complex tensor, as a real view sharing its memory."""
    _check_tensor("imag", input)
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return unary(IMAG, input)


@export()
def conj(input):
    """The complex conjugate.  graphgrad copies (PyTorch returns a lazy conjugate view);
    real tensors are returned as they are, as in PyTorch."""
    _check_tensor("conj", input)
    if input._data.dtype.kind != "c":
        return input
    return unary(CONJ, input)


@export()
def resolve_conj(input):
    return input  # graphgrad's conj() is never lazy


@export()
def resolve_neg(input):
    return input


@export()
def is_conj(input):
    return False


@export()
def is_neg(input):
    return False


@export(method=False)
def polar(abs, angle, *, out=None):  # noqa: A002
    """``abs * (cos(angle) + i sin(angle))`` as a complex tensor."""
    _need_tensor("polar", abs, 1, "abs")
    _need_tensor("polar", angle, 2, "angle")
    return _out(dispatch(POLAR, abs, angle), out)


@export(method=False)
def complex(real, imag, *, out=None):  # noqa: A001
    """``real + i imag`` from two real tensors of the same dtype."""
    _need_tensor("complex", real, 1, "real")
    _need_tensor("complex", imag, 2, "imag")
    return _out(dispatch(COMPLEX, real, imag), out)


OPERATORS = {"__abs__": lambda self: unary(ABS, self)}


# ============================================================ lgamma / digamma / polygamma
lgamma = _make_unary("lgamma", LGAMMA)
digamma = _make_unary("digamma", DIGAMMA)


def _polygamma_n(n, fn):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{fn}(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got n={n})")
    return n


@export(method=False)
def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma (``polygamma(0, x)`` is ``digamma(x)``)."""
    _check_tensor("polygamma", input)
    return _out(dispatch(POLYGAMMA, input, _polygamma_n(n, "polygamma")), out)


export("polygamma", function=False)(
    lambda self, n: dispatch(POLYGAMMA, self, _polygamma_n(n, "polygamma")))
export("polygamma_", function=False)(
    lambda self, n: dispatch_inplace(POLYGAMMA_, self, _polygamma_n(n, "polygamma_")))
