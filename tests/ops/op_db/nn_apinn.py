"""OpInfos of embedding_bag, local_response_norm and channel_shuffle (the apinn branch)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn


def _nn(name, samples, **kw):
    return OpInfo("nn.functional." + name, samples, **kw)


def _ix(*v):
    return I(np.array(v, np.int64))


def _bag_samples(rng):
    idx = _ix(1, 2, 4, 5, 4, 3, 2, 9)
    return [
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4))),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4)), {"mode": "sum"}, name="sum"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4)), {"mode": "max"}, name="max"),
        Sample((I(np.array([[1, 2, 4], [4, 3, 3]])), A(randn(rng, 6, 2))), name="2-d input"),
        Sample((I(np.array([[1, 2, 4], [4, 3, 3]])), A(randn(rng, 6, 2))), {"mode": "max"},
               name="2-d input max"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 0, 3, 8)), {"mode": "max"},
               name="empty bags max"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 0, 3, 8)), {"mode": "mean"},
               name="empty bags mean"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 2, 8)), {"include_last_offset": True,
                                                            "mode": "sum"},
               name="include_last_offset"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4)), {"padding_idx": 4},
               name="padding_idx mean"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4, 6)), {"padding_idx": -8, "mode": "max"},
               name="padding_idx max"),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4, 6)), {"padding_idx": 2, "mode": "sum"},
               name="padding_idx sum"),
        Sample((I(np.array([3, 1, 3], np.int32)), A(randn(rng, 5, 2)),
                I(np.array([0, 1], np.int32))), name="int32"),
        Sample((I(np.zeros(0, np.int64)), A(randn(rng, 4, 2)), _ix(0, 0)), name="no indices"),
    ]


def _bag_psw_samples(rng):
    idx = _ix(1, 2, 4, 5, 4, 3, 2, 9)
    return [
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4)),
               {"mode": "sum", "per_sample_weights": A(randn(rng, 8))}),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 3, 3)),
               {"mode": "sum", "per_sample_weights": A(randn(rng, 8)), "padding_idx": 4},
               name="padding_idx"),
        Sample((I(np.array([[1, 2, 4], [4, 3, 3]])), A(randn(rng, 6, 2))),
               {"mode": "sum", "per_sample_weights": A(randn(rng, 2, 3))}, name="2-d input"),
    ]


def _bag_freq_samples(rng):
    idx = _ix(1, 2, 4, 5, 4, 3, 2, 9, 2)
    return [
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4)), {"scale_grad_by_freq": True}),
        Sample((idx, A(randn(rng, 10, 3)), _ix(0, 4)),
               {"scale_grad_by_freq": True, "mode": "sum", "padding_idx": 2},
               name="sum, padding_idx"),
    ]


_NO_FWD = "PyTorch has no forward AD for _embedding_bag (NotImplementedError; so has graphgrad)"
_NOT_A_DERIVATIVE = "scale_grad_by_freq divides the gradient by the index counts (by definition)"
_TORCH_FREQ_BUG = ("PyTorch 2.13's CPU embedding_bag backward divides by the wrong index counts "
                   "(pytorch/pytorch#190063); checked against embedding + sum in "
                   "tests/nn/test_layers_embedding_bag.py")

OPS = [
    _nn("embedding_bag", _bag_samples, fwd_ad=False, nondiff_outputs=()),
    OpInfo("nn.functional.embedding_bag(per_sample_weights)", _bag_psw_samples,
           fn=lambda lib, *a, **k: lib.nn.functional.embedding_bag(*a, **k), fwd_ad=False,
           skips={"gradgrad": "PyTorch's per_sample_weights gradient has no derivative "
                              "(NotImplemented node); graphgrad's has, checked by "
                              "tests/nn/test_layers_embedding_bag.py"}),
    OpInfo("nn.functional.embedding_bag(scale_grad_by_freq)", _bag_freq_samples,
           fn=lambda lib, *a, **k: lib.nn.functional.embedding_bag(*a, **k), fwd_ad=False,
           skips={"fd": _NOT_A_DERIVATIVE, "vjp": _TORCH_FREQ_BUG, "gradgrad": _TORCH_FREQ_BUG}),
]


def _lrn_samples(rng):
    return [
        Sample((A(randn(rng, 2, 6, 3)), 3)),
        Sample((A(randn(rng, 2, 7, 3)), 4), {"alpha": 0.5, "beta": 0.9, "k": 2.0},
               name="even size"),
        Sample((A(randn(rng, 1, 2, 5)), 5), name="size > C"),
    ]


def _lrn_nd_samples(rng):
    return [
        Sample((A(randn(rng, 2, 5, 3, 4)), 2), {"alpha": 0.5, "beta": 0.9, "k": 2.0},
               name="4-d, even size"),
        Sample((A(randn(rng, 1, 4, 2, 2, 3)), 5), {"alpha": 1.0}, name="5-d, size > C"),
        Sample((A(randn(rng, 2, 3, 2, 1, 2, 2)), 1), name="6-d, size 1"),
    ]


def _shuffle_samples(rng):
    return [
        Sample((A(randn(rng, 2, 6, 3)), 3)),
        Sample((A(randn(rng, 1, 8, 2, 2)), 2), name="4-d"),
        Sample((A(randn(rng, 2, 4, 1, 2, 1)), 4), name="5-d, groups = C"),
        Sample((A(randn(rng, 2, 5, 3)), 1), name="groups 1"),
        Sample((A(randn(rng, 0, 6, 2)), 3), name="empty batch"),
    ]


OPS += [
    _nn("local_response_norm", _lrn_samples),
    OpInfo("nn.functional.local_response_norm(4-d and more)", _lrn_nd_samples,
           fn=lambda lib, *a, **k: lib.nn.functional.local_response_norm(*a, **k)),
    _nn("channel_shuffle", _shuffle_samples,
        aliases=("channel_shuffle", "native_channel_shuffle")),
]
