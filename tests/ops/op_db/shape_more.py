"""OpInfos of the ops-shape family (see tests/ops/opinfo.py): meshgrid, broadcast_tensors,
tensor_split and hsplit/vsplit/dsplit, column_stack, repeat_interleave, cartesian_prod,
combinations, diagflat, sum_to_size (composites), and the table ops rot90, take, put,
index_copy, index_fill, masked_scatter, select/slice/diagonal_scatter, narrow_copy."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn  # noqa: F401


def _method(name):
    return lambda lib, x, *a, **k: getattr(x, name)(*a, **k)


def _ix(*v):
    return I(np.array(v, dtype=np.int64))


OPS = [
    OpInfo("meshgrid", lambda rng: [
        Sample((A(randn(rng, 3)), A(randn(rng, 2))), {"indexing": "ij"}),
        Sample((A(randn(rng, 3)), A(randn(rng, 2)), A(randn(rng, 4))), {"indexing": "xy"}),
        Sample((A(randn(rng)), A(randn(rng, 2))), {"indexing": "xy"}, name="0-d"),
        Sample((A(randn(rng, 3)),), {"indexing": "ij"}, name="one"),
    ], complex=True),
    OpInfo("broadcast_tensors", lambda rng: [
        Sample((A(randn(rng, 3, 1)), A(randn(rng, 4)))),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 3)), A(randn(rng)))),
    ], complex=True),
    OpInfo("tensor_split", lambda rng: [
        Sample((A(randn(rng, 7, 3)), 3)),
        Sample((A(randn(rng, 3, 5)), [1, 3], 1)),
        Sample((A(randn(rng, 3, 4)), [3, 1, 10], -1), name="unordered indices"),
        Sample((A(randn(rng, 3, 4)), I(np.array(2)), 1), name="tensor sections"),
        Sample((A(randn(rng, 3, 4)), _ix(1, 2), 1), name="tensor indices"),
        Sample((A(randn(rng, 2, 4)), 5, 0), name="more sections than rows"),
    ], complex=True, aliases=("Tensor.tensor_split",)),
    OpInfo("hsplit", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 2)), Sample((A(randn(rng, 6)), [2, 5])),
    ], aliases=("Tensor.hsplit",)),
    OpInfo("vsplit", lambda rng: [
        Sample((A(randn(rng, 4, 3)), 2)), Sample((A(randn(rng, 4, 3)), [1])),
    ], aliases=("Tensor.vsplit",)),
    OpInfo("dsplit", lambda rng: [
        Sample((A(randn(rng, 2, 1, 4)), 2)), Sample((A(randn(rng, 2, 1, 4)), [3])),
    ], aliases=("Tensor.dsplit",)),
    OpInfo("column_stack", lambda rng: [
        Sample(([A(randn(rng, 3)), A(randn(rng, 3, 2)), A(randn(rng, 3))],)),
        Sample(([A(randn(rng)), A(randn(rng, 1, 2))],), name="0-d"),
    ], complex=True),
    OpInfo("repeat_interleave", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 2, 0)),
        Sample((A(randn(rng, 3, 4)), 3, -1)),
        Sample((A(randn(rng, 2, 3)), 2), name="dim None"),
        Sample((A(randn(rng)), 3), name="0-d"),
        Sample((A(randn(rng, 3, 4)), _ix(1, 2, 0), 0), name="tensor repeats"),
        Sample((A(randn(rng, 3, 2)), _ix(2), 1), name="one-element tensor"),
        Sample((A(randn(rng, 3, 2)), 2, 1), {"output_size": 4}, name="output_size"),
    ], complex=True, aliases=("Tensor.repeat_interleave",)),
    OpInfo("cartesian_prod", lambda rng: [
        Sample((A(randn(rng, 3)), A(randn(rng, 2)))),
        Sample((A(randn(rng, 2)), A(randn(rng, 2)), A(randn(rng, 3)))),
    ], complex=True),
    OpInfo("combinations", lambda rng: [
        Sample((A(randn(rng, 4)),)),
        Sample((A(randn(rng, 4)), 3)),
        Sample((A(randn(rng, 3)), 2, True), name="with replacement"),
    ], complex=True),
    OpInfo("diagflat", lambda rng: [
        Sample((A(randn(rng, 3)),)), Sample((A(randn(rng, 2, 2)), 1)),
        Sample((A(randn(rng, 3)), -2)),
    ], complex=True, aliases=("Tensor.diagflat",)),
    OpInfo("Tensor.sum_to_size", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, 4)),
        Sample((A(randn(rng, 2, 3, 4)), (3, 1))),
        Sample((A(randn(rng, 2, 3)), (2, 3)), name="same size"),
    ], complex=True),
]


def _mask(*shape, seed=0):
    return I(np.random.default_rng(seed).random(shape) > 0.4)


OPS += [
    OpInfo("select_scatter", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 4)), 0, 1)),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3)), -1, -1)),
        Sample((A(randn(rng, 3)), A(randn(rng)), 0, 2), name="to 0-d src"),
    ], aliases=("Tensor.select_scatter",)),  # (PyTorch: no complex autograd)
    OpInfo("slice_scatter", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 2)), 1, 0, 4, 2)),
        Sample((A(randn(rng, 5, 2)), A(randn(rng, 2, 2))), {"start": -2}),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4))), {"dim": 1}, name="whole"),
    ], aliases=("Tensor.slice_scatter",)),  # (PyTorch: no complex autograd)
    OpInfo("diagonal_scatter", lambda rng: [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 4, 1)), -1, 0, 1)),
    ], complex=True, aliases=("Tensor.diagonal_scatter",)),
    OpInfo("narrow_copy", lambda rng: [
        Sample((A(randn(rng, 4, 5)), 1, 1, 3)),
        Sample((A(randn(rng, 4, 5)), 0, 2, 2)),   # (PyTorch's backward fails for start < 0)
    ], complex=True, aliases=("Tensor.narrow_copy",)),
    OpInfo("rot90", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)),
        Sample((A(randn(rng, 3, 4)), 2)),
        Sample((A(randn(rng, 3, 4)), -1, (1, 0))),
        Sample((A(randn(rng, 2, 3, 4)), 3, (0, 2))),
        Sample((A(randn(rng, 3, 4)), 4), name="k=4"),
    ], complex=True, aliases=("Tensor.rot90",)),
    OpInfo("take", lambda rng: [
        Sample((A(randn(rng, 3, 4)), _ix(0, 5, 11, 5))),
        Sample((A(randn(rng, 3, 4)), I(np.array([[1, -1], [2, 3]], dtype=np.int64)))),
        Sample((A(randn(rng)), _ix(0, 0)), name="0-d"),
        Sample((A(randn(rng, 3)), I(np.array(1))), name="0-d index"),
    ], complex=True, aliases=("Tensor.take",)),
    OpInfo("put", lambda rng: [
        Sample((A(randn(rng, 3, 4)), _ix(0, 5, 11), A(randn(rng, 3)))),
        Sample((A(randn(rng, 3, 4)), _ix(1, -2), A(randn(rng, 2, 1)))),
        Sample((A(randn(rng, 3, 4)), _ix(1, 1, 7), A(randn(rng, 3)), True), name="accumulate"),
    ], complex=True, inplace="put_", aliases=("Tensor.put",)),
    OpInfo("index_copy", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _ix(0, 2), A(randn(rng, 3, 2)))),
        Sample((A(randn(rng, 3, 4)), 0, _ix(2), A(randn(rng, 1, 4)))),
        Sample((A(randn(rng, 3)), -1, _ix(1, 0), A(randn(rng, 2)))),
    ], complex=True, inplace="index_copy_", aliases=("Tensor.index_copy",)),
    OpInfo("index_fill", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _ix(0, 2), -1.5)),
        Sample((A(randn(rng, 3, 4)), 0, _ix(2, 2), 2.0)),
        Sample((A(randn(rng, 3, 4)), 1, _ix(0, 2, 0), A(randn(rng))), name="tensor value"),
    ], complex=True, inplace="index_fill_", aliases=("Tensor.index_fill",)),
    OpInfo("masked_scatter", lambda rng: [
        Sample((A(randn(rng, 3, 4)), _mask(3, 4), A(randn(rng, 12)))),
        Sample((A(randn(rng, 3, 4)), _mask(4, seed=1), A(randn(rng, 4, 4)))),
        Sample((A(randn(rng, 4)), _mask(3, 4, seed=2), A(randn(rng, 3, 5))), name="self grows"),
    ], complex=True, inplace="masked_scatter_", aliases=("Tensor.masked_scatter",)),
]
OPS += [
    OpInfo("block_diag", lambda rng: [
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 4)))),
        Sample((A(randn(rng, 2, 2)), A(randn(rng)), A(randn(rng, 1, 3)), A(randn(rng, 3)))),
        Sample((A(randn(rng, 2, 0)), A(randn(rng, 1, 2))), name="empty block"),
    ], complex=True),
]
