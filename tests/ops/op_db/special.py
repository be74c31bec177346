"""OpInfos of graphgrad.special (torch.special): its own ops (entr, xlog1py, sinc, ndtr,
log_ndtr, ndtri, multigammaln; graphgrad.sinc / mvlgamma and their Tensor methods) and the
aliases of graphgrad's ops (their node names, as PyTorch's, are checked through them)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, OpInfo, Sample, positive, randn


def _sp(name, samples, **kw):
    return OpInfo("special." + name, samples, **kw)


def _unary(domain):
    def samples(rng):
        return [Sample((A(domain(rng, 3, 4)),)), Sample((A(domain(rng)),), name="0-d"),
                Sample((A(domain(rng, 1, 5)),), name="size-1 dim")]
    return samples


def _normal(rng, *shape):
    return randn(rng, *shape) * 2


def _nonzero(rng, *shape):
    x = randn(rng, *shape) * 2
    return np.where(np.abs(x) < 0.1, 0.3, x)


def _prob(rng, *shape):
    return rng.uniform(0.002, 0.998, shape)


def _unit(rng, *shape):
    return rng.uniform(-0.9, 0.9, shape)


def _xlog1py_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), A(positive(rng, 3, 4) - 0.4))),
            Sample((A(randn(rng, 3, 1)), A(positive(rng, 4) - 0.4)), name="broadcast"),
            Sample((2.5, A(positive(rng, 3, 4) - 0.4)), name="number self"),
            Sample((A(randn(rng, 3, 4)), 0.7), name="number other")]


def _softmax_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), 1)), Sample((A(randn(rng, 3, 4)), 0)),
            Sample((A(randn(rng, 3, 4)), -1), {"dtype": "float64"}, name="dtype")]


def _dtype_fn(fname):
    def fn(lib, x, dim, dtype=None):
        return getattr(lib.special, fname)(x, dim, dtype=None if dtype is None
                                           else getattr(lib, dtype))
    return fn


OPS = [
    # graphgrad.special's own ops
    _sp("entr", _unary(positive)),
    _sp("xlog1py", _xlog1py_samples),
    _sp("sinc", _unary(_nonzero), complex=True),
    OpInfo("sinc", _unary(_nonzero), complex=True, aliases=("Tensor.sinc",), inplace="sinc_"),
    _sp("ndtr", _unary(_normal)),
    _sp("log_ndtr", lambda rng: _unary(_normal)(rng) + [
        Sample((A(np.array([-30.0, -8.0, -1.5, -1.0, -0.2, 3.0, 9.0])),), name="tails")]),
    _sp("ndtri", lambda rng: _unary(_prob)(rng) + [
        Sample((A(np.array([0.01, 0.1, 0.26, 0.5, 0.74, 0.9, 0.99])),),
               name="tails and center")]),
    _sp("multigammaln", lambda rng: [
        Sample((A(positive(rng, 3, 4) + 1.5), 3)), Sample((A(positive(rng, 4) + 0.5), 1),
                                                          name="p=1"),
        Sample((A(positive(rng, 2, 3) + 2.0),), {"p": 4}, name="p=4")]),
    OpInfo("mvlgamma", lambda rng: [Sample((A(positive(rng, 3, 4) + 1.5), 2))],
           aliases=("Tensor.mvlgamma",)),
    # aliases of graphgrad's ops
    _sp("erf", _unary(_normal)), _sp("erfc", _unary(_normal)), _sp("erfinv", _unary(_unit)),
    _sp("expit", _unary(_normal)), _sp("exp2", _unary(_normal)), _sp("expm1", _unary(_normal)),
    _sp("log1p", _unary(positive)), _sp("digamma", _unary(positive)),
    _sp("psi", _unary(positive)), _sp("gammaln", _unary(positive)),
    _sp("logit", lambda rng: [Sample((A(_prob(rng, 3, 4)),)),
                              Sample((A(_prob(rng, 3, 4)), 0.01), name="eps")]),
    _sp("xlogy", lambda rng: [Sample((A(randn(rng, 3, 4)), A(positive(rng, 3, 4)))),
                              Sample((1.5, A(positive(rng, 3, 4))), name="number self")]),
    _sp("round", lambda rng: [Sample((A(randn(rng, 3, 4) * 5),)),
                              Sample((A(randn(rng, 3, 4) * 5),), {"decimals": 1},
                                     name="decimals")], skips={
        "fd": "piecewise constant: the finite differences jump where a value crosses a "
              "rounding boundary"}),
    _sp("polygamma", lambda rng: [Sample((1, A(positive(rng, 3, 4)))),
                                  Sample((2, A(positive(rng, 3, 4))), name="n=2")]),
    _sp("logsumexp", lambda rng: [Sample((A(randn(rng, 3, 4)), 1)),
                                  Sample((A(randn(rng, 3, 4)), 0, True), name="keepdim")]),
    _sp("softmax", _softmax_samples, fn=_dtype_fn("softmax")),
    _sp("log_softmax", _softmax_samples, fn=_dtype_fn("log_softmax")),
]

