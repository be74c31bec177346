"""OpInfos of the ops-point pointwise additions: fmax/fmin, copysign, heaviside, logaddexp2,
float_power, deg2rad/rad2deg, isneginf/isposinf/isreal, frexp, ldexp, nextafter, gcd/lcm,
the bit shifts, rsub and positive."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn


def _distinct(rng, *shape):
    """Values apart from each other and from 0 (no ties, no kinks)."""
    n = int(np.prod(shape)) if shape else 1
    return ((rng.permutation(n) - n / 2 + 0.25) * 0.37).reshape(shape)


def _pair(rng, g1=randn, g2=randn):
    return [Sample((A(g1(rng, 3, 4)), A(g2(rng, 3, 4)))),
            Sample((A(g1(rng, 3, 4)), A(g2(rng, 4))), name="broadcast"),
            Sample((A(g1(rng)), A(g2(rng, 3))), name="0-d")]


def _fmax(rng):
    x, y = _distinct(rng, 3, 4), _distinct(rng, 3, 4) + 0.05
    nan = y.copy()
    nan[0, 1] = np.nan
    return [Sample((A(x), A(y))), Sample((A(x), A(y[0])), name="broadcast"),
            Sample((A(x), A(nan)), name="NaN other")]


def _shift_samples(rng):
    a = np.array([[1, -2, 3], [40, -50, 7]], np.int64)
    return [Sample((I(a), I(np.array([0, 3, 1], np.int64)))),
            Sample((I(a), 2), name="number"),
            Sample((I(a), I(np.array([[63, 64, -1]], np.int64))), name="out of range")]


def _int_pair(rng):
    return [Sample((I(np.array([[4, -6, 0], [9, 12, 35]], np.int64)),
                    I(np.array([[6, 9, 5], [0, -8, 14]], np.int64))))]


def _frexp(rng):
    x = randn(rng, 3, 4) * 10
    return [Sample((A(x),)), Sample((A(randn(rng)),), name="0-d")]


def _classify(rng):
    x = np.array([1.0, np.inf, -np.inf, np.nan, -0.0, 3.0])
    return [Sample((I(x, cast=True),))]


_LDEXP_INT = ("PyTorch's gradient of ldexp(x, e) for an integer e < 0 is 0 (its 2 ** e is "
              "taken in integers); graphgrad's is 2 ** e (docs/differences.md; checked "
              "against finite differences)")

OPS = [
    OpInfo("fmax", _fmax),
    OpInfo("fmin", _fmax),
    OpInfo("copysign", lambda rng: _pair(rng, lambda r, *s: _distinct(r, *s)),
           inplace="copysign_"),
    OpInfo("copysign_number", lambda rng: [Sample((A(_distinct(rng, 3, 4)), -2.0)),
                                           Sample((A(_distinct(rng, 3, 4)), 1), name="int")],
           fn=lambda lib, x, y: lib.copysign(x, y), inplace="copysign_"),
    OpInfo("heaviside", lambda rng: [Sample((I(np.array([[-1.0, 0.0, 2.0]]), True),
                                             I(np.array([0.5, 0.25, 7.0]), True)))],
           grad=False),
    OpInfo("logaddexp2", _pair),
    OpInfo("float_power", lambda rng: [
        Sample((A(rng.uniform(0.5, 2.0, (3, 4))), A(randn(rng, 3, 4)))),
        Sample((A(rng.uniform(0.5, 2.0, (3, 4))), 2), name="int exponent"),
        Sample((A(rng.uniform(0.5, 2.0, (3, 4))), 0.5), name="float exponent"),
        Sample((2.0, A(randn(rng, 3))), name="number base")], complex=True,
        inplace=None),
    OpInfo("deg2rad", lambda rng: [Sample((A(randn(rng, 3, 4) * 90),))], inplace="deg2rad_"),
    OpInfo("rad2deg", lambda rng: [Sample((A(randn(rng, 3, 4)),))], inplace="rad2deg_"),
    OpInfo("isposinf", _classify, grad=False),
    OpInfo("isneginf", _classify, grad=False),
    OpInfo("isreal", lambda rng: [Sample((A(randn(rng, 3, 4)),))], grad=False, complex=True),
    OpInfo("frexp", _frexp, nondiff_outputs=(1,)),
    OpInfo("ldexp", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4)))),
        Sample((A(randn(rng, 3, 4)), I(np.array([[1, 4, 0, 3]], np.int64))),
               name="int exponent")], inplace="ldexp_"),
    OpInfo("ldexp_negative_int_exponent", lambda rng: [
        Sample((A(randn(rng, 3, 4)), I(np.array([[1, -2, 0, -3]], np.int64))))],
        fn=lambda lib, x, e: lib.ldexp(x, e), skips={k: _LDEXP_INT for k in (
            "vjp", "gradgrad", "jvp")}),
    OpInfo("nextafter", lambda rng: _pair(rng), inplace="nextafter_",
           skips={"fd": "nextafter is a step of one ulp: not smooth"}),
    OpInfo("gcd", _int_pair, grad=False, inplace="gcd_"),
    OpInfo("lcm", _int_pair, grad=False, inplace="lcm_"),
    OpInfo("bitwise_left_shift", _shift_samples, grad=False, inplace="bitwise_left_shift_"),
    OpInfo("bitwise_right_shift", _shift_samples, grad=False, inplace="bitwise_right_shift_"),
    OpInfo("rsub", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4))), {"alpha": 2}, name="alpha"),
        Sample((A(randn(rng, 3, 4)), 2.5), name="number"),
        Sample((A(randn(rng, 3, 4)), 2.5), {"alpha": -3}, name="number alpha")],
        complex=True),
    OpInfo("i0", lambda rng: [Sample((A(randn(rng, 3, 4) * 3),)),
                              Sample((A(np.array([0.0, -0.5, 7.0, -12.0])),), name="large")],
           inplace="i0_"),
    OpInfo("special.i1", lambda rng: [Sample((A(randn(rng, 3, 4) * 3),)),
                                      Sample((A(np.array([0.0, -0.5, 7.0, -12.0])),),
                                             name="zero, large")]),
    OpInfo("positive", lambda rng: [Sample((A(randn(rng, 3, 4)),))], complex=True),
]
