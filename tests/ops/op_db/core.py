"""OpInfos of the core starter ops (issue 2): arithmetic, starter unary ops, sum/mean,
matmul family, views and basic indexing."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn


def _binary_samples(rng, domain=None):
    d = domain or (lambda x: x)
    return [
        Sample((A(d(randn(rng, 3, 4))), A(d(randn(rng, 3, 4))))),
        Sample((A(d(randn(rng, 3, 4))), A(d(randn(rng, 4)))), name="broadcast"),
        Sample((A(d(randn(rng, 2, 1, 3))), A(d(randn(rng, 4, 1)))), name="broadcast both"),
        Sample((A(d(randn(rng))), A(d(randn(rng, 3)))), name="0-d"),
        Sample((A(d(randn(rng, 5))), 1.7), name="python scalar"),
    ]


def _unary_samples(rng, domain=None):
    d = domain or (lambda x: x)
    return [Sample((A(d(randn(rng, 3, 4))),)), Sample((A(d(randn(rng))),), name="0-d"),
            Sample((A(d(randn(rng, 1, 5))),), name="size-1 dim")]


def _unary(name, domain=None, **kw):
    return OpInfo(name, lambda rng: _unary_samples(rng, domain), inplace=name + "_", complex=True,
                  **kw)


OPS = [
    OpInfo("add", _binary_samples, inplace="add_", complex=True),
    OpInfo("add_alpha", lambda rng: [Sample((A(randn(rng, 3)), A(randn(rng, 3))), {"alpha": 2.5})],
           fn=lambda lib, x, y, **kw: lib.add(x, y, **kw), complex=True),
    OpInfo("sub", _binary_samples, inplace="sub_", complex=True),
    OpInfo("mul", _binary_samples, inplace="mul_", complex=True),
    OpInfo("div", lambda rng: _binary_samples(rng, lambda x: np.sign(x) * (np.abs(x) + 0.5)),
           inplace="div_", complex=True),
    OpInfo("true_divide", lambda rng: _binary_samples(rng, lambda x: np.abs(x) + 0.5)),
    OpInfo("rsub_scalar", lambda rng: [Sample((A(randn(rng, 3, 2)),))],
           fn=lambda lib, x: 2.5 - x, complex=True),
    OpInfo("rdiv_scalar", lambda rng: [Sample((A(positive(rng, 3, 2)),))],
           fn=lambda lib, x: 2.5 / x, complex=True),
    OpInfo("pow", lambda rng: [
        Sample((A(positive(rng, 3, 4)), A(randn(rng, 3, 4)))),
        Sample((A(positive(rng, 3, 4)), 2.5), name="scalar exponent"),
        Sample((A(randn(rng, 3, 4)), 2), name="integer exponent"),
        Sample((A(randn(rng, 3)), 0), name="zero exponent"),
    ], inplace="pow_"),
    OpInfo("rpow_scalar", lambda rng: [Sample((A(randn(rng, 3, 2)),))],
           fn=lambda lib, x: 2.0 ** x),
    # PyTorch fills a base of 1 with ones: for NaN and infinite exponents, and 1 + 0j
    # exactly for a complex exponent (sqrt of the result minus 2 shows the zero's sign)
    OpInfo("rpow_scalar_one", lambda rng: [
        Sample((A(randn(rng, 3, 2)),)),
        Sample((A(np.array([np.nan, np.inf, -np.inf, -0.5])),), name="non-finite"),
    ], fn=lambda lib, x: lib.sqrt(1.0 ** x - 2) if x.is_complex() else 1.0 ** x,
        complex=True),
    _unary("neg"),
    _unary("exp"),
    _unary("log", domain=lambda x: np.abs(x) + 0.5),
    _unary("sin"),
    _unary("cos"),
    _unary("tanh"),
    _unary("sigmoid"),
    OpInfo("relu", lambda rng: _unary_samples(rng, lambda x: np.where(np.abs(x) < 0.1, 0.3, x)),
           inplace="relu_"),
    _unary("reciprocal", domain=lambda x: np.sign(x) * (np.abs(x) + 0.5)),
    OpInfo("clone", _unary_samples, complex=True),
    OpInfo("sum", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)),
        Sample((A(randn(rng, 3, 4)), 1)), Sample((A(randn(rng, 3, 4)), (0, 1), True)),
        Sample((A(randn(rng, 2, 3, 4)), -1, True)), Sample((A(randn(rng)),), name="0-d"),
    ], complex=True),
    OpInfo("mean", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)),
        Sample((A(randn(rng, 3, 4)), 1)), Sample((A(randn(rng, 2, 3, 4)), (0, 2), True)),
    ], complex=True),
    OpInfo("matmul", lambda rng: [
        Sample((A(randn(rng, 3)), A(randn(rng, 3))), name="dot"),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 3))), name="mv"),
        Sample((A(randn(rng, 3)), A(randn(rng, 3, 2))), name="vm"),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 3, 4))), name="mm"),
        Sample((A(randn(rng, 2, 2, 3)), A(randn(rng, 3, 4))), name="batched @ matrix"),
        Sample((A(randn(rng, 2, 2, 3)), A(randn(rng, 1, 3, 4))), name="bmm broadcast"),
        Sample((A(randn(rng, 3)), A(randn(rng, 2, 3, 4))), name="vector @ batched"),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 2, 3, 4))), name="matrix @ batched"),
        Sample((A(randn(rng, 3)), A(randn(rng, 2, 1, 3, 4))), name="vector @ 4-d"),
    ], complex=True),
    OpInfo("mm", lambda rng: [Sample((A(randn(rng, 2, 3)), A(randn(rng, 3, 4))))], complex=True),
    OpInfo("bmm", lambda rng: [Sample((A(randn(rng, 2, 2, 3)), A(randn(rng, 2, 3, 4))))],
           complex=True),
    OpInfo("mv", lambda rng: [Sample((A(randn(rng, 2, 3)), A(randn(rng, 3))))], complex=True),
    OpInfo("dot", lambda rng: [Sample((A(randn(rng, 3)), A(randn(rng, 3))))], complex=True),
    OpInfo("view", lambda rng: [Sample((A(randn(rng, 3, 4)), (4, 3))),
                                Sample((A(randn(rng, 3, 4)), (-1,))),
                                Sample((A(randn(rng)), (1, 1)), name="0-d")],
           fn=lambda lib, x, s: x.view(s), complex=True),
    OpInfo("reshape", lambda rng: [Sample((A(randn(rng, 3, 4)), (2, 6))),
                                   Sample((A(randn(rng, 3, 4)), (-1,)))], complex=True),
    OpInfo("reshape_noncontiguous", lambda rng: [Sample((A(randn(rng, 3, 4)),))],
           fn=lambda lib, x: x.t().reshape(12), complex=True),
    OpInfo("transpose", lambda rng: [Sample((A(randn(rng, 2, 3, 4)), 0, 2)),
                                     Sample((A(randn(rng, 3, 4)), -1, 0))], complex=True),
    OpInfo("t", lambda rng: [Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 3)),))],
           complex=True),
    OpInfo("expand", lambda rng: [Sample((A(randn(rng, 3, 1)), 2, 3, 4)),
                                  Sample((A(randn(rng, 4)), (3, -1)))],
           fn=lambda lib, x, *s: x.expand(*s), complex=True),
    OpInfo("unsqueeze", lambda rng: [Sample((A(randn(rng, 3, 4)), 1)),
                                     Sample((A(randn(rng, 3, 4)), -1)),
                                     Sample((A(randn(rng)), 0))], complex=True),
    OpInfo("squeeze", lambda rng: [Sample((A(randn(rng, 3, 1, 4, 1)),)),
                                   Sample((A(randn(rng, 3, 1, 4)), 1)),
                                   Sample((A(randn(rng, 3, 1, 4)), 0)),
                                   Sample((A(randn(rng, 1, 3, 1)), (0, 2)))], complex=True),
    OpInfo("Tensor.__getitem__", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1)), Sample((A(randn(rng, 3, 4)), (slice(None), 2))),
        Sample((A(randn(rng, 3, 4)), (slice(0, 2), None, slice(None, None, 2)))),
        Sample((A(randn(rng, 3, 4)), (Ellipsis, -1))),
        Sample((A(randn(rng, 3, 4)), ([0, 2, 0],)), name="advanced list"),
    ], complex=True),
]
