"""OpInfos of the statistics family (ops-reduce): nansum, nanmean, quantile / nanquantile,
aminmax, kthvalue, mode, logcumsumexp, dist, renorm, diff, cov, corrcoef, trapezoid / trapz,
cumulative_trapezoid.

Samples keep values distinct (no ties, which are not differentiable) unless the entry is
about tie-breaking (``*_ties``: no finite differences).
"""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn


def _distinct(rng, *shape):
    n = int(np.prod(shape)) if shape else 1
    v = (rng.permutation(n) - n / 2 + 0.5) * 0.7 + rng.uniform(-0.05, 0.05, n)
    return v.reshape(shape)


def _with_nan(rng, *shape):
    x = _distinct(rng, *shape)
    x.reshape(-1)[1] = np.nan
    return x


_NAN = {"fd": "NaN inputs: finite differences do not apply"}
_TIES = {"fd": "the op is not differentiable at ties; finite differences do not apply"}


def _q(lib, x, q, *a, **k):
    if isinstance(q, list):
        q = lib.tensor(q, dtype=x.dtype)
    return lib.quantile(x, q, *a, **k)


def _nq(lib, x, q, *a, **k):
    if isinstance(q, list):
        q = lib.tensor(q, dtype=x.dtype)
    return lib.nanquantile(x, q, *a, **k)


def _quantile_samples(rng):
    out = [Sample((A(_distinct(rng, 3, 5)), 0.37), {"dim": 1, "interpolation": m}, name=m)
           for m in ("linear", "lower", "higher", "midpoint", "nearest")]
    out += [Sample((A(_distinct(rng, 3, 5)), 0.4), name="whole"),
            Sample((A(_distinct(rng, 3, 5)), 0.4), {"keepdim": True}, name="whole keepdim"),
            Sample((A(_distinct(rng, 2, 3, 4)), [0.1, 0.5, 0.93]), {"dim": 1, "keepdim": True},
                   name="q tensor dim keepdim"),
            Sample((A(_distinct(rng, 2, 3, 4)), [0.25, 0.8]), {"dim": -1}, name="q tensor last"),
            Sample((A(_distinct(rng, 4)), 0.3), {"dim": 0}, name="1-d"),
            Sample((A(_distinct(rng)), 0.3), name="0-d")]
    return out


def _nanquantile_samples(rng):
    return [Sample((A(_with_nan(rng, 3, 5)), 0.37), {"dim": 1}, name="nan row"),
            Sample((A(_with_nan(rng, 3, 5)), [0.2, 0.7]), {"dim": 0}, name="q tensor"),
            Sample((A(_with_nan(rng, 3, 5)), 0.6), name="whole")]


def _nansum_samples(rng):
    return [Sample((A(randn(rng, 3, 4)),), name="whole"),
            Sample((A(randn(rng, 3, 4)), 1), name="dim"),
            Sample((A(randn(rng, 2, 3, 4)), (0, 2), True), name="dims keepdim"),
            Sample((A(randn(rng)),), name="0-d")]


def _nan_samples(rng):
    return [Sample((A(_with_nan(rng, 3, 4)),), name="whole"),
            Sample((A(_with_nan(rng, 3, 4)), 1), name="dim"),
            Sample((A(_with_nan(rng, 3, 4)), (0, 1), True), name="dims keepdim")]


def _aminmax_samples(rng):
    return [Sample((A(_distinct(rng, 3, 4)),), name="whole"),
            Sample((A(_distinct(rng, 3, 4)),), {"dim": 1}, name="dim"),
            Sample((A(_distinct(rng, 2, 3, 4)),), {"dim": 0, "keepdim": True}, name="keepdim"),
            Sample((A(_distinct(rng)),), name="0-d")]


def _aminmax_ties_samples(rng):
    x = np.array([[1.0, 3.0, 1.0, 3.0], [2.0, 2.0, 2.0, 0.5]])
    return [Sample((A(x),), name="whole"), Sample((A(x),), {"dim": 1}, name="dim")]


def _kthvalue_samples(rng):
    return [Sample((A(_distinct(rng, 3, 5)), 2), name="last dim"),
            Sample((A(_distinct(rng, 3, 5)), 3, 0), name="dim 0"),
            Sample((A(_distinct(rng, 2, 3, 4)), 4, 2, True), name="keepdim"),
            Sample((A(_distinct(rng)), 1), name="0-d")]


def _kthvalue_ties_samples(rng):
    x = np.array([[1., 2., 2., 1., 3., 2., 1.], [5., 5., 4., 4., 3., 3., 9.]])
    return [Sample((A(x), k, 1), name=f"k={k}") for k in (1, 2, 3, 5)]


def _mode_samples(rng):
    x = np.array([[1., 2., 2., 1., 3., 2., 1.], [5., 5., 4., 4., 3., 3., 9.],
                  [0.5, 7., 0.5, 7., 0.5, 7., 6.]])
    return [Sample((A(x),), name="last dim"), Sample((A(x.T), 0), name="dim 0"),
            Sample((A(x), 1, True), name="keepdim"),
            Sample((A(_distinct(rng, 3, 4)), 0), name="distinct")]


def _logcumsumexp_samples(rng):
    return [Sample((A(randn(rng, 3, 5)), 1), name="dim 1"),
            Sample((A(randn(rng, 3, 5) * 4), 0), name="wide values"),
            Sample((A(randn(rng, 2, 3, 4)), -2), name="3-d"),
            Sample((A(randn(rng)), 0), name="0-d")]


def _dist_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4))), name="p=2"),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 4)), 1), name="p=1 broadcast"),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 1)), 3), name="p=3"),
            Sample((A(_distinct(rng, 3, 4)), A(_distinct(rng, 3, 4) * 0.5)), {"p": float("inf")},
                   name="p=inf"),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), 0.5), name="p=0.5")]


def _renorm_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), 2, 0, 1.0), name="p=2 dim 0"),
            Sample((A(randn(rng, 3, 4)), 1, 1, 1.5), name="p=1 dim 1"),
            Sample((A(randn(rng, 2, 3, 4)), 3, -1, 0.8), name="p=3 3-d"),
            Sample((A(randn(rng, 3, 4) * 0.1), 2, 0, 5.0), name="all below maxnorm")]


def _diff_samples(rng):
    return [Sample((A(randn(rng, 3, 5)),), name="default"),
            Sample((A(randn(rng, 4, 3)), 2, 0), name="n=2 dim 0"),
            Sample((A(randn(rng, 3, 4)), 1, 1, A(randn(rng, 3, 2)), A(randn(rng, 3, 1))),
                   name="prepend append"),
            Sample((A(randn(rng, 3, 4)), 0), name="n=0"),
            Sample((A(randn(rng, 3, 4)), 6), name="n > size")]


def _cov_samples(rng):
    return [Sample((A(randn(rng, 3, 6)),), name="default"),
            Sample((A(randn(rng, 3, 6)),), {"correction": 0}, name="correction 0"),
            Sample((A(randn(rng, 6)),), name="1-d"),
            Sample((A(randn(rng, 2, 5)),), {"fweights": I(np.array([1, 2, 1, 3, 1]))},
                   name="fweights"),
            Sample((A(randn(rng, 2, 5)),),
                   {"aweights": I(np.array([0.5, 1., 2., 1., 0.3]), cast=True),
                    "fweights": I(np.array([1, 2, 1, 3, 1]))}, name="both weights"),
            Sample((A(randn(rng, 2, 5)),),
                   {"aweights": A(np.array([0.5, 1., 2., 1., 0.3])), "correction": 2},
                   name="differentiable aweights")]


def _corrcoef_samples(rng):
    return [Sample((A(randn(rng, 3, 6)),), name="2-d"), Sample((A(randn(rng, 6)),), name="1-d")]


def _trapezoid_samples(rng):
    xs = np.cumsum(rng.uniform(0.2, 1.0, 5))
    return [Sample((A(randn(rng, 3, 5)),), name="dx=1"),
            Sample((A(randn(rng, 5, 3)),), {"dx": 0.5, "dim": 0}, name="dx dim 0"),
            Sample((A(randn(rng, 3, 5)), A(xs)), name="1-d x"),
            Sample((A(randn(rng, 3, 5)), A(randn(rng, 3, 5))), name="same-shape x"),
            Sample((A(randn(rng, 2, 3, 5)), A(randn(rng, 3, 5))), {"dim": 1}, name="broadcast x")]


def _is_int(lib, t):
    return not t.dtype.is_floating_point


OPS = [
    OpInfo("nansum", _nansum_samples),
    OpInfo("nansum_nan", _nan_samples, fn=lambda lib, *a, **k: lib.nansum(*a, **k), skips=_NAN),
    OpInfo("nanmean", _nansum_samples),
    OpInfo("nanmean_nan", _nan_samples, fn=lambda lib, *a, **k: lib.nanmean(*a, **k),
           skips=_NAN),
    OpInfo("quantile", _quantile_samples, fn=_q),
    OpInfo("nanquantile", _nanquantile_samples, fn=_nq, skips=_NAN),
    OpInfo("aminmax", _aminmax_samples),
    OpInfo("aminmax_ties", _aminmax_ties_samples, fn=lambda lib, *a, **k: lib.aminmax(*a, **k),
           skips=_TIES),
    OpInfo("kthvalue", _kthvalue_samples, nondiff_outputs=(1,)),
    OpInfo("kthvalue_ties", _kthvalue_ties_samples, nondiff_outputs=(1,),
           fn=lambda lib, *a, **k: lib.kthvalue(*a, **k), skips=_TIES),
    OpInfo("mode", _mode_samples, nondiff_outputs=(1,), skips=_TIES),
    OpInfo("logcumsumexp", _logcumsumexp_samples, complex=True),
    OpInfo("dist", _dist_samples),
    OpInfo("renorm", _renorm_samples, inplace="renorm_"),
    OpInfo("diff", _diff_samples),
    OpInfo("cov", _cov_samples),
    OpInfo("corrcoef", _corrcoef_samples),
    OpInfo("trapezoid", _trapezoid_samples),
    OpInfo("trapz", lambda rng: _trapezoid_samples(rng)[:3]),
    OpInfo("cumulative_trapezoid", _trapezoid_samples),
]


def _gradient_samples(rng):
    coords = np.cumsum(rng.uniform(0.3, 1.0, 5))
    return [Sample((A(randn(rng, 4, 5)),), name="unit spacing"),
            Sample((A(randn(rng, 4, 5)),), {"spacing": 2.0, "dim": 1}, name="scalar spacing"),
            Sample((A(randn(rng, 4, 5)),), {"spacing": [0.5, 3.0], "edge_order": 2},
                   name="per-dim spacing, edge_order 2"),
            Sample((A(randn(rng, 4, 5)),), {"spacing": [I(coords, cast=True)], "dim": -1},
                   name="coordinates"),
            Sample((A(randn(rng, 4, 5)),), {"spacing": [I(coords, cast=True)], "dim": 1,
                                            "edge_order": 2}, name="coordinates edge_order 2"),
            Sample((A(randn(rng, 6)),), {"edge_order": 2}, name="1-d")]


OPS.append(OpInfo("gradient", _gradient_samples))


def _pdist_samples(rng):
    return [Sample((A(randn(rng, 4, 3)),), name="p=2"),
            Sample((A(randn(rng, 5, 2)), 1.0), name="p=1"),
            Sample((A(randn(rng, 4, 3)), 3.0), name="p=3"),
            Sample((A(_distinct(rng, 4, 3)), float("inf")), name="p=inf"),
            Sample((A(randn(rng, 1, 3)),), name="one row")]


# (PyTorch has no double backward and no forward-mode derivative for pdist: test_stats_ops)
OPS.append(OpInfo("pdist", _pdist_samples, gradgrad=False, fwd_ad=False,
                  aliases=("nn.functional.pdist",)))
