"""OpInfos of the ops added for issue 16 §4's second batch of missing names: median /
nanmedian, unsafe_split / unsafe_chunk / unsafe_split_with_sizes, scatter_reduce and
index_reduce."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn


def _i64(x):
    return I(np.array(x, dtype=np.int64))


def _distinct(rng, *shape):
    n = int(np.prod(shape)) if shape else 1
    return (rng.permutation(n) * 0.37 - 1.1).reshape(shape)


def _median_samples(rng):
    return [
        Sample((A(_distinct(rng, 3, 4)),), name="whole, even count"),
        Sample((A(_distinct(rng, 5)),), name="whole, odd count"),
        Sample((A(_distinct(rng, 3, 4)), 1), name="dim"),
        Sample((A(_distinct(rng, 2, 3, 4)), 0, True), name="dim keepdim"),
        Sample((A(_distinct(rng)),), name="0-d"),
        Sample((A(_distinct(rng)), 0), name="0-d dim"),
    ]


def _median_ties_samples(rng):
    x = np.array([[1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [2.0, 2.0, 5.0, 4.0, 2.0, 3.0]])
    return [Sample((A(x),), name="whole: tied medians share the gradient"),
            Sample((A(x[1]),), name="whole row")]


_TIES = {"fd": "the op is not differentiable at ties; finite differences do not apply"}


def _scatter_reduce_samples(reduce):
    def samples(rng):
        idx = _i64([[0, 1, 2, 0], [2, 1, 2, 1]])
        out = []
        for inc in (True, False):
            # (src values differ from self's: a tie between them is not differentiable)
            out.append(Sample((A(_distinct(rng, 3, 4)), 0, idx, A(_distinct(rng, 2, 4) + 0.05),
                               reduce),
                              {"include_self": inc}, name=f"include_self={inc}"))
        out.append(Sample((A(_distinct(rng, 3, 4)), 1, _i64([[0, 0], [3, 1], [2, 2]]),
                           A(_distinct(rng, 3, 2) + 0.05), reduce), name="dim 1"))
        # (src larger than index: PyTorch's own backward rejects its src gradient's shape)
        return out
    return samples


def _index_reduce_samples(reduce):
    def samples(rng):
        return [Sample((A(_distinct(rng, 3, 4)), 0, _i64([0, 2, 0]),
                        A(_distinct(rng, 3, 4) + 0.05),
                        reduce), {"include_self": inc}, name=f"include_self={inc}")
                for inc in (True, False)]
    return samples


OPS = [
    OpInfo("median", _median_samples, nondiff_outputs=(1,)),
    OpInfo("nanmedian", _median_samples, nondiff_outputs=(1,)),
    OpInfo("median_ties", _median_ties_samples, fn=lambda lib, *a, **k: lib.median(*a, **k),
           skips=_TIES),
    OpInfo("unsafe_split", lambda rng: [
        Sample((A(randn(rng, 5, 3)), 2)),
        Sample((A(randn(rng, 3, 5)), 2, 1), name="dim 1"),
    ], complex=True),
    OpInfo("unsafe_split_with_sizes", lambda rng: [
        Sample((A(randn(rng, 5, 3)), [2, 0, 3])),
        Sample((A(randn(rng, 3, 5)), [4, 1], -1), name="dim -1"),
    ], complex=True),
    OpInfo("unsafe_chunk", lambda rng: [
        Sample((A(randn(rng, 5, 3)), 2)),
        Sample((A(randn(rng, 3, 6)), 3, 1), name="dim 1"),
    ], complex=True),
] + [
    OpInfo(f"scatter_reduce_{r}", _scatter_reduce_samples(r),
           fn=lambda lib, *a, **k: lib.scatter_reduce(*a, **k),
           fwd_ad=r != "prod",
           # prod's double backward is PyTorch's (test_missing_ops2 checks its error case)
           skips={})
    for r in ("sum", "prod", "mean", "amax", "amin")
] + [
    OpInfo(f"index_reduce_{r}", _index_reduce_samples(r),
           fn=lambda lib, *a, **k: lib.index_reduce(*a, **k), fwd_ad=False)  # (none in PyTorch)
    for r in ("prod", "mean", "amax", "amin")
]
