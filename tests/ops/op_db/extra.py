"""OpInfos of ops added for issue 16 §4 (names autograd code uses): logaddexp, xlogy (and its
number overloads), lgamma, digamma, polygamma, var_mean / std_mean and cdist."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, OpInfo, Sample, randn


def _uniform(rng, lo, hi, *shape):
    return rng.uniform(lo, hi, shape)


def _pair_samples(rng, g1, g2):
    return [Sample((A(g1(rng, 3, 4)), A(g2(rng, 3, 4)))),
            Sample((A(g1(rng, 3, 4)), A(g2(rng, 4))), name="broadcast"),
            Sample((A(g1(rng, 2, 1, 3)), A(g2(rng, 4, 1))), name="broadcast both"),
            Sample((A(g1(rng)), A(g2(rng, 3))), name="0-d")]


def _pos(rng, *shape):
    return _uniform(rng, 0.3, 3.0, *shape)


def _gamma_arg(rng, *shape):
    """Positive values and negative ones well away from the poles at 0, -1, -2, ..."""
    x = _uniform(rng, 0.3, 4.0, *shape)
    if x.ndim:
        flat = x.reshape(-1)
        flat[::3] = -np.floor(flat[::3]) - 0.5 + _uniform(rng, -0.2, 0.2, *flat[::3].shape)
    return x


def _gamma_samples(rng):
    return [Sample((A(_gamma_arg(rng, 3, 4)),)), Sample((A(_gamma_arg(rng)),), name="0-d"),
            Sample((A(_gamma_arg(rng, 1, 5)),), name="size-1 dim")]


def _var_mean_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)),), name="whole"),
        Sample((A(randn(rng, 3, 4)), 1), name="dim"),
        Sample((A(randn(rng, 2, 3, 4)), (0, 2)), {"keepdim": True}, name="dims keepdim"),
        Sample((A(randn(rng, 3, 4)), 1), {"correction": 0}, name="correction=0"),
        Sample((A(randn(rng, 3, 5)),), {"dim": -1, "correction": 2, "keepdim": True},
               name="correction=2"),
        Sample((A(randn(rng, 3, 4)), False), name="legacy unbiased=False"),
        Sample((A(randn(rng, 3, 4)), 1, False, True), name="legacy dim unbiased keepdim"),
    ]


def _cdist_samples(rng):
    return [Sample((A(randn(rng, 4, 3)), A(randn(rng, 5, 3)))),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 5, 3)), 1.0), name="p=1"),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 5, 3)), 0.5), name="p=0.5"),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 5, 3)), 1.5), name="p=1.5"),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 5, 3)), 3.0), name="p=3"),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 5, 3)), float("inf")), name="p=inf"),
            Sample((A(randn(rng, 2, 4, 3)), A(randn(rng, 5, 3))), name="batch broadcast"),
            Sample((A(randn(rng, 2, 1, 3, 2)), A(randn(rng, 3, 4, 2)), 2.0),
                   name="batch broadcast both")]


_CDIST_TORCH = ("PyTorch implements neither forward AD nor double backward for cdist "
                "(_cdist_forward / _cdist_backward raise); graphgrad's rules are "
                "differentiable and checked against finite differences in "
                "tests/test_missing_names.py")

OPS = [
    OpInfo("logaddexp", lambda rng: _pair_samples(rng, randn, randn), complex=True),
    OpInfo("xlogy", lambda rng: _pair_samples(rng, randn, _pos), inplace="xlogy_"),
    OpInfo("xlogy_number_self", lambda rng: [Sample((1.5, A(_pos(rng, 3, 4)))),
                                             Sample((-2, A(_pos(rng, 4))), name="int")],
           fn=lambda lib, x, y: lib.xlogy(x, y)),
    OpInfo("xlogy_number_other", lambda rng: [Sample((A(randn(rng, 3, 4)), 2.5)),
                                              Sample((A(randn(rng, 4)), 3), name="int")],
           fn=lambda lib, x, y: lib.xlogy(x, y), inplace="xlogy_"),
    OpInfo("lgamma", _gamma_samples, inplace="lgamma_"),
    OpInfo("digamma", _gamma_samples, inplace="digamma_"),
    OpInfo("polygamma", lambda rng: [Sample((A(_gamma_arg(rng, 3, 4)),), {"n": n},
                                            name=f"n={n}") for n in (0, 1, 2, 3)],
           fn=lambda lib, x, n: lib.polygamma(n, x)),
    OpInfo("polygamma_method", lambda rng: [Sample((A(_pos(rng, 3, 4)), 1))],
           fn=lambda lib, x, n: x.polygamma(n), inplace="polygamma_"),
    OpInfo("var_mean", _var_mean_samples),
    OpInfo("std_mean", _var_mean_samples),
    OpInfo("cdist", _cdist_samples, skips={"gradgrad": _CDIST_TORCH, "jvp": _CDIST_TORCH}),
]
