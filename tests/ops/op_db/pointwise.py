"""OpInfos of the pointwise family (see tests/ops/opinfo.py): binary and unary math,
rounding, complex parts, and the non-differentiable comparisons and logical ops.

Samples keep away from kinks, ties and domain edges (so finite differences are
meaningful), except where a sample tests PyTorch's choice there on purpose:
``abs`` at 0, ``maximum``/``minimum`` ties (central differences give the same
even split), NaN in the untaken branch of ``where``, ``nan_to_num`` on NaN/inf.
"""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


# ------------------------------------------------------------------ sample helpers
def _uniform(rng, lo, hi, *shape):
    return rng.uniform(lo, hi, shape)


def _away(x, points, gap=0.05):
    """Move values that sit within ``gap`` of any of ``points`` (kinks, ties) off them."""
    x = np.array(x, dtype=np.float64)
    for p in np.atleast_1d(points):
        near = np.abs(x - p) < gap
        x = np.where(near, p + np.where(x >= p, gap, -gap) * 2, x)
    return x


def _unary_samples(rng, gen):
    return [Sample((A(gen(rng, 3, 4)),)), Sample((A(gen(rng)),), name="0-d"),
            Sample((A(gen(rng, 1, 5)),), name="size-1 dim")]


def _gen(lo, hi, avoid=None):
    def gen(rng, *shape):
        x = _uniform(rng, lo, hi, *shape)
        return x if avoid is None else _away(x, avoid)
    return gen


def _unary(name, gen=randn, complex=True, inplace=True, **kw):  # noqa: A002
    return OpInfo(name, lambda rng: _unary_samples(rng, gen), complex=complex,
                  inplace=name + "_" if inplace else None, **kw)


def _nonzero(rng, *shape):
    x = randn(rng, *shape)
    return np.sign(x) * (np.abs(x) + 0.5)


def _binary_samples(rng, g1=randn, g2=randn, scalar=1.7):
    out = [
        Sample((A(g1(rng, 3, 4)), A(g2(rng, 3, 4)))),
        Sample((A(g1(rng, 3, 4)), A(g2(rng, 4))), name="broadcast"),
        Sample((A(g1(rng, 2, 1, 3)), A(g2(rng, 4, 1))), name="broadcast both"),
        Sample((A(g1(rng)), A(g2(rng, 3))), name="0-d"),
    ]
    if scalar is not None:
        out.append(Sample((A(g1(rng, 5)), scalar), name="python scalar"))
    return out


def _mod_samples(rng):
    """x = q * y with q an integer plus a fraction well inside (0.2, 0.8): no jumps nearby."""
    def pair(xshape, yshape):
        y = np.sign(randn(rng, *yshape)) * _uniform(rng, 0.5, 2.0, *yshape)
        q = rng.integers(-3, 4, xshape) + _uniform(rng, 0.2, 0.8, *xshape)
        return q * y, y
    x1, y1 = pair((3, 4), (3, 4))
    x2, y2 = pair((3, 4), (4,))
    x3, _ = pair((5,), (5,))
    x3 = np.floor(x3 / 1.5) * 1.5 + _uniform(rng, 0.3, 1.2, 5)
    return [Sample((A(x1), A(y1))), Sample((A(x2), A(y2)), name="broadcast"),
            Sample((A(x3), 1.5), name="python scalar"),
            Sample((A(-x3), -1.5), name="negative python scalar")]


def _div_rounding_samples(rng):
    s = _mod_samples(rng)
    out = []
    for mode in ("trunc", "floor"):
        for smp in s:
            out.append(Sample(smp.args, {"rounding_mode": mode}, name=f"{mode} {smp.name}"))
    return out


# ------------------------------------------------------------------ binary / ternary
def _maxmin_samples(rng):
    s = _binary_samples(rng, scalar=None)
    s.append(Sample((A([1.0, 2.0, -0.5, 3.0]), A([1.0, 0.5, -0.5, 4.0])), name="ties"))
    s.append(Sample((A([[1.5, -2.0]]), A([[1.5], [0.25]])), name="broadcast tie"))
    return s


def _lerp_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), 0.3), name="scalar weight < 0.5"),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4)), 0.8), name="scalar weight >= 0.5"),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), A(_uniform(rng, -0.5, 1.5, 3, 4))),
               name="tensor weight"),
        Sample((A(randn(rng, 3, 1)), A(randn(rng, 4)), A(_uniform(rng, 0, 1, 3, 4))),
               name="tensor weight, broadcast"),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 2, 3)), A(np.array(0.7))),
               name="0-d tensor weight"),
    ]


def _addc_samples(rng, divide):
    g2 = _nonzero if divide else randn
    return [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), A(g2(rng, 3, 4)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4)), A(g2(rng, 3, 1))), {"value": 0.5},
               name="broadcast, value"),
        Sample((A(randn(rng)), A(randn(rng, 2, 3)), A(g2(rng, 3))), {"value": -2},
               name="0-d input, int value"),
    ]


def _where_samples(rng):
    x, y = randn(rng, 3, 4), randn(rng, 3, 4)
    cond = randn(rng, 3, 4) > 0
    y_nan = np.where(cond, np.nan, y)   # NaN only where x is taken
    x_inf = np.where(cond, x, np.inf)
    return [
        Sample((I(cond), A(x), A(y))),
        Sample((I(cond), A(x), A(y_nan)), name="NaN in the untaken branch"),
        Sample((I(cond), A(x_inf), A(y)), name="inf in the untaken branch"),
        Sample((I(randn(rng, 3, 1) > 0), A(randn(rng, 4)), A(randn(rng, 3, 4))), name="broadcast"),
        Sample((I(cond), A(x), 0.0), name="python scalar other"),
    ]


def _clamp_samples(rng):
    x = _away(_uniform(rng, -1.5, 1.5, 3, 4), [-0.5, 0.5])
    lo = _uniform(rng, -1.0, -0.2, 3, 4)
    hi = _uniform(rng, 0.2, 1.0, 3, 4)
    xt = np.where(np.abs(x - lo) < 0.05, x + 0.1, x)
    xt = np.where(np.abs(xt - hi) < 0.05, xt - 0.1, xt)
    hi_row = _uniform(rng, 0.2, 1.0, 4)
    x_row = _away(_away(xt, hi_row), lo)
    lo_swapped = _uniform(rng, 0.6, 1.0, 3, 4)      # min > max: the result is max
    hi_swapped = _uniform(rng, -1.0, 0.4, 3, 4)
    return [
        Sample((A(x),), {"min": -0.5, "max": 0.5}, name="numbers"),
        Sample((A(x),), {"min": -0.5}, name="min only"),
        Sample((A(x),), {"max": 0.5}, name="max only"),
        Sample((A(x),), {"min": 0.6, "max": 0.3}, name="min > max"),
        Sample((A(xt),), {"min": A(lo), "max": A(hi)}, name="tensors"),
        Sample((A(x_row),), {"min": A(lo), "max": A(hi_row)}, name="tensors, broadcast"),
        Sample((A(xt),), {"min": A(lo)}, name="tensor min only"),
        Sample((A(xt),), {"max": A(hi)}, name="tensor max only"),
        Sample((A(_away(x, 0.5)),), {"min": A(lo_swapped), "max": A(hi_swapped)},
               name="tensors, min > max"),
        Sample((A(np.array(0.3)),), {"min": -0.5, "max": 0.5}, name="0-d"),
    ]


def _clamp_one_samples(rng):
    x = _away(_uniform(rng, -1.5, 1.5, 3, 4), [0.25])
    b = _uniform(rng, -1.0, 1.0, 4)
    return [Sample((A(x), 0.25)), Sample((A(_away(x, b)), A(b)), name="tensor bound")]


_BINARY = [
    OpInfo("sub_alpha", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4))), {"alpha": 2.5}),
        Sample((A(randn(rng, 3)), 1.5), {"alpha": -2}, name="python scalar")],
        fn=lambda lib, x, y, **kw: lib.sub(x, y, **kw), inplace="sub_", complex=True),
    OpInfo("add_alpha_inplace", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4))), {"alpha": 0.5})],
        fn=lambda lib, x, y, **kw: lib.add(x, y, **kw), inplace="add_", complex=True),
    OpInfo("div_rounding_mode", _div_rounding_samples,
           fn=lambda lib, x, y, **kw: lib.div(x, y, **kw), inplace="div_"),
    OpInfo("floor_divide", _mod_samples, inplace="floor_divide_",
           skips={c: "PyTorch's floor_divide has no derivative (backward raises); graphgrad "
                     "gives div(rounding_mode='floor')'s zero gradient (checked by finite "
                     "differences)" for c in ("vjp", "gradgrad", "jvp")}),
    OpInfo("maximum", _maxmin_samples),
    OpInfo("minimum", _maxmin_samples),
    OpInfo("fmod", _mod_samples, inplace="fmod_"),
    OpInfo("remainder", _mod_samples, inplace="remainder_"),
    OpInfo("atan2", lambda rng: _binary_samples(rng, _nonzero, _nonzero, scalar=None),
           inplace="atan2_", aliases=("arctan2",)),
    OpInfo("hypot", lambda rng: _binary_samples(rng, _nonzero, _nonzero, scalar=None),
           inplace="hypot_"),
    OpInfo("lerp", _lerp_samples, inplace="lerp_", complex=True),
    OpInfo("addcmul", lambda rng: _addc_samples(rng, False), inplace="addcmul_", complex=True),
    OpInfo("addcdiv", lambda rng: _addc_samples(rng, True), inplace="addcdiv_", complex=True),
    OpInfo("where", _where_samples, complex=True),
    OpInfo("clamp", _clamp_samples, inplace="clamp_"),
    OpInfo("clip", lambda rng: _clamp_samples(rng)[:5], inplace="clip_"),
    OpInfo("clamp_min", _clamp_one_samples, inplace="clamp_min_"),
    OpInfo("clamp_max", _clamp_one_samples, inplace="clamp_max_"),
]


# ------------------------------------------------------------------ unary
def _with_zero(rng, *shape):
    x = _nonzero(rng, *shape)
    if x.ndim:
        x.reshape(-1)[0] = 0.0
    return x


def _logit_samples(rng):
    inside = _uniform(rng, 0.1, 0.9, 3, 4)
    spread = _away(_uniform(rng, 0.02, 0.98, 3, 4), [0.15, 0.85])
    return [Sample((A(inside),)), Sample((A(inside[0, 0]),), name="0-d"),
            Sample((A(spread), 0.15), name="eps: some inputs clamped"),
            Sample((A(inside),), {"eps": 1e-6}, name="eps keyword")]


def _round_gen(rng, *shape):
    # k +- [0.1, 0.4]: away from the jumps at integers (floor, ceil) and half-integers (round)
    return rng.integers(-3, 4, shape) + _uniform(rng, 0.1, 0.4, *shape) * \
        rng.choice([-1.0, 1.0], shape)


def _round_samples(rng):
    x = _round_gen(rng, 3, 4)
    x2 = rng.integers(-300, 300, (3, 4)) / 100 + 0.002 * np.sign(randn(rng, 3, 4))
    x3 = rng.integers(-30, 30, (3, 4)) * 10 + _uniform(rng, -3, 3, 3, 4)
    return [Sample((A(x),)), Sample((A(x[0, 0]),), name="0-d"),
            Sample((A(x2),), {"decimals": 2}, name="decimals=2"),
            Sample((A(x3),), {"decimals": -1}, name="decimals=-1")]


def _nan_to_num_samples(rng):
    # +-inf only with moderate replacements: the dtype's extremes (the defaults) would swamp
    # the finite-difference loss
    x = randn(rng, 3, 4)
    x[0, 0] = x[2, 1] = np.nan
    y = x.copy()
    y[1, 1], y[2, 2] = np.inf, -np.inf
    return [Sample((A(x),)), Sample((A(y),), {"nan": 2.0, "posinf": 10.0, "neginf": -10.0},
                                    name="replacements"),
            Sample((A(x), 0.5), name="positional nan"), Sample((A(randn(rng)),), name="0-d")]


_UNARY = [
    OpInfo("abs", lambda rng: _unary_samples(rng, _with_zero), inplace="abs_", complex=True,
           aliases=("absolute",)),
    _unary("sign", _nonzero, complex=False),
    OpInfo("sgn", lambda rng: _unary_samples(rng, _nonzero), inplace="sgn_", complex=True),
    _unary("exp2"),
    _unary("expm1"),
    _unary("log2", positive),
    _unary("log10", positive),
    _unary("log1p", _gen(-0.7, 2.0)),
    _unary("sqrt", positive),
    _unary("rsqrt", positive),
    _unary("square"),
    _unary("tan", _gen(-1.2, 1.2)),
    _unary("asin", _gen(-0.9, 0.9), aliases=("arcsin",)),
    _unary("acos", _gen(-0.9, 0.9), aliases=("arccos",)),
    _unary("atan", aliases=("arctan",)),
    _unary("sinh"),
    _unary("cosh"),
    _unary("asinh", aliases=("arcsinh",)),
    _unary("acosh", _gen(1.2, 3.0), aliases=("arccosh",)),
    _unary("atanh", _gen(-0.9, 0.9), aliases=("arctanh",)),
    OpInfo("logit", _logit_samples, inplace="logit_"),
    # the kernels take the C library per element up to 64 elements and the blocked
    # Chebyshev series above (ops/kernels/special.py): the 9x9 sample covers the latter
    OpInfo("erf", lambda rng: _unary_samples(rng, _gen(-2.5, 2.5)) + [
        Sample((A(_uniform(rng, -5.0, 5.0, 9, 9)),), name="vectorised")],
        complex=False, inplace="erf_"),
    OpInfo("erfc", lambda rng: _unary_samples(rng, _gen(-2.5, 2.5)) + [
        Sample((A(_uniform(rng, -5.0, 8.0, 9, 9)),), name="vectorised")],
        complex=False, inplace="erfc_"),
    _unary("erfinv", _gen(-0.95, 0.95), complex=False),
    _unary("floor", _round_gen, complex=False),
    _unary("ceil", _round_gen, complex=False),
    OpInfo("round", _round_samples, inplace="round_"),
    _unary("trunc", _round_gen, complex=False, aliases=("fix",)),
    _unary("frac", _round_gen, complex=False),
    OpInfo("nan_to_num", _nan_to_num_samples, inplace="nan_to_num_"),
    _unary("angle", _nonzero, inplace=False),
    OpInfo("real", lambda rng: _unary_samples(rng, randn), complex=True),
    OpInfo("real_property", lambda rng: _unary_samples(rng, randn), complex=True,
           fn=lambda lib, x: x.real * 1),
    OpInfo("imag", lambda rng: _unary_samples(rng, randn), dtypes=(), complex=True),
    OpInfo("imag_property", lambda rng: _unary_samples(rng, randn), dtypes=(), complex=True,
           fn=lambda lib, x: x.imag * 2),
    OpInfo("conj", lambda rng: _unary_samples(rng, randn), complex=True),
    OpInfo("conj_physical", lambda rng: _unary_samples(rng, randn), complex=True),
    OpInfo("polar", lambda rng: [
        Sample((A(positive(rng, 3, 4)), A(randn(rng, 3, 4)))),
        Sample((A(positive(rng, 3, 4)), A(randn(rng, 4))), name="broadcast"),
        Sample((A(positive(rng)), A(randn(rng))), name="0-d")],
        skips={"fd": "the generic finite-difference loss is real-valued; polar's output is "
                     "complex (checked against PyTorch instead)"}),
    OpInfo("complex", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)))),
        Sample((A(randn(rng, 3, 1)), A(randn(rng, 4))), name="broadcast"),
        Sample((A(randn(rng)), A(randn(rng))), name="0-d")],
        skips={"fd": "the generic finite-difference loss is real-valued; complex()'s output "
                     "is complex (checked against PyTorch instead)"}),
]


# ------------------------------------------------------------------ non-differentiable
def _cmp_samples(rng):
    x = np.round(randn(rng, 3, 4), 1)
    y = x.copy()
    y[0] += 0.5
    y[1, :2] -= 0.5
    return [Sample((A(x), A(y))), Sample((A(x), A(y[2])), name="broadcast"),
            Sample((A(x), 0.0), name="python scalar"), Sample((A(x[0, 0]), A(y[0])), name="0-d")]


def _isclose_samples(rng):
    x = randn(rng, 3, 4)
    y = x + np.array([0.0, 1e-6, 1e-3, 1.0])
    y[0, 0] = x[0, 0] = np.nan
    y[1, 0], x[1, 0] = np.inf, np.inf
    y[2, 0], x[2, 0] = np.inf, -np.inf
    return [Sample((A(x), A(y))), Sample((A(x), A(y)), {"equal_nan": True}, name="equal_nan"),
            Sample((A(x), A(y)), {"rtol": 1e-2, "atol": 0.0}, name="rtol"),
            Sample((A(x), A(y[1])), {"atol": 1e-4}, name="broadcast, atol")]


def _special_values(rng):
    x = randn(rng, 3, 4)
    x[0, 0], x[1, 1], x[2, 2], x[0, 3] = np.nan, np.inf, -np.inf, 0.0
    return [Sample((A(x),)), Sample((A(np.array(np.nan)),), name="0-d")]


def _logical_samples(rng):
    x = np.round(randn(rng, 3, 4))
    y = np.round(randn(rng, 3, 4))
    return [Sample((A(x), A(y))), Sample((A(x), A(y[0])), name="broadcast"),
            Sample((I(x > 0), I(y > 0)), name="bool")]


def _nondiff(name, samples, complex=False, **kw):  # noqa: A002
    return OpInfo(name, samples, grad=False, complex=complex, **kw)


_NONDIFF = [
    _nondiff("eq", _cmp_samples, complex=True, inplace="eq_", aliases=("Tensor.__eq__",)),
    _nondiff("ne", _cmp_samples, complex=True, inplace="ne_", aliases=("Tensor.__ne__",)),
    _nondiff("lt", _cmp_samples, inplace="lt_", aliases=("Tensor.__lt__",)),
    _nondiff("le", _cmp_samples, inplace="le_", aliases=("Tensor.__le__",)),
    _nondiff("gt", _cmp_samples, inplace="gt_", aliases=("Tensor.__gt__",)),
    _nondiff("ge", _cmp_samples, inplace="ge_", aliases=("Tensor.__ge__",)),
    _nondiff("isclose", _isclose_samples, complex=True),
    _nondiff("allclose", lambda rng: _isclose_samples(rng) + [
        Sample((A(np.ones(3)), A(np.ones(3) + 1e-9)), name="all close")],
        fn=lambda lib, x, y, **kw: lib.tensor(lib.allclose(x, y, **kw))),
    _nondiff("isnan", _special_values, complex=True),
    _nondiff("isinf", _special_values, complex=True),
    _nondiff("isfinite", _special_values, complex=True),
    _nondiff("logical_and", _logical_samples, complex=True, inplace="logical_and_"),
    _nondiff("logical_or", _logical_samples, complex=True, inplace="logical_or_"),
    _nondiff("logical_xor", _logical_samples, complex=True, inplace="logical_xor_"),
    _nondiff("logical_not", lambda rng: [s for s in _special_values(rng)] +
             [Sample((I(randn(rng, 3) > 0),), name="bool")], complex=True,
             inplace="logical_not_"),
]

OPS = _BINARY + _UNARY + _NONDIFF
