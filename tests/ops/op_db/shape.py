"""OpInfos of the shape family (see tests/ops/opinfo.py): views and multi-output views."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _method(name):
    return lambda lib, x, *a, **k: getattr(x, name)(*a, **k)


OPS = [
    OpInfo("flatten", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)),)),
        Sample((A(randn(rng, 2, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), 0, 1)),
        Sample((A(randn(rng, 2, 3, 4)), -2, -1)),
        Sample((A(randn(rng)),), name="0-d"),
        Sample((A(randn(rng, 3, 1)),), name="size-1 dim"),
    ], complex=True),
    OpInfo("flatten_noncontiguous", lambda rng: [Sample((A(randn(rng, 3, 4, 2)),))],
           fn=lambda lib, x: x.transpose(0, 1).flatten(1), complex=True),
    OpInfo("ravel", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)),)),
        Sample((A(randn(rng)),), name="0-d"),
    ], complex=True),
    OpInfo("ravel_noncontiguous", lambda rng: [Sample((A(randn(rng, 3, 4, 2)),))],
           fn=lambda lib, x: x.transpose(0, 2).ravel(), complex=True),
    OpInfo("unflatten", lambda rng: [
        Sample((A(randn(rng, 3, 6)), 1, (2, 3))),
        Sample((A(randn(rng, 3, 6)), -1, (-1, 2))),
        Sample((A(randn(rng, 4)), 0, (2, 1, 2))),
        Sample((A(randn(rng, 4, 3)), 0, (4,)), name="size-1 split"),
    ], complex=True),
    OpInfo("unflatten_noncontiguous", lambda rng: [Sample((A(randn(rng, 4, 6)),))],
           fn=lambda lib, x: x.t().unflatten(1, (2, 2)), complex=True),
    OpInfo("permute", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)), (2, 0, 1))),
        Sample((A(randn(rng, 2, 3, 4)), (-1, -3, -2))),
        Sample((A(randn(rng, 3, 4)), (1, 0))),
        Sample((A(randn(rng)), ()), name="0-d"),
    ], complex=True),
    OpInfo("Tensor.permute", lambda rng: [Sample((A(randn(rng, 2, 3, 4)), 1, 2, 0))],
           complex=True),
    OpInfo("movedim", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)), 0, 2)),
        Sample((A(randn(rng, 2, 3, 4)), (0, 1), (2, 0))),
        Sample((A(randn(rng, 2, 3, 4)), -1, 0)),
        Sample((A(randn(rng, 2, 3)), 1, 1), name="no-op"),
    ], complex=True, aliases=("moveaxis",)),
    OpInfo("expand_as", lambda rng: [
        Sample((A(randn(rng, 3, 1)), I(np.zeros((2, 3, 4))))),
        Sample((A(randn(rng)), I(np.zeros((2,)))), name="0-d"),
        Sample((A(randn(rng, 4)), I(np.zeros((3, 4))))),
    ], fn=_method("expand_as"), complex=True),
    OpInfo("broadcast_to", lambda rng: [
        Sample((A(randn(rng, 3, 1)), (2, 3, 4))),
        Sample((A(randn(rng)), (3,)), name="0-d"),
        Sample((A(randn(rng, 1, 4)), (-1, 4))),
    ], complex=True),
    OpInfo("narrow", lambda rng: [
        Sample((A(randn(rng, 4, 5)), 1, 1, 3)),
        Sample((A(randn(rng, 4, 5)), -1, 0, 2)),
        Sample((A(randn(rng, 4, 5)), 0, -2, 2)),
        Sample((A(randn(rng, 4, 5)), 0, 1, 0), name="empty"),
    ], complex=True),
    OpInfo("select", lambda rng: [
        Sample((A(randn(rng, 3, 4)), 1, 2)),
        Sample((A(randn(rng, 3, 4)), 0, -1)),
        Sample((A(randn(rng, 3)), 0, 1), name="to 0-d"),
        Sample((A(randn(rng, 2, 3, 4)), -2, 0)),
    ], complex=True),
    OpInfo("unbind", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)),
        Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), -1)),
        Sample((A(randn(rng, 1, 3)),), name="one output"),
        Sample((A(randn(rng, 3)),), name="to 0-d"),
    ], complex=True),
    OpInfo("unbind_partial", lambda rng: [Sample((A(randn(rng, 3, 4)),))],
           fn=lambda lib, x: x.unbind(1)[2], complex=True),
    OpInfo("split", lambda rng: [
        Sample((A(randn(rng, 5, 4)), 2)),
        Sample((A(randn(rng, 5, 4)), [1, 3, 1])),
        Sample((A(randn(rng, 5, 4)), 3, 1)),
        Sample((A(randn(rng, 4, 6)), (2, 4), -1)),
        Sample((A(randn(rng, 4, 6)), 6, 1), name="one piece"),
        Sample((A(randn(rng, 4, 2)), [0, 2], 1), name="empty piece"),
    ], complex=True, aliases=("split_with_sizes",)),
    OpInfo("split_partial", lambda rng: [Sample((A(randn(rng, 5, 4)),))],
           fn=lambda lib, x: x.split(2)[1], complex=True),
    OpInfo("chunk", lambda rng: [
        Sample((A(randn(rng, 5, 4)), 2)),
        Sample((A(randn(rng, 6, 4)), 4)),
        Sample((A(randn(rng, 5, 4)), 3, 1)),
        Sample((A(randn(rng, 3)), 1)),
    ], complex=True),
    OpInfo("as_strided", lambda rng: [
        Sample((A(randn(rng, 3, 4)), (2, 2), (1, 2))),
        Sample((A(randn(rng, 3, 4)), (3,), (4,), 1)),
        Sample((A(randn(rng, 3, 4)), (2, 3), (1, 1)), name="overlapping"),
        Sample((A(randn(rng, 3, 4)), (), (), 5), name="0-d"),
        Sample((A(randn(rng, 6)), (2, 3), (3, 1))),
    ], complex=True),
    OpInfo("Tensor.unfold", lambda rng: [
        Sample((A(randn(rng, 3, 7)), 1, 3, 2)),
        Sample((A(randn(rng, 3, 7)), -1, 3, 1), name="overlapping"),
        Sample((A(randn(rng, 4, 5)), 0, 2, 3), name="gaps"),
        Sample((A(randn(rng, 10)), 0, 6, 1), name="more places than windows"),
        Sample((A(randn(rng, 5)), 0, 5, 1), name="one window"),
        Sample((A(randn(rng, 2, 4)), 1, 0, 1), name="empty windows"),
        Sample((A(randn(rng)), 0, 1, 3), name="0-d"),
    ], complex=True),
    OpInfo("unfold_noncontiguous", lambda rng: [Sample((A(randn(rng, 5, 3)),))],
           fn=lambda lib, x: x.t().unfold(1, 2, 1), complex=True),
    OpInfo("unfold_inplace", lambda rng: [Sample((A(randn(rng, 3, 6)), A(randn(rng, 3, 3))))],
           fn=lambda lib, x, y: _inplace_unfold(x, y),
           skips={"jvp": "forward AD of in-place ops is not in the core yet "
                         "(dispatch._extra_inplace -> forward_ad.push_tangents_inplace)"}),
    OpInfo("view_as_real", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng)),), name="0-d"),
    ], dtypes=(), complex=True),
    OpInfo("view_as_complex", lambda rng: [
        Sample((A(randn(rng, 3, 2)),)), Sample((A(randn(rng, 2)),), name="to 0-d"),
        Sample((A(randn(rng, 2, 3, 2)),)),
    ], skips={"fd": "the harness's finite-difference loss is real-valued only; covered by "
                    "view_as_complex_roundtrip"}),
    OpInfo("view_as_complex_roundtrip", lambda rng: [Sample((A(randn(rng, 3, 2)),))],
           fn=lambda lib, x: lib.view_as_real(lib.view_as_complex(x) * (1.5 - 0.5j))),
    OpInfo("view_as_real_noncontiguous", lambda rng: [Sample((A(randn(rng, 3, 4)),))],
           fn=lambda lib, x: lib.view_as_real(x.t()), dtypes=(), complex=True),
    OpInfo("inplace_on_new_views", lambda rng: [Sample((A(randn(rng, 3, 4)), A(randn(rng, 4))))],
           fn=lambda lib, x, y: _inplace_views(lib, x, y), complex=True,
           skips={"jvp": "forward AD of in-place ops is not in the core yet "
                         "(dispatch._extra_inplace -> forward_ad.push_tangents_inplace)"}),
]


def _inplace_unfold(x, y):
    """In-place through an unfold view whose windows do not overlap (CopySlices)."""
    z = x * 1
    z.unfold(1, 2, 2)[..., 1].mul_(y)
    return z


def _inplace_views(lib, x, y):
    """In-place ops through permute / movedim / as_strided views (CopySlices).  (PyTorch
    forbids in-place on the outputs of unbind/split/chunk in grad mode.)"""
    z = x * 1
    z.permute(1, 0)[1].mul_(y[:3])
    z.movedim(0, 1)[3].add_(y[1:])
    z.as_strided((2,), (5,), 1).mul_(y[1:3])
    return z
