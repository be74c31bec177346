"""Statistics family, composites of table ops (as PyTorch's are, so their graphs carry
PyTorch's node names): nanmean, quantile / nanquantile, diff, cov, corrcoef, trapezoid /
trapz, cumulative_trapezoid.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..registry import export
from .reductions import _check_tensor, _one_dim, _out
from .stats import nansum
from .copies import cat
from .pointwise_unary import complex as _complex
from ..dispatch import dispatch
from ..._core.dtypes import get_default_dtype as _get_default_dtype
from ..derivatives.special import MUL_SCALAR
from ..derivatives.stats import DIV_SCALAR


def _dtype_name(x):
    return str(x.dtype).split(".")[-1].capitalize()


def _is_float(t):
    return t._data.dtype.kind == "f" or str(t.dtype).endswith("bfloat16")


# ------------------------------------------------------------------ nanmean
@export()
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements, of all or over ``dim`` (int or tuple)."""
    _check_tensor("nanmean", input)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype}")
    count = input.isnan().logical_not().sum(dim, keepdim) if dim is not None else \
        input.isnan().logical_not().sum()
    if dim is None and keepdim:
        count = count.reshape((1,) * input._data.ndim)
    return _out(nansum(input, dim, keepdim, dtype=dtype) / count, out)


# ------------------------------------------------------------------ quantile / nanquantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    _check_tensor(name, input)
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype (got "
                           f"{input.dtype})")
    if isinstance(q, Tensor):
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor (got "
                               f"q {q.dtype}, input {input.dtype})")
        qt = q
    elif isinstance(q, numbers.Real) and not isinstance(q, bool):
        qt = Tensor._wrap(np.asarray(q, dtype=input._data.dtype))
    else:
        raise TypeError(f"{name}(): argument 'q' must be Tensor or float, not "
                        f"{type(q).__name__}")
    if qt._data.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor (got a "
                           f"{qt._data.ndim}-d tensor)")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    nd = input._data.ndim
    d = None if dim is None else _one_dim(name, dim, nd)
    if input._data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    qa = qt._data
    if qa.size and (np.isnan(qa).any() or qa.min() < 0 or qa.max() > 1):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")

    # output shape (PyTorch's quantile_output_shape), q's dim first when q is 1-d
    if d is not None and nd > 0:
        out_shape = list(input._data.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    elif keepdim:
        out_shape = [1] * nd
    else:
        out_shape = []
    out_shape = [qa.size] + out_shape

    if d is None or nd == 0:
        srt = input.flatten().sort()[0]
    elif d == nd - 1:
        srt = input.sort()[0]
    else:
        srt = input.unsqueeze(-1).transpose(d, -1).sort()[0]
    n = srt.shape[-1]
    srt = srt.view(out_shape[1:] + [n])

    nan = srt.detach().isnan()
    if ignore_nan:
        ranks = qt * (nan.logical_not().sum(-1, True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last = n - 1
        ranks = (qt * last).masked_fill(nan.any(-1, True), last)
    ranks = ranks.detach()
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.long()
    values = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks.new_full(ranks.shape, 0.5) if interpolation == "midpoint" \
            else ranks - below
        above = srt.gather(-1, ranks.ceil().long())
        values.lerp_(above, weights)
    if qt._data.ndim == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


@export()
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles (float or 1-d tensor in [0, 1]) of all elements or along
    ``dim``, interpolating between data points as ``interpolation`` says; NaN rows give
    NaN."""
    return _out(_quantile("quantile", input, q, dim, keepdim, interpolation, False), out)


@export()
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile ignoring NaNs (a row of NaNs only gives NaN)."""
    return _out(_quantile("nanquantile", input, q, dim, keepdim, interpolation, True), out)


# ------------------------------------------------------------------ diff
def _diff_edge(name, t, input, d):
    if t is None:
        return None
    if not isinstance(t, Tensor):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if t._data.ndim != input._data.ndim:
        raise RuntimeError(f"diff expects prepend or append to be the same dimension as input "
                           f"(input {input._data.ndim}-d, {name} {t._data.ndim}-d)")
    for i, (a, b) in enumerate(zip(t._data.shape, input._data.shape)):
        if i != d and a != b:
            raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match "
                               f"that of input except along the differencing dimension; input."
                               f"size({i}) = {b}, but got tensor.size({i}) = {a}")
    return t


@export()
def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim`` (after concatenating ``prepend`` and
    ``append``); logical xor for bool tensors."""
    _check_tensor("diff", input)
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"diff(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _one_dim("diff", dim, input._data.ndim)
    pre = _diff_edge("prepend", prepend, input, d)
    app = _diff_edge("append", append, input, d)
    x = input
    if pre is not None or app is not None:
        x = cat([t for t in (pre, input, app) if t is not None], d)
    if n == 0:
        return _out(x.new_zeros(x.shape).copy_(x), out)
    size = x.shape[d]
    out_len = size - 1
    is_bool = x._data.dtype == np.bool_
    for _ in range(min(int(n), size)):
        hi, lo = x.narrow(d, 1, out_len), x.narrow(d, 0, out_len)
        x = hi.logical_xor(lo) if is_bool else hi - lo
        out_len -= 1
    return _out(x, out)


# ------------------------------------------------------------------ cov / corrcoef
@export()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), with ``correction`` and optional integer frequency / float observation
    weights."""
    _check_tensor("cov", input)
    if input._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input._data.ndim} dimensions")
    if input._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input._data.ndim < 2 else input
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        fw = fweights
        if fw._data.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but "
                               f"got fweights with {fw._data.ndim} dimensions")
        if fw._data.dtype.kind not in "iu":
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got "
                               f"fweights with {fw.dtype} dtype")
        if fw._data.size != nobs:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fw._data.size} != {nobs}")
        if nobs and fw._data.min() < 0:
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fw
    if aweights is not None:
        aw = aweights
        if aw._data.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but "
                               f"got aweights with {aw._data.ndim} dimensions")
        if not aw.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {aw.dtype} dtype")
        if aw._data.size != nobs:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aw._data.size} != {nobs}")
        if nobs and aw._data.min() < 0:
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aw if w is None else w * aw
    if w is not None:
        w_sum = w.sum()
        if not w_sum._data.item() != 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    else:
        w_sum = Tensor._wrap(np.asarray(nobs, np.int64))
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and correction != 0 and aweights is not None:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if norm_factor._data.item() <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t().conj())
    return c.true_divide(norm_factor).squeeze()


@export()
def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``,
    clipped to [-1, 1]."""
    _check_tensor("corrcoef", input)
    if input._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    dg = c.diagonal()
    std = (dg.real if dg.is_complex() else dg).sqrt()
    c = c / std.view(-1, 1)
    c = c / std.view(1, -1)
    if c.is_complex():
        return _complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# ------------------------------------------------------------------ trapezoid family
def _zeros_except(y, d):
    shape = list(y.shape)
    del shape[d]
    return y.new_zeros(shape)


def _check_y(name, y, dim):
    _check_tensor(name, y)
    if y._data.dtype == np.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if y._data.ndim == 0:
        raise IndexError(f"{name}(): Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(int(dim), y._data.ndim)


def _dx_tensor(name, y, x, d):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'x' must be Tensor, not {type(x).__name__} (give a "
                        f"constant spacing as dx=)")
    if x._data.dtype == np.bool_:
        raise RuntimeError(f"{name}: received a bool input for `x`, but bool is not supported")
    if x._data.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point "
                               f"(x has {x.shape[0]}, y has {y.shape[d]} along dim {d})")
        sizes = [1] * y._data.ndim
        sizes[d] = x.shape[0]
        xv = x.view(sizes)
    elif x._data.ndim < y._data.ndim:
        xv = x.view([1] * (y._data.ndim - x._data.ndim) + list(x.shape))
    else:
        xv = x
    m = xv.shape[d]
    return xv.narrow(d, 1, m - 1) - xv.narrow(d, 0, m - 1)


def _dx_number(name, dx):
    if isinstance(dx, (bool, complex)) or (isinstance(dx, Tensor)) or \
            not isinstance(dx, numbers.Real):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number (got "
                           f"{type(dx).__name__}).")
    return float(dx)


def _mul_s(t, s):
    """PyTorch's C++ ``t * s`` (mul.Scalar, MulBackward1): an integer tensor in the default
    float dtype."""
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        t = t.to(_get_default_dtype())
    return dispatch(MUL_SCALAR, t, s)


def _div_s(t, s):
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        t = t.to(_get_default_dtype())
    return dispatch(DIV_SCALAR, t, s)


def _pair_sum(y, d):
    m = y.shape[d]
    return y.narrow(d, 0, m - 1) + y.narrow(d, 1, m - 1)


@export(method=False)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``: samples ``y`` at points ``x`` (a tensor) or spaced
    ``dx`` apart (default 1)."""
    d = _check_y("trapezoid", y, dim)
    if x is not None and dx is not None:
        raise TypeError("trapezoid(): pass either x (sample points) or dx (a spacing), not "
                        "both")
    if x is not None:
        if y.shape[d] == 0:
            return _zeros_except(y, d)
        spacing = _dx_tensor("trapezoid", y, x, d)
        return _div_s((spacing * _pair_sum(y, d)).sum(d), 2.0)
    h = _dx_number("trapezoid", 1 if dx is None else dx)
    if y.shape[d] == 0:
        return _zeros_except(y, d)
    return _mul_s(y.sum(d) - _mul_s(y.select(d, 0) + y.select(d, -1), 0.5), h)


@export(method=False)
def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


@export(method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along ``dim`` (one fewer element than ``y``)."""
    d = _check_y("cumulative_trapezoid", y, dim)
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid(): pass either x (sample points) or dx (a "
                        "spacing), not both")
    if x is not None:
        if y.shape[d] == 0:
            return y.clone()
        spacing = _dx_tensor("cumulative_trapezoid", y, x, d)
        return _div_s((spacing * _pair_sum(y, d)).cumsum(d), 2.0)
    h = _dx_number("cumulative_trapezoid", 1 if dx is None else dx)
    if y.shape[d] == 0:
        return y.clone()
    return _mul_s(_pair_sum(y, d), h / 2.0).cumsum(d)

