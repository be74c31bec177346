"""OpInfos of the 3-d spatial ops, the *_with_indices pools, max_unpool, lp_pool and
dropout3d (api3d branch; graphgrad/nn/functional/conv*.py, pool.py, pool_more.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _nn(name, samples, **kw):
    return OpInfo("nn.functional." + name, samples, **kw)


def _distinct(rng, *shape):
    """Values with no ties (max pooling picks a unique maximum)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, shape)


# ---------------------------------------------------------------- conv
def _conv3d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 2, 3, 4, 3)), A(randn(rng, 3, 2, 2, 2, 2)))),
        Sample((A(randn(rng, 1, 4, 4, 3, 5)), A(randn(rng, 4, 2, 3, 2, 2)), A(randn(rng, 4))),
               {"stride": (2, 1, 2), "padding": (1, 0, 1), "dilation": (1, 2, 1),
                "groups": 2}, name="bias stride pad dilation groups"),
        Sample((A(randn(rng, 2, 3, 3, 4)), A(randn(rng, 2, 2, 2, 3, 2))), {"padding": "same"},
               name="unbatched same"),
    ]


def _conv_transpose3d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 3, 2, 3, 2)), A(randn(rng, 3, 2, 2, 2, 2)))),
        Sample((A(randn(rng, 1, 4, 2, 3, 2)), A(randn(rng, 4, 1, 2, 3, 2)), A(randn(rng, 2))),
               {"stride": (2, 1, 2), "padding": (1, 0, 0), "output_padding": (1, 0, 1),
                "groups": 2, "dilation": (1, 2, 1)},
               name="bias stride pad output_padding groups dilation"),
        Sample((A(randn(rng, 2, 2, 3, 2)), A(randn(rng, 2, 2, 2, 2, 2))), {"padding": 1},
               name="unbatched"),
        # output_padding >= stride (allowed below the dilation): the input gradient's
        # convolution reaches past the input, cropped
        Sample((A(randn(rng, 1, 2, 2, 3, 2)), A(randn(rng, 2, 2, 2, 2, 2))),
               {"output_padding": (1, 0, 1), "dilation": 2}, name="output_padding >= stride"),
    ]


def _convolution_samples(rng):
    return [
        Sample((A(randn(rng, 1, 2, 3, 4, 3)), A(randn(rng, 3, 2, 2, 2, 2)), A(randn(rng, 3)),
                [1, 1, 1], [1, 0, 0], [1, 1, 1], False, [0, 0, 0], 1), name="3-d"),
        Sample((A(randn(rng, 1, 3, 3, 4)), A(randn(rng, 3, 2, 2, 2)), None,
                [2, 1], [0, 1], [1, 1], True, [1, 0], 1), name="2-d transposed"),
        Sample((A(randn(rng, 2, 4, 5)), A(randn(rng, 4, 2, 3)), None,
                [1], [0], [1], False, [0], 2), name="1-d groups"),
        Sample((A(randn(rng, 2, 2, 5)), A(randn(rng, 2, 3, 3)), A(randn(rng, 3)),
                [1], [1], [2], True, [1], 1), name="1-d transposed, output_padding >= stride"),
    ]


# ---------------------------------------------------------------- pools
def _max_pool3d_samples(rng):
    return [
        Sample((A(_distinct(rng, 2, 2, 4, 4, 4)), 2)),
        Sample((A(_distinct(rng, 1, 2, 5, 4, 5)), (3, 2, 2)),
               {"stride": (2, 1, 2), "padding": 1}, name="stride pad"),
        Sample((A(_distinct(rng, 1, 1, 5, 5, 5)), 3), {"stride": 2, "ceil_mode": True},
               name="ceil_mode, argmax path"),
        Sample((A(_distinct(rng, 1, 2, 6, 5, 5)), 2), {"dilation": (2, 1, 2), "padding": 1,
                                                       "ceil_mode": True}, name="dilation"),
        Sample((A(_distinct(rng, 2, 4, 3, 4)), 2), {"stride": 1, "return_indices": True},
               name="overlapping, indices, unbatched"),
        Sample((A(_distinct(rng, 1, 2, 5, 4, 7)), (2, 1, 3)), {"return_indices": True},
               name="tiling, cropped, indices"),
    ]


def _avg_pool3d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 2, 4, 4, 4)), 2)),
        Sample((A(randn(rng, 1, 2, 5, 4, 5)), (3, 2, 2)), {"stride": (2, 1, 2), "padding": 1},
               name="stride pad"),
        Sample((A(randn(rng, 1, 1, 5, 4, 5)), 3), {"stride": 2, "padding": 1,
                                                   "count_include_pad": False,
                                                   "ceil_mode": True},
               name="exclude pad ceil_mode"),
        Sample((A(randn(rng, 2, 4, 3, 4)), 2), {"stride": 1, "divisor_override": 3},
               name="divisor_override, unbatched"),
        Sample((A(randn(rng, 1, 2, 5, 4, 7)), (2, 1, 3)), name="tiling, cropped"),
    ]


def _adaptive_max3d_samples(rng):
    return [Sample((A(_distinct(rng, 2, 2, 5, 4, 5)), 3)),
            Sample((A(_distinct(rng, 2, 4, 3, 5)), (2, 3, 2)), {"return_indices": True},
                   name="unbatched indices"),
            Sample((A(_distinct(rng, 1, 2, 3, 4, 5)), (None, 2, 3)), name="None")]


def _with_indices(k):
    def samples(rng):
        shape = (2, 3) + (5,) * k
        return [Sample((A(_distinct(rng, *shape)), 2)),
                Sample((A(_distinct(rng, *shape[1:])), 3), {"stride": 2, "padding": 1},
                       name="unbatched stride pad")]
    return samples


def _adaptive_with_indices(k):
    def samples(rng):
        return [Sample((A(_distinct(rng, *((2, 3) + (5,) * k))), 3)),
                Sample((A(_distinct(rng, *((3,) + (4,) * k))), 2), name="unbatched")]
    return samples


# ---------------------------------------------------------------- max_unpool
def _unpool_indices(rng, shape, out_sp):
    """Distinct flat positions of the ``out_sp`` plane, one per element of ``shape``."""
    k = len(out_sp)
    planes = int(np.prod(shape[:len(shape) - k]))
    per = int(np.prod(shape[len(shape) - k:]))
    total = int(np.prod(out_sp))
    idx = np.stack([rng.permutation(total)[:per] for _ in range(planes)])
    return I(idx.reshape(shape).astype(np.int64))


def _max_unpool_samples(k):
    def samples(rng):
        s_in = (2, 2) + (2,) * k
        s_unb = (3,) + (3,) * k
        return [
            Sample((A(randn(rng, *s_in)), _unpool_indices(rng, s_in, (4,) * k), 2)),
            Sample((A(randn(rng, *s_unb)), _unpool_indices(rng, s_unb, (6,) * k), 3),
                   {"stride": 2, "padding": 1, "output_size": (6,) * k},
                   name="unbatched stride pad output_size"),
        ]
    return samples


# ---------------------------------------------------------------- lp_pool
def _lp_pool_samples(k):
    def samples(rng):
        shape = (2, 2) + (4,) * k
        return [
            Sample((A(positive(rng, *shape)), 2, 2)),
            Sample((A(positive(rng, *shape[1:])), 1.5, 3), {"stride": 1},
                   name="p=1.5 stride unbatched"),
            Sample((A(positive(rng, *shape)), 3, 2), {"ceil_mode": True}, name="p=3 ceil_mode"),
        ]
    return samples


OPS = [
    _nn("conv3d", _conv3d_samples, rtol=1e-4, atol=2e-5),
    _nn("conv_transpose3d", _conv_transpose3d_samples, rtol=1e-4, atol=2e-5),
    OpInfo("convolution", _convolution_samples, rtol=1e-4, atol=2e-5),
    _nn("max_pool3d", _max_pool3d_samples, nondiff_outputs=(1,)),
    _nn("avg_pool3d", _avg_pool3d_samples),
    _nn("adaptive_max_pool3d", _adaptive_max3d_samples, nondiff_outputs=(1,)),
    _nn("max_pool1d_with_indices", _with_indices(1), nondiff_outputs=(1,)),
    _nn("max_pool2d_with_indices", _with_indices(2), nondiff_outputs=(1,)),
    _nn("max_pool3d_with_indices", _with_indices(3), nondiff_outputs=(1,)),
    _nn("adaptive_max_pool1d_with_indices", _adaptive_with_indices(1), nondiff_outputs=(1,)),
    _nn("adaptive_max_pool2d_with_indices", _adaptive_with_indices(2), nondiff_outputs=(1,)),
    _nn("adaptive_max_pool3d_with_indices", _adaptive_with_indices(3), nondiff_outputs=(1,)),
    _nn("max_unpool1d", _max_unpool_samples(1)),
    _nn("max_unpool2d", _max_unpool_samples(2)),
    _nn("max_unpool3d", _max_unpool_samples(3)),
    _nn("lp_pool1d", _lp_pool_samples(1)),
    _nn("lp_pool2d", _lp_pool_samples(2)),
    _nn("lp_pool3d", _lp_pool_samples(3)),
    _nn("dropout3d", lambda rng: [
        Sample((A(randn(rng, 2, 3, 2, 2, 2)),), {"training": False}, name="eval"),
        Sample((A(randn(rng, 3, 2, 2, 2)), 1.0), name="p=1 unbatched")]),
]
