"""Random sampling ops: the in-place ``Tensor.uniform_/normal_/bernoulli_/exponential_/
random_/geometric_/log_normal_/cauchy_`` and ``bernoulli``, ``normal``, ``multinomial``.

Each takes ``generator=`` (default: ``graphgrad.default_generator``).  The in-place ones are
table entries run through ``dispatch_inplace``: PyTorch's checks (a leaf that requires grad
refuses), a version bump, and -- on a tensor with history -- PyTorch's node
(``UniformBackward0``, ...) whose gradient is zero, as the sample does not depend on the old
values.  The kernel's last argument is the draw (a function of the input array), so one
entry serves every distribution parameter and generator.
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.random import numpy_rng
from ..._tensor.tensor import Tensor
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..interpose import all_values
from ..registry import export
from .conversion import _write_out
from ..._tensor.creation import _check_device, _size, _dt, _drawn, floating_sampler
from ..derivatives.random_ops import (
    BERNOULLI, BERNOULLI_P, BERNOULLI_P_OUT, BERNOULLI_T, CAUCHY, EXPONENTIAL, GEOMETRIC,
    LOG_NORMAL, NORMAL_, NORMAL_FT, NORMAL_TF, NORMAL_TT, POISSON, RANDOM, RANDOM_FROM,
    RANDOM_TO, UNIFORM)


def _floating(self, fn, kernel=None):
    """The in-place samplers of real values refuse integer and bool tensors: PyTorch's
    NotImplementedError naming its CPU kernel, or its RuntimeError where it checks first
    (exponential_, cauchy_: ``kernel`` None)."""
    if self._data.dtype.kind not in "fcV" and self.dtype.category < 2:
        if kernel is not None:
            floating_sampler(kernel, self.dtype)
        raise RuntimeError(f"{fn} expects a floating point tensor, but got {self.dtype} "
                           f"(convert it first, e.g. t.float().{fn}(...))")


def _real_draw(self, sample):
    """A draw for ``self``'s shape: complex tensors get independent real and imaginary
    parts, each from ``sample``."""
    def draw(a):
        if a.dtype.kind == "c":
            return sample(a.shape) + 1j * sample(a.shape)
        return sample(a.shape)
    return draw


def _num(v, what, fn):
    if isinstance(v, Tensor):
        v = v.item()
    if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
        raise TypeError(f"{fn}(): argument '{what}' must be a number, not {type(v).__name__}")
    return float(v)


@export(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with samples uniform in ``[from_, to)``."""
    _floating(self, "uniform_", "check_uniform_bounds")
    lo, hi = _num(from_, "from", "uniform_"), _num(to, "to", "uniform_")
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={lo} "
                           f"> to={hi}")
    g = numpy_rng(generator)
    return dispatch_inplace(UNIFORM, self, _real_draw(self, lambda s: g.uniform(lo, hi, s)))


@export(function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples of N(mean, std**2)."""
    _floating(self, "normal_", "normal_kernel_cpu")
    m, s_ = _num(mean, "mean", "normal_"), _num(std, "std", "normal_")
    if s_ < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {s_}")
    g = numpy_rng(generator)
    if self._data.dtype.kind == "c":  # PyTorch: each part has variance std**2 / 2
        return dispatch_inplace(NORMAL_, self, lambda a: (
            m + s_ / np.sqrt(2) * (g.standard_normal(a.shape) +
                                   1j * g.standard_normal(a.shape))))
    return dispatch_inplace(NORMAL_, self, lambda a: g.normal(m, s_, a.shape))


def _check_p(p, fn):
    if not 0 <= p <= 1:
        raise RuntimeError(f"{fn} expects p to be in [0, 1], but got p={p}")


@export(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples, 1 with probability ``p`` (a number or a broadcastable tensor)."""
    g = numpy_rng(generator)
    if isinstance(p, Tensor):
        pd = all_values(p._data)   # (under vmap: every example's probabilities)
        if pd.size and (np.any(pd < 0) or np.any(pd > 1)):
            raise RuntimeError("bernoulli_ expects all elements of p to be in [0, 1]")
        return dispatch_inplace(BERNOULLI_T, self, p,
                                lambda a, q: g.random(a.shape) < np.broadcast_to(q, a.shape))
    p = _num(p, "p", "bernoulli_")
    _check_p(p, "bernoulli_")
    return dispatch_inplace(BERNOULLI_P, self, lambda a: g.random(a.shape) < p)


@export(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples of the exponential distribution of rate ``lambd``."""
    _floating(self, "exponential_")
    lam = _num(lambd, "lambd", "exponential_")
    if not lam > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lam}")
    g = numpy_rng(generator)
    return dispatch_inplace(EXPONENTIAL, self, lambda a: g.exponential(1.0 / lam, a.shape))


def _random_bound(d):
    """PyTorch's upper end of ``random_()`` without bounds: 2**digits for floats (every
    integer there is exact), the dtype's max + 1 for integers."""
    if d is _dtype.bool:
        return 2
    if d.category < 2:
        return int(np.iinfo(d.np).max) + 1
    return {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 24}.get(d.name, 2 ** 53) + 1


@export(function=False)
def random_(self, from_=None, to=None, *, generator=None):
    """``random_()``: integers in [0, 2**mantissa]; ``random_(to)``: [0, to);
    ``random_(from_, to)``: [from_, to)."""
    g = numpy_rng(generator)
    if from_ is not None and to is None:
        lo, hi, op = 0, int(from_), RANDOM_TO
    elif from_ is None and to is None:
        lo, hi, op = 0, _random_bound(self.dtype), RANDOM
    else:
        lo, op = int(from_ or 0), RANDOM_FROM
        hi = _random_bound(self.dtype) if to is None else int(to)
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= "
                           f"to={hi}")
    return dispatch_inplace(op, self, lambda a: g.integers(lo, hi, a.shape, dtype=np.int64)
                            if hi <= 2 ** 63 else np.floor(g.uniform(lo, hi, a.shape)))


@export(function=False)
def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success (>= 1)."""
    p = _num(p, "p", "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    g = numpy_rng(generator)
    return dispatch_inplace(GEOMETRIC, self, lambda a: g.geometric(p, a.shape))


@export(function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp(N(mean, std**2)) samples."""
    _floating(self, "log_normal_", "log_normal_cpu")
    m, s_ = _num(mean, "mean", "log_normal_"), _num(std, "std", "log_normal_")
    if not s_ > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={s_}")
    g = numpy_rng(generator)
    return dispatch_inplace(LOG_NORMAL, self, lambda a: g.lognormal(m, s_, a.shape))


@export(function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples of the Cauchy distribution."""
    _floating(self, "cauchy_")
    m, s_ = _num(median, "median", "cauchy_"), _num(sigma, "sigma", "cauchy_")
    g = numpy_rng(generator)
    return dispatch_inplace(CAUCHY, self, lambda a: m + s_ * g.standard_cauchy(a.shape))


# ------------------------------------------------------------------ out of place
@export()
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with the probabilities in ``input`` (or ``p``), in input's dtype."""
    g = numpy_rng(generator)
    if p is None:   # (with p, input gives only the shape and dtype: any dtype)
        floating_sampler("bernoulli_tensor_cpu_p_", input.dtype)
    if p is not None:
        p = _num(p, "p", "bernoulli")
        _check_p(p, "bernoulli")
        return dispatch(BERNOULLI_P_OUT, input,
                        lambda a: (g.random(a.shape) < p).astype(a.dtype))
    d = all_values(input._data)   # (under vmap: every example's probabilities)
    if d.size and (np.any(d < 0) or np.any(d > 1) or np.any(np.isnan(d))):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(bernoulli: every probability in input must be in [0, 1])")
    r = dispatch(BERNOULLI, input, lambda a: (g.random(a.shape) < a).astype(a.dtype))
    if out is not None:
        return _write_out(r, out)
    return r


@export(method=False)
def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (its dtype; PoissonBackward0, whose
    gradient is zero)."""
    floating_sampler("poisson_cpu", input.dtype, complex_ok=False)
    g = numpy_rng(generator)
    d = all_values(input._data)   # (under vmap: every example's rates)
    if d.size and not (d >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return dispatch(POISSON, input,
                    lambda a: np.asarray(g.poisson(a.astype(np.float64))).astype(a.dtype))


@export(method=False)
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False):
    """Samples of N(mean, std**2): tensor mean and/or std (broadcast), or numbers with
    ``size``."""
    g = numpy_rng(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    for t in (mean, std):
        if isinstance(t, Tensor):
            floating_sampler("normal_kernel_cpu", t.dtype)
    if not (mt or st) and dtype is not None:
        floating_sampler("normal_kernel_cpu", _dtype.to_dtype(dtype))
    if mt and st:
        if std._data.size and np.any(all_values(std._data) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        r = dispatch(NORMAL_TT, mean, std, lambda m, s: (
            m + s * g.standard_normal(np.broadcast_shapes(m.shape, s.shape))).astype(
                np.result_type(m, s)))
    elif mt:
        s_ = _num(std, "std", "normal")
        if s_ < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {s_}")
        r = dispatch(NORMAL_TF, mean, lambda m: (m + s_ * g.standard_normal(m.shape)).astype(
            m.dtype))
    elif st:
        m_ = _num(mean, "mean", "normal")
        if std._data.size and np.any(all_values(std._data) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        r = dispatch(NORMAL_FT, std, lambda s: (m_ + s * g.standard_normal(s.shape)).astype(
            s.dtype))
    else:
        if size is None:
            raise TypeError("normal(): with a number mean and std, 'size' is required, e.g. "
                            "normal(0., 1., (3,))")
        _check_device(device)
        m_, s_ = _num(mean, "mean", "normal"), _num(std, "std", "normal")
        r = _drawn(lambda sh: g.normal(m_, s_, sh), _size((size,)), _dt(dtype), requires_grad)
    if out is not None:
        return _write_out(r, out)
    return r


@export()
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled with the (unnormalised) weights in each row of ``input`` (int64)."""
    g = numpy_rng(generator)   # (first: inside vmap, randomness="error" raises here)
    d = input._data
    if all_values(d) is not d:   # a batched input inside vmap: its ``d`` is example 0's
        raise RuntimeError(
            "vmap: multinomial of a batched tensor is not supported inside vmap (its sampler "
            "runs outside graphgrad's op table, so it would draw from example 0's weights). "
            "Call multinomial outside vmap on the whole batch of weights (its rows are "
            "sampled independently).")
    if d.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim (got a tensor of shape "
                           f"{list(d.shape)})")
    if d.dtype.kind not in "fV":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype}")
    rows = np.asarray(d, np.float64).reshape(-1, d.shape[-1])
    n = rows.shape[1]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           f"replacement (n_sample={num_samples}, {n} categories)")
    if np.any(rows < 0) or not np.all(np.isfinite(rows)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    res = np.empty((rows.shape[0], num_samples), np.int64)
    for i, w in enumerate(rows):
        tot = w.sum()
        if tot <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if replacement:
            res[i] = g.choice(n, num_samples, replace=True, p=w / tot)
        else:
            nz = np.count_nonzero(w)
            if num_samples > nz:
                raise RuntimeError("invalid multinomial distribution (with replacement=False, "
                                   "not enough non-negative category to sample)")
            res[i] = g.choice(n, num_samples, replace=False, p=w / tot)
    r = Tensor._wrap(res.reshape(d.shape[:-1] + (num_samples,)))
    if out is not None:
        return _write_out(r, out)
    return r
