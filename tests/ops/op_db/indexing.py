"""OpInfos of the copies-and-indexing family (see tests/ops/opinfo.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _i64(x):
    return I(np.array(x, dtype=np.int64))


def _mask(rng, *shape):
    m = rng.uniform(size=shape) > 0.5
    m.reshape(-1)[0] = True
    return I(m)


def _method(name):
    return lambda lib, x, *a, **k: getattr(x, name)(*a, **k)


def _setitem(lib, x, key, value):
    y = x.clone()
    y[key] = value
    return y


def _getitem(lib, x, key):
    return x[key]


_NO_INPLACE_FWAD = {"jvp": "forward AD of in-place ops is not in the core yet "
                           "(dispatch._extra_inplace -> forward_ad.push_tangents_inplace)"}

OPS = [
    # ------------------------------------------------------------ cat / stack
    OpInfo("cat", lambda rng: [
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 4, 3))],)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 1))], 1)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 3)), A(randn(rng, 2, 2))], -1)),
        Sample(([A(randn(rng, 3))],), name="one tensor"),
        Sample(([A(randn(rng, 2, 3)), I(np.zeros(0), cast=True)],), name="legacy empty"),
        Sample(([A(randn(rng, 2, 3)), I(np.ones((1, 3), np.int64))],), name="promotion"),
    ], complex=True, aliases=("concat", "concatenate")),
    OpInfo("stack", lambda rng: [
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 3))],)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 3)), A(randn(rng, 2, 3))], 1)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 3))], -1)),
        Sample(([A(randn(rng)), A(randn(rng))],), name="0-d"),
    ], complex=True),
    OpInfo("hstack", lambda rng: [
        Sample(([A(randn(rng, 3)), A(randn(rng, 2))],)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 1))],)),
        Sample(([A(randn(rng)), A(randn(rng, 2))],), name="0-d"),
    ], complex=True),
    OpInfo("vstack", lambda rng: [
        Sample(([A(randn(rng, 3)), A(randn(rng, 3))],)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 3))],)),
        Sample(([A(randn(rng)), A(randn(rng))],), name="0-d"),
    ], complex=True, aliases=("row_stack",)),
    OpInfo("dstack", lambda rng: [
        Sample(([A(randn(rng, 3)), A(randn(rng, 3))],)),
        Sample(([A(randn(rng, 2, 3)), A(randn(rng, 2, 3, 2))],)),
    ], complex=True),
    # ------------------------------------------------------------ repeat / tile / flip / roll
    OpInfo("repeat", lambda rng: [
        Sample((A(randn(rng, 2, 3)), 2, 1)),
        Sample((A(randn(rng, 2, 3)), (2, 1, 3))),
        Sample((A(randn(rng)), 3), name="0-d"),
        Sample((A(randn(rng, 3)), 1)),
        Sample((A(randn(rng, 2, 1)), 1, 0), name="zero repeats"),
    ], fn=_method("repeat"), complex=True),
    OpInfo("tile", lambda rng: [
        Sample((A(randn(rng, 2, 3)), (2,))),
        Sample((A(randn(rng, 2, 3)), (2, 1, 2))),
        Sample((A(randn(rng)), (2, 2)), name="0-d"),
    ], complex=True),
    OpInfo("flip", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)), (0, 2))),
        Sample((A(randn(rng, 2, 3)), (-1,))),
        Sample((A(randn(rng, 2, 3)), ())),
        Sample((A(randn(rng)), (0,)), name="0-d"),
    ], complex=True, aliases=("fliplr", "flipud")),
    OpInfo("roll", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 3, 4)), (1, -2), (0, 1))),
        Sample((A(randn(rng, 3, 4)), 2, 1)),
        Sample((A(randn(rng, 3, 4)), -5, -1)),
        Sample((A(randn(rng)), 1), name="0-d"),
    ], complex=True),
    # ------------------------------------------------------------ gather / scatter
    OpInfo("gather", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _i64([[0, 1], [3, 3], [2, 0]]))),
        Sample((A(randn(rng, 3, 4)), 0, _i64([[0, 1, 2, 0], [2, 2, 1, 0]]))),
        Sample((A(randn(rng, 3, 4)), -1, _i64([[1, 0], [3, 2]])), name="smaller index"),
        Sample((A(randn(rng, 2, 3, 2)), 1, _i64(np.zeros((2, 5, 2)))), name="repeats"),
        Sample((A(randn(rng)), 0, _i64(0)), name="0-d"),
    ], complex=True),
    OpInfo("scatter", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _i64([[0, 2], [1, 3], [3, 0]]), A(randn(rng, 3, 2)))),
        Sample((A(randn(rng, 3, 4)), 0, _i64([[0, 1, 2, 0], [2, 2, 1, 1]]), A(randn(rng, 2, 4)))),
        Sample((A(randn(rng, 3, 4)), 1, _i64([[0, 2], [1, 3]])), {"value": 1.5}, name="value"),
        Sample((A(randn(rng)), 0, _i64(0), A(randn(rng))), name="0-d"),
    ], complex=True, inplace="scatter_"),
    OpInfo("scatter_add", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _i64([[0, 0], [1, 3], [3, 3]]), A(randn(rng, 3, 2)))),
        Sample((A(randn(rng, 3, 4)), 0, _i64([[0, 1, 2, 0], [0, 1, 2, 0]]), A(randn(rng, 2, 4)))),
    ], complex=True, inplace="scatter_add_"),
    OpInfo("take_along_dim", lambda rng: [
        Sample((A(randn(rng, 3, 4)), _i64([[0, 1], [3, 3], [2, 0]]), 1)),
        Sample((A(randn(rng, 3, 4)), _i64([5, 0, 11, 5]))),
        Sample((A(randn(rng, 3, 4)), _i64([[1, 2]]), 1), name="broadcast index"),
        Sample((A(randn(rng, 3, 1)), _i64([[0, 1, 2, 0]]), 0), name="broadcast input"),
    ], complex=True),
    # ------------------------------------------------------------ index_select / index_add
    OpInfo("index_select", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _i64([0, 2, 2]))),
        Sample((A(randn(rng, 3, 4)), 0, _i64(1)), name="0-d index"),
        Sample((A(randn(rng, 3, 4)), -1, _i64([], )), name="empty index"),
        Sample((A(randn(rng)), 0, _i64([0])), name="0-d"),
    ], complex=True),
    OpInfo("index_add", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, _i64([0, 2, 2]), A(randn(rng, 3, 3)))),
        Sample((A(randn(rng, 3, 4)), 0, _i64([2, 0]), A(randn(rng, 2, 4))), {"alpha": 2.5}),
        Sample((A(randn(rng)), 0, _i64([0]), A(randn(rng))), name="0-d"),
    ], complex=True, inplace="index_add_"),
    # ------------------------------------------------------------ masked ops
    OpInfo("masked_fill", lambda rng: [
        Sample((A(randn(rng, 3, 4)), _mask(rng, 3, 4), 1.5)),
        Sample((A(randn(rng, 3, 4)), _mask(rng, 4), -2.0), name="broadcast mask"),
        Sample((A(randn(rng, 4)), _mask(rng, 3, 4), 0.5), name="broadcast self"),
        Sample((A(randn(rng, 3, 4)), _mask(rng, 3, 4), A(randn(rng))), name="tensor value"),
        Sample((A(randn(rng)), I(np.array(True)), 3.0), name="0-d"),
    ], complex=True, inplace="masked_fill_"),
    OpInfo("masked_select", lambda rng: [
        Sample((A(randn(rng, 3, 4)), _mask(rng, 3, 4))),
        Sample((A(randn(rng, 4)), _mask(rng, 3, 4)), name="broadcast self"),
        Sample((A(randn(rng, 3, 4)), _mask(rng, 4)), name="broadcast mask"),
        Sample((A(randn(rng)), I(np.array(True))), name="0-d"),
    ], complex=True),
    # ------------------------------------------------------------ advanced indexing
    OpInfo("getitem_advanced", lambda rng: [
        Sample((A(randn(rng, 3, 4)), ([0, 2, 0],))),
        Sample((A(randn(rng, 3, 4)), (slice(None), [1, 0, 1]))),
        Sample((A(randn(rng, 3, 4)), (_i64([[0, 1], [2, 0]]),)), name="2-d index"),
        Sample((A(randn(rng, 3, 4)), (_mask(rng, 3, 4),)), name="full mask"),
        Sample((A(randn(rng, 3, 4)), (_mask(rng, 3),)), name="row mask"),
        Sample((A(randn(rng, 2, 3, 4)), (0, slice(None), [0, 1])), name="int then slice"),
        Sample((A(randn(rng, 2, 3, 4)), ([0, 1], slice(None), [1, 2])), name="separated"),
        Sample((A(randn(rng, 2, 3, 4)), (slice(None), [0, 1], [1, 3])), name="adjacent"),
        Sample((A(randn(rng, 2, 3, 4)), (Ellipsis, [0, 2])), name="ellipsis"),
        Sample((A(randn(rng, 3, 4)), (None, [0, 1])), name="None"),
        Sample((A(randn(rng, 3, 4)), (slice(1, None), _i64([[0], [3]]))), name="slice + 2-d"),
        Sample((A(randn(rng, 3, 4)), (_i64([0, 1]), _i64([[1], [2]]))), name="broadcast"),
        Sample((A(randn(rng, 3, 4)), ([-1, 0],)), name="negative"),
        Sample((A(randn(rng, 3, 4)), (True,)), name="python bool"),
    ], fn=_getitem, complex=True),
    OpInfo("Tensor.__setitem__", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, A(randn(rng, 4))), name="basic"),
        Sample((A(randn(rng, 3, 4)), slice(0, 2), A(randn(rng, 1, 4))), name="broadcast"),
        Sample((A(randn(rng, 3, 4)), [0, 2], A(randn(rng, 2, 4))), name="list"),
        Sample((A(randn(rng, 3, 4)), (slice(None), [1, 3]), A(randn(rng, 3, 2)))),
        Sample((A(randn(rng, 3, 4)), (0, [0, 1]), A(randn(rng, 2))), name="view + index"),
        Sample((A(randn(rng, 3, 4)), [1, 0], 2.5), name="number"),
        Sample((A(randn(rng, 2, 3, 4)), ([0, 1], slice(None), [1, 2]), A(randn(rng, 2, 3))),
               name="separated"),
        Sample((A(randn(rng, 3, 4)), I(np.array([True, False, True])), A(randn(rng, 4))),
               name="mask"),
    ], fn=_setitem, complex=True, skips=_NO_INPLACE_FWAD),
    OpInfo("index_put", lambda rng: [
        Sample((A(randn(rng, 3, 4)), (_i64([0, 2]),), A(randn(rng, 2, 4)))),
        Sample((A(randn(rng, 3, 4)), (_i64([0, 2, 0]), _i64([1, 1, 1])), A(randn(rng, 3)), True),
               name="accumulate duplicates"),
        Sample((A(randn(rng, 3, 4)), (_mask(rng, 3, 4),), A(randn(rng))), name="mask"),
    ], complex=True, inplace="index_put_"),
    # ------------------------------------------------------------ not differentiable
    OpInfo("nonzero", lambda rng: [
        Sample((I(np.array([[1, 0, 2], [0, 0, 3]])),)),
        Sample((I(np.array([[1, 0, 2], [0, 0, 3]])),), {"as_tuple": True}),
        Sample((A(np.array([0.0, 1.5, 0.0])),)),
        Sample((I(np.array(5)),), name="0-d"),
        Sample((I(np.array(0)),), {"as_tuple": True}, name="0-d zero"),
    ], grad=False, dtypes=("float64",), aliases=("argwhere",)),
    OpInfo("nn.functional.pad", lambda rng: [
        Sample((A(randn(rng, 2, 3)), (1, 2))),
        Sample((A(randn(rng, 2, 3, 4)), (1, 0, 2, 1)), {"value": 2.5}),
        Sample((A(randn(rng, 2, 3, 4)), (-1, 2))),
        Sample((A(randn(rng, 3)), (0, 0)), name="nothing"),
        Sample((A(randn(rng, 2, 3)), (1, 2)), {"mode": "reflect"}),
        Sample((A(randn(rng, 2, 3, 4)), (1, 2, 2, 1)), {"mode": "reflect"}),
        Sample((A(randn(rng, 1, 2, 3, 3, 4)), (1, 1, 2, 0, 1, 2)), {"mode": "reflect"}),
        Sample((A(randn(rng, 2, 4)), (-1, 2)), {"mode": "reflect"}),
        Sample((A(randn(rng, 2, 3)), (3, 1)), {"mode": "replicate"}),
        Sample((A(randn(rng, 2, 3, 4)), (1, 2, 2, 1)), {"mode": "replicate"}),
        Sample((A(randn(rng, 2, 2, 3, 4)), (1, 1, 0, 1, 1, 0)), {"mode": "replicate"}),
        Sample((A(randn(rng, 2, 3)), (1, 2)), {"mode": "circular"}),
        Sample((A(randn(rng, 2, 3, 4)), (1, 2, 3, 1)), {"mode": "circular"}),
        Sample((A(randn(rng, 2, 3, 4)), (-1, 1)), {"mode": "circular"}),
    ], complex=True),
]
