"""Public functions of graphgrad.special's own ops (namespace: graphgrad/special): entr,
xlog1py, sinc (also graphgrad.sinc / Tensor.sinc), ndtr, log_ndtr, ndtri, multigammaln (also
graphgrad.mvlgamma / Tensor.mvlgamma), with PyTorch's argument checks and refused dtypes."""
from __future__ import annotations

import math

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..registry import export
from .pointwise import _as_operand, _check_tensor, _need_tensor, _out
from ..derivatives.pointwise_unary import ERFC, ROUND_DECIMALS
from ..derivatives.special import (MUL_SCALAR, MVLGAMMA, SINC, SPECIAL_ENTR, SPECIAL_LOG_NDTR,
                                   SPECIAL_NDTRI, SPECIAL_XLOG1PY, SPECIAL_XLOG1PY_SCALAR_OTHER,
                                   SPECIAL_XLOG1PY_SCALAR_SELF)

_M_SQRT1_2 = math.sqrt(0.5)


def _refuse(kernel, x, complex_=True, half=False):
    """PyTorch's NotImplementedError for the dtypes its kernel lacks."""
    bad = (complex_ and x._data.dtype.kind == "c") or \
        (half and (x.dtype is _dtype.float16 or x.dtype is _dtype.bfloat16))
    if bad:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.scalar_type_name(x.dtype)}'")


# ====================================================================== entr / sinc
def entr(input, *, out=None):
    """``special.entr(input)``: -x log x for x > 0, 0 at 0, -inf below (SpecialEntrBackward0)."""
    _check_tensor("special_entr", input)
    _refuse("entr_cpu", input)
    return _out(dispatch(SPECIAL_ENTR, input), out)


@export()
def sinc(input, *, out=None):
    """``sinc(input)``: sin(pi x) / (pi x), 1 at 0 (SincBackward0)."""
    _check_tensor("sinc", input)
    return _out(dispatch(SINC, input), out)


@export(function=False)
def sinc_(self):
    return dispatch_inplace(SINC, self)


# ====================================================================== xlog1py
def xlog1py(input, other, *, out=None):
    """``special.xlog1py(input, other)``: input * log1p(other), 0 where input is 0 (unless
    other is NaN); either may be a number (SpecialXlog1PyBackward0/1/2)."""
    name = "special_xlog1py"
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        op, a, b = SPECIAL_XLOG1PY, input, other
    elif isinstance(other, Tensor):
        op, a, b = SPECIAL_XLOG1PY_SCALAR_SELF, _as_operand(name, input), other
    else:
        _need_tensor(name, input, 1, "self")
        op, a, b = SPECIAL_XLOG1PY_SCALAR_OTHER, input, _as_operand(name, other)
    for t in (a, b):
        if isinstance(t, Tensor):
            _refuse("xlog1py_cpu", t)
    return _out(dispatch(op, a, b), out)


# ====================================================================== ndtr / log_ndtr / ndtri
def ndtr(input, *, out=None):
    """``special.ndtr(input)``: the standard normal CDF, computed as erfc(-x / sqrt 2) / 2
    (accurate in the left tail, where PyTorch's (1 + erf(x / sqrt 2)) / 2 cancels; the
    output node is MulBackward1, as PyTorch's)."""
    _check_tensor("special_ndtr", input)
    _refuse("erf_vml_cpu", input)
    x = input
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_dtype.get_default_dtype())
    return _out(dispatch(MUL_SCALAR, dispatch(ERFC, dispatch(MUL_SCALAR, x, -_M_SQRT1_2)),
                         0.5), out)


def log_ndtr(input, *, out=None):
    """``special.log_ndtr(input)``: log of the standard normal CDF, accurate in both tails
    (SpecialLogNdtrBackward0)."""
    _check_tensor("special_log_ndtr", input)
    _refuse("log_ndtr_cpu", input, half=True)
    return _out(dispatch(SPECIAL_LOG_NDTR, input), out)


def ndtri(input, *, out=None):
    """``special.ndtri(input)``: the inverse of the standard normal CDF (SpecialNdtriBackward0)."""
    _check_tensor("special_ndtri", input)
    _refuse("ndtri_cpu", input, half=True)
    return _out(dispatch(SPECIAL_NDTRI, input), out)


# ====================================================================== mvlgamma
def _mvlgamma_p(p, name):
    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"{name}(): argument 'p' must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return p


def _mvlgamma_check(name, input):
    if input._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor. (mvlgamma needs "
                           "a float or integer input)")
    _refuse("mvlgamma", input)


@export()
def mvlgamma(input, p, *, out=None):
    """``mvlgamma(input, p)``: the log of the multivariate gamma function of dimension p,
    sum_j lgamma(x - j / 2) + p (p - 1) / 4 log(pi) (MvlgammaBackward0)."""
    _check_tensor("mvlgamma", input)
    _mvlgamma_check("mvlgamma", input)
    return _out(dispatch(MVLGAMMA, input, _mvlgamma_p(p, "mvlgamma")), out)


@export(function=False)
def mvlgamma_(self, p):
    _mvlgamma_check("mvlgamma_", self)
    return dispatch_inplace(MVLGAMMA, self, _mvlgamma_p(p, "mvlgamma_"))


def multigammaln(input, p, *, out=None):
    """``special.multigammaln(input, p)``: ``mvlgamma``."""
    return mvlgamma(input, p, out=out)


# ====================================================================== round
def round(input, *, decimals=0, out=None):  # noqa: A001
    """``special.round(input, *, decimals=0)``: PyTorch's round.decimals overload, so
    RoundBackward1 even with decimals 0."""
    _check_tensor("special_round", input)
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError(f"special_round(): argument 'decimals' must be int, not "
                        f"{type(decimals).__name__}")
    return _out(dispatch(ROUND_DECIMALS, input, decimals), out)
