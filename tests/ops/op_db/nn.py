"""OpInfos of the nn family (see tests/ops/opinfo.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _away(x, eps=0.15):
    """Keep values away from 0 (kinks of relu-like functions)."""
    return np.where(np.abs(x) < eps, np.sign(x + 1e-12) * eps * 2, x)


def _unary(rng, domain=_away, **kwargs):
    d = domain
    return [Sample((A(d(randn(rng, 3, 4))),), dict(kwargs)),
            Sample((A(d(randn(rng))),), dict(kwargs), name="0-d"),
            Sample((A(d(randn(rng, 1, 5))),), dict(kwargs), name="size-1 dim")]


def _nn(name, samples, **kw):
    return OpInfo("nn.functional." + name, samples, **kw)


def _probs(rng, *shape, axis=1):
    e = np.exp(randn(rng, *shape))
    return e / e.sum(axis=axis, keepdims=True)


def _logp(rng, *shape):
    x = randn(rng, *shape)
    axis = 0 if len(shape) == 1 else 1
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def _distinct(rng, *shape):
    """Values with no ties (max_pool2d picks a unique maximum)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, shape)


def _dtype_fn(fname):
    def fn(lib, x, *args, dtype=None, **kw):
        f = getattr(lib.nn.functional, fname)
        return f(x, *args, dtype=None if dtype is None else getattr(lib, dtype), **kw)
    return fn


def _softmax_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), 1)), Sample((A(randn(rng, 3, 4)), 0)),
            Sample((A(randn(rng, 2, 3, 4)), -1)), Sample((A(randn(rng, 2, 3, 4)), 1)),
            Sample((A(randn(rng)), 0), name="0-d"), Sample((A(randn(rng, 5)), 0)),
            Sample((A(randn(rng, 1, 4)), 1), name="size-1"),
            Sample((A(randn(rng, 3, 4) * 30),), {"dim": 1}, name="large values"),
            Sample((A(randn(rng, 3, 4)), 1), {"dtype": "float64"}, name="dtype")]


def _loss_pair(rng, shape_t=None, **kw):
    shape_t = shape_t or (3, 4)
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, *shape_t))), dict(kw))]


def _regression_samples(rng, extra=()):
    out = []
    for red in ("mean", "sum", "none"):
        out.append(Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4))), {"reduction": red}))
    out.append(Sample((A(randn(rng)), A(randn(rng))), name="0-d"))
    out.append(Sample((A(randn(rng, 2, 3)), A(randn(rng, 2, 3))),
                      {"weight": A(positive(rng, 2, 3))}, name="weight"))
    out.append(Sample((A(randn(rng, 2, 3)), A(randn(rng, 2, 3))),
                      {"weight": A(positive(rng, 2, 3)), "reduction": "none"}, name="weight"))
    out.extend(extra)
    return out


def _smooth_l1_samples(rng):
    def pair(*shape):
        x = randn(rng, *shape)
        d = rng.choice([-1, 1], shape) * rng.uniform(0.1, 2.5, shape)
        d = np.where(np.abs(np.abs(d) - 1.0) < 0.1, d * 1.3, d)   # keep |d| away from beta
        return x, x - d
    out = []
    for red in ("mean", "sum", "none"):
        x, y = pair(3, 4)
        out.append(Sample((A(x), A(y)), {"reduction": red}))
    x, y = pair(3, 4)
    out.append(Sample((A(x), A(y)), {"beta": 1.0}, name="beta=1"))
    x, y = pair(2, 3)
    out.append(Sample((A(x * 3), A(y * 3)), {"beta": 2.6, "reduction": "sum"}, name="beta"))
    return out


def _ce_samples(rng):
    w = I(positive(rng, 5), cast=True)
    t = I(np.array([0, 2, 4, 1]))
    t_ign = I(np.array([0, -100, 4, 1]))
    out = [
        Sample((A(randn(rng, 4, 5)), t)),
        Sample((A(randn(rng, 4, 5)), t), {"reduction": "sum"}),
        Sample((A(randn(rng, 4, 5)), t), {"reduction": "none"}),
        Sample((A(randn(rng, 4, 5)), t), {"weight": w}, name="weight"),
        Sample((A(randn(rng, 4, 5)), t), {"weight": w, "reduction": "none"}, name="weight"),
        Sample((A(randn(rng, 4, 5)), t_ign), name="ignore_index"),
        Sample((A(randn(rng, 4, 5)), t), {"ignore_index": 2, "weight": w}, name="ignore 2"),
        Sample((A(randn(rng, 4, 5)), t_ign), {"label_smoothing": 0.2}, name="smoothing"),
        Sample((A(randn(rng, 4, 5)), t_ign), {"label_smoothing": 0.2, "weight": w},
               name="smoothing+weight"),
        Sample((A(randn(rng, 4, 5)), t_ign), {"label_smoothing": 0.1, "reduction": "none"},
               name="smoothing none"),
        Sample((A(randn(rng, 4, 5)), t), {"label_smoothing": 0.1, "reduction": "sum",
                                          "weight": w}, name="smoothing sum"),
        Sample((A(randn(rng, 2, 5, 3)), I(np.array([[0, 4, 2], [1, 1, 3]]))), name="3-d"),
        Sample((A(randn(rng, 2, 5, 2, 2)), I(rng.integers(0, 5, (2, 2, 2)))),
               {"weight": w}, name="4-d"),
        Sample((A(randn(rng, 2, 5, 2, 2)), I(rng.integers(0, 5, (2, 2, 2)))),
               {"reduction": "none", "label_smoothing": 0.3}, name="4-d none"),
        Sample((A(randn(rng, 5)), I(np.array(3))), name="1-d input"),
        Sample((A(randn(rng, 4, 5)), A(_probs(rng, 4, 5))), name="probabilities"),
        Sample((A(randn(rng, 4, 5)), A(_probs(rng, 4, 5))), {"weight": w, "reduction": "sum"},
               name="probabilities weight"),
        Sample((A(randn(rng, 4, 5)), A(_probs(rng, 4, 5))),
               {"label_smoothing": 0.25, "reduction": "none"}, name="probabilities smoothing"),
        Sample((A(randn(rng, 2, 5, 3)), A(_probs(rng, 2, 5, 3))), name="probabilities 3-d"),
    ]
    return out


def _nll_samples(rng):
    w = I(positive(rng, 5), cast=True)
    t = I(np.array([0, 2, 4, 1]))
    return [
        Sample((A(_logp(rng, 4, 5)), t)),
        Sample((A(_logp(rng, 4, 5)), t), {"reduction": "sum"}),
        Sample((A(_logp(rng, 4, 5)), t), {"reduction": "none", "weight": w}),
        Sample((A(_logp(rng, 4, 5)), t), {"weight": w}, name="weight"),
        Sample((A(_logp(rng, 4, 5)), I(np.array([0, -100, 4, 1]))), name="ignore_index"),
        Sample((A(_logp(rng, 4, 5)), t), {"ignore_index": 4, "weight": w}, name="ignore 4"),
        Sample((A(_logp(rng, 5)), I(np.array(2))), name="1-d"),
        Sample((A(_logp(rng, 2, 5, 3)), I(np.array([[0, 4, 2], [1, 1, 3]]))), name="3-d"),
        Sample((A(_logp(rng, 2, 5, 2, 3)), I(rng.integers(0, 5, (2, 2, 3)))),
               {"reduction": "none"}, name="4-d"),
        Sample((A(_logp(rng, 2, 5, 2, 3)), I(rng.integers(0, 5, (2, 2, 3)))),
               {"weight": w}, name="4-d weight"),
    ]


def _bce_samples(rng):
    def p(*s):
        return rng.uniform(0.1, 0.9, s)
    return [
        Sample((A(p(3, 4)), A(p(3, 4)))),
        Sample((A(p(3, 4)), A(p(3, 4))), {"reduction": "sum"}),
        Sample((A(p(3, 4)), A(p(3, 4))), {"reduction": "none"}),
        Sample((A(p(3, 4)), A(p(3, 4))), {"weight": I(positive(rng, 4), cast=True)},
               name="weight"),
        Sample((A(p(3, 4)), I(rng.integers(0, 2, (3, 4)).astype(float), cast=True)),
               {"weight": I(positive(rng, 3, 4), cast=True), "reduction": "none"},
               name="hard targets"),
        Sample((A(p()), A(p())), name="0-d"),
    ]


def _bcel_samples(rng):
    def p(*s):
        return rng.uniform(0.0, 1.0, s)
    return [
        Sample((A(randn(rng, 3, 4)), A(p(3, 4)))),
        Sample((A(randn(rng, 3, 4)), A(p(3, 4))), {"reduction": "sum"}),
        Sample((A(randn(rng, 3, 4)), A(p(3, 4))), {"reduction": "none"}),
        Sample((A(randn(rng, 3, 4) * 3), A(p(3, 4))),
               {"pos_weight": I(positive(rng, 4), cast=True)}, name="pos_weight"),
        Sample((A(randn(rng, 3, 4)), A(p(3, 4))),
               {"pos_weight": I(positive(rng, 4), cast=True),
                "weight": I(positive(rng, 3, 1), cast=True), "reduction": "none"},
               name="pos_weight+weight"),
        Sample((A(randn(rng, 5) * 40), A(p(5))), name="large logits"),
        Sample((A(randn(rng)), A(p())), name="0-d"),
    ]


def _layer_norm_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), (4,))),
        Sample((A(randn(rng, 3, 4)), [4], A(randn(rng, 4)), A(randn(rng, 4))), name="affine"),
        Sample((A(randn(rng, 2, 3, 4)), (3, 4), A(randn(rng, 3, 4)), A(randn(rng, 3, 4))),
               {"eps": 1e-3}, name="2-d normalized"),
        Sample((A(randn(rng, 2, 3, 4)), (4,)), {"weight": A(randn(rng, 4))}, name="weight only"),
        # (PyTorch's double backward fails when only a bias requiring grad is given)
        Sample((A(randn(rng, 5)), (5,)), {"bias": I(randn(rng, 5), cast=True)},
               name="1-d bias only"),
    ]


def _normalize_samples(rng):
    return [
        Sample((A(_away(randn(rng, 3, 4))),)),
        Sample((A(_away(randn(rng, 3, 4))),), {"dim": 0}),
        Sample((A(_away(randn(rng, 2, 3, 4))),), {"p": 1.0, "dim": -1}),
        Sample((A(_away(randn(rng, 2, 3))),), {"p": 3.0}),
        Sample((A(_away(randn(rng, 4))),), {"dim": 0}, name="1-d"),
    ]


def _one_hot_samples(rng):
    return [Sample((I(np.array([0, 2, 1, 2])),)), Sample((I(np.array([[0, 3], [1, 1]])), 5)),
            Sample((I(np.array(3)), 4), name="0-d"),
            Sample((I(np.zeros((0,), np.int64)), 3), name="empty")]


def _linear_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 5, 4)), A(randn(rng, 5)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 5, 4))), name="no bias"),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 5, 4)), A(randn(rng, 5))), name="3-d"),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 5, 4))), name="3-d no bias"),
        Sample((A(randn(rng, 4)), A(randn(rng, 5, 4)), A(randn(rng, 5))), name="1-d"),
        Sample((A(randn(rng, 4)), A(randn(rng, 5, 4))), name="1-d no bias"),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 1, 4)), A(randn(rng, 1))), name="out 1"),
    ]


def _conv1d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 3, 7)), A(randn(rng, 4, 3, 3)))),
        Sample((A(randn(rng, 2, 3, 7)), A(randn(rng, 4, 3, 3)), A(randn(rng, 4))),
               {"stride": 2, "padding": 1}, name="bias stride pad"),
        Sample((A(randn(rng, 1, 4, 9)), A(randn(rng, 6, 2, 2))),
               {"groups": 2, "dilation": 3, "padding": 2}, name="groups dilation"),
        Sample((A(randn(rng, 2, 2, 6)), A(randn(rng, 2, 2, 4)), A(randn(rng, 2))),
               {"padding": "same"}, name="same even kernel"),
        Sample((A(randn(rng, 2, 2, 6)), A(randn(rng, 3, 2, 3))), {"padding": "valid"},
               name="valid"),
        Sample((A(randn(rng, 3, 8)), A(randn(rng, 2, 3, 3))), {"stride": 3}, name="unbatched"),
        Sample((A(randn(rng, 2, 1, 7)), A(randn(rng, 4, 1, 2))), {"padding": 1},
               name="stride 1, few columns: row by row"),
    ]


def _conv2d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 3, 5, 4)), A(randn(rng, 4, 3, 3, 2)))),
        Sample((A(randn(rng, 2, 3, 5, 5)), A(randn(rng, 2, 3, 3, 3)), A(randn(rng, 2))),
               {"stride": (2, 1), "padding": (1, 2)}, name="bias stride pad"),
        Sample((A(randn(rng, 1, 4, 6, 7)), A(randn(rng, 4, 2, 2, 2))),
               {"groups": 2, "dilation": (2, 1), "stride": 2}, name="groups dilation"),
        Sample((A(randn(rng, 1, 3, 4, 4)), A(randn(rng, 3, 1, 3, 3)), A(randn(rng, 3))),
               {"groups": 3, "padding": 1}, name="depthwise"),
        Sample((A(randn(rng, 1, 2, 5, 6)), A(randn(rng, 2, 2, 2, 3))),
               {"padding": "same", "dilation": (1, 2)}, name="same"),
        Sample((A(randn(rng, 2, 5, 5)), A(randn(rng, 3, 2, 2, 2))), {"padding": 1},
               name="unbatched"),
        Sample((A(randn(rng, 1, 1, 3, 3)), A(randn(rng, 1, 1, 3, 3))), name="1x1 output"),
        # stride 1: the backward's flat-row path (NOTE [flat rows]) when C/G * prod(kernel)
        # >= C_out/G, the row-by-row path otherwise
        Sample((A(randn(rng, 2, 4, 5, 6)), A(randn(rng, 4, 2, 3, 2)), A(randn(rng, 4))),
               {"groups": 2, "padding": (2, 1), "dilation": (1, 2)},
               name="stride 1 groups pad dilation: flat rows"),
        Sample((A(randn(rng, 2, 1, 5, 6)), A(randn(rng, 6, 1, 2, 2))), {"padding": (1, 0)},
               name="stride 1, few columns: row by row"),
    ]


def _max_pool_samples(rng):
    return [
        Sample((A(_distinct(rng, 2, 2, 6, 6)), 2)),
        Sample((A(_distinct(rng, 1, 2, 7, 5)), (3, 2)), {"stride": (2, 1), "padding": 1},
               name="stride pad"),
        Sample((A(_distinct(rng, 1, 1, 7, 7)), 3), {"stride": 2, "ceil_mode": True},
               name="ceil_mode"),
        Sample((A(_distinct(rng, 1, 2, 8, 7)), 2), {"dilation": 2, "padding": 1,
                                                    "ceil_mode": True}, name="dilation"),
        Sample((A(_distinct(rng, 2, 5, 5)), 2), {"stride": 1, "return_indices": True},
               name="overlapping, indices, unbatched"),
        # windows over 25 elements take the argmax path (pool.py _OFFSET_LOOP_MAX)
        Sample((A(_distinct(rng, 1, 2, 13, 12)), 6), {"return_indices": True},
               name="large kernel, argmax path"),
        # stride == kernel: the tiling path (forward) and the disjoint-window backward
        Sample((A(_distinct(rng, 2, 3, 7, 9)), (2, 3)), {"return_indices": True},
               name="tiling, cropped, indices"),
        Sample((A(_distinct(rng, 1, 2, 7, 6)), 2), {"ceil_mode": True},
               name="tiling stride, ceil_mode: general path, disjoint backward"),
        Sample((A(_distinct(rng, 1, 2, 6, 6)), 2), {"padding": 1},
               name="tiling stride, padding: general path, disjoint backward"),
        Sample((A(_distinct(rng, 1, 2, 9, 9)), 2), {"stride": 3, "dilation": 2},
               name="dilated disjoint windows"),
    ]


def _avg_pool_samples(rng):
    return [
        Sample((A(randn(rng, 2, 2, 6, 6)), 2)),
        Sample((A(randn(rng, 1, 2, 7, 5)), (3, 2)), {"stride": (2, 1), "padding": 1},
               name="stride pad"),
        Sample((A(randn(rng, 1, 2, 7, 5)), 3), {"stride": 2, "padding": 1,
                                                "count_include_pad": False},
               name="exclude pad"),
        Sample((A(randn(rng, 1, 1, 7, 7)), 3), {"stride": 2, "ceil_mode": True, "padding": 1},
               name="ceil_mode"),
        Sample((A(randn(rng, 1, 1, 6, 8)), 3), {"stride": 2, "ceil_mode": True,
                                                "count_include_pad": False},
               name="ceil_mode exclude"),
        Sample((A(randn(rng, 2, 5, 5)), 2), {"stride": 1, "divisor_override": 3},
               name="divisor_override, unbatched"),
        Sample((A(randn(rng, 2, 2, 7, 9)), (2, 3)), name="tiling, cropped: reshape path"),
    ]


def _embedding_samples(rng):
    return [
        Sample((I(np.array([1, 3, 1, 0])), A(randn(rng, 5, 3)))),
        Sample((I(np.array([[1, 3], [4, 1]])), A(randn(rng, 5, 3))), name="2-d indices"),
        Sample((I(np.array(2)), A(randn(rng, 4, 2))), name="0-d index"),
        Sample((I(np.array([1, 1], np.int32)), A(randn(rng, 4, 2))), name="int32 indices"),
        # the backward's paths (ops/kernels/nn_embedding.py, _add_rows_at): every index once,
        # repeats added level by level, an index repeated over _MAX_LEVELS times (reduceat)
        Sample((I(np.array([4, 0, 3, 1])), A(randn(rng, 5, 3))), name="unique indices"),
        Sample((I(rng.integers(0, 6, (5, 8))), A(randn(rng, 6, 3))), name="repeats"),
        Sample((I(np.concatenate([np.zeros(70, np.int64), [2, 1, 2]])), A(randn(rng, 3, 2))),
               name="over 64 repeats"),
    ]


def _smooth_l1_beta0_samples(rng):
    x = randn(rng, 3, 4)
    return [Sample((A(x), A(x - _away(randn(rng, 3, 4)))), {"beta": 0.0}),
            Sample((A(x), A(x - _away(randn(rng, 3, 4)))), {"beta": 0.0, "reduction": "none"})]


def _embedding_unscaled_samples(rng):
    return [
        Sample((I(np.array([[1, 3], [4, 1]])), A(randn(rng, 5, 3))), {"padding_idx": 1},
               name="padding_idx"),
        Sample((I(np.array([[1, 3, 3], [3, 0, 2]])), A(randn(rng, 4, 2))),
               {"scale_grad_by_freq": True, "padding_idx": -1}, name="scale_grad_by_freq"),
        Sample((I(np.array([0, 2, 2])), A(randn(rng, 3, 2))), {"scale_grad_by_freq": True},
               name="scale_grad_by_freq only"),
    ]


_ZERO_TENSOR = ("PyTorch's second derivative of abs is a ZeroTensor, which the harness cannot "
                "convert; graphgrad's (zero) second derivative is checked by finite differences "
                "of the first")
_NOT_A_DERIVATIVE = ("by PyTorch's definition the padding_idx row gets no gradient and "
                     "scale_grad_by_freq divides by the index counts, so the gradient is not the "
                     "finite difference; checked against PyTorch")


def _dropout_samples(rng):
    return [Sample((A(randn(rng, 3, 4)),), {"training": False}, name="eval"),
            Sample((A(randn(rng, 3, 4)), 0.0), name="p=0"),
            Sample((A(randn(rng, 3, 4)), 1.0), name="p=1")]


OPS = [
    _nn("linear", _linear_samples, complex=True),
    OpInfo("addmm (nn.functional.linear's op)", lambda rng: [
        Sample((A(randn(rng, 4)), A(randn(rng, 3, 2)), A(randn(rng, 2, 4)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 2)), A(randn(rng, 2, 4))),
               {"beta": 0.5, "alpha": -2.0}, name="beta alpha"),
        Sample((A(randn(rng, 1, 4)), A(randn(rng, 3, 2)), A(randn(rng, 2, 4))),
               {"beta": 0.0}, name="beta 0"),
    ], fn=lambda lib, *a, **k: lib.addmm(*a, **k), complex=True),
    _nn("relu", _unary),
    _nn("threshold", lambda rng: [
        Sample((A(_away(randn(rng, 3, 4))), 0.1, 2.0)),
        Sample((A(_away(randn(rng, 5))), -0.5, -3.0), name="negative threshold")]),
    _nn("leaky_relu", lambda rng: _unary(rng) + [
        Sample((A(_away(randn(rng, 3, 4))), 0.2)),
        Sample((A(_away(randn(rng, 3, 4))),), {"negative_slope": -0.5})]),
    _nn("elu", lambda rng: _unary(rng) + [
        Sample((A(_away(randn(rng, 3, 4))), 0.5)),
        Sample((A(_away(randn(rng, 3, 4))),), {"alpha": 2.0})]),
    _nn("gelu", lambda rng: _unary(rng, lambda x: x * 2) + [
        Sample((A(randn(rng, 3, 4) * 2),), {"approximate": "tanh"}),
        Sample((A(randn(rng, 6) * 5),), name="tails"),
        Sample((A(randn(rng, 9, 9) * 3),), name="vectorised erfc")]),  # > 64 elements
    # NOTE [blocked gelu] (ops/kernels/nn_activation.py): over 16384 contiguous float64
    # elements gelu and its backward run block by block (several blocks and a partial last
    # one here); a transposed input of that size takes the whole-array expressions.  float32
    # (NOTE [float32 gelu]) runs in 32768-element blocks: one full block and a partial one
    # here, the transposed input copied first.  No finite differences (one evaluation per
    # element).
    OpInfo("nn.functional.gelu(blocked)", lambda rng: [
        Sample((A(randn(rng, 130, 260) * 2),), name="blocked, 2 blocks + partial"),
        Sample((A(randn(rng, 130, 260) * 2),), {"transpose": True},
               name="transposed: whole-array fallback")],
        fn=lambda lib, x, transpose=False: lib.nn.functional.gelu(x.t() if transpose else x),
        fd=False),
    _nn("silu", lambda rng: _unary(rng, lambda x: x * 2)),
    _nn("softplus", lambda rng: _unary(rng, lambda x: x * 2) + [
        Sample((A(randn(rng, 3, 4) * 3), 2.0)),
        Sample((A(np.array([-30.0, -2.0, 0.5, 3.0, 25.0])),), name="threshold"),
        Sample((A(np.array([-3.0, 1.0, 4.0, 6.0])),), {"beta": 0.5, "threshold": 1.0},
               name="beta threshold")]),
    _nn("sigmoid", _unary, complex=True),
    _nn("tanh", _unary, complex=True),
    _nn("softmax", _softmax_samples, fn=_dtype_fn("softmax")),
    _nn("log_softmax", _softmax_samples, fn=_dtype_fn("log_softmax")),
    # over 65536 elements a last-dim softmax / log_softmax and their backward run by row
    # blocks (NOTE [softmax by row blocks], ops/kernels/nn_softmax.py): rows summed by BLAS
    # (up to 2048 elements) or by NumPy (longer rows); another dim takes the whole-array
    # path.  No finite differences (one evaluation per element).
    *[OpInfo(f"nn.functional.{name}(blocked)", lambda rng: [
        Sample((A(randn(rng, 3, 230, 100) * 3), -1), name="row blocks + partial"),
        Sample((A(randn(rng, 700, 100) * 3), 0), name="dim 0: whole array"),
        Sample((A(randn(rng, 2, 33000)), 1), name="rows over _DOT_ROW: NumPy's sums")],
        fn=lambda lib, *a, _n=name, **k: getattr(lib.nn.functional, _n)(*a, **k), fd=False)
      for name in ("softmax", "log_softmax")],
    OpInfo("softmax", lambda rng: _softmax_samples(rng)[:4], aliases=("Tensor.softmax",)),
    OpInfo("log_softmax", lambda rng: _softmax_samples(rng)[:4],
           aliases=("Tensor.log_softmax",)),
    _nn("dropout", _dropout_samples),
    _nn("mse_loss", _regression_samples),
    _nn("l1_loss", lambda rng: _regression_samples(rng), skips={"gradgrad": _ZERO_TENSOR}),
    _nn("smooth_l1_loss", _smooth_l1_samples),
    OpInfo("nn.functional.smooth_l1_loss(beta=0)", _smooth_l1_beta0_samples,
           fn=lambda lib, *a, **k: lib.nn.functional.smooth_l1_loss(*a, **k),
           skips={"gradgrad": _ZERO_TENSOR}),
    _nn("cross_entropy", _ce_samples),
    _nn("nll_loss", _nll_samples),
    _nn("binary_cross_entropy", _bce_samples),
    _nn("binary_cross_entropy_with_logits", _bcel_samples),
    _nn("layer_norm", _layer_norm_samples),
    # NOTE [layer_norm by rows] (ops/kernels/nn_norm.py): over 16384 C-contiguous elements
    # with a normalized size up to 2048, row sums by BLAS; a transposed input and a longer
    # normalized size take the general path.  No finite differences (one evaluation per
    # element).
    OpInfo("nn.functional.layer_norm(rows)", lambda rng: [
        Sample((A(randn(rng, 40, 30, 20) * 3 + 1), (20,), A(randn(rng, 20)),
                A(randn(rng, 20))), name="affine, by rows"),
        Sample((A(randn(rng, 40, 30, 20)), (30, 20)), {"weight": A(randn(rng, 30, 20))},
               name="2-d normalized, weight only, by rows"),
        Sample((A(randn(rng, 40, 30, 20)), (20,)), name="no parameters, by rows"),
        Sample((A(randn(rng, 20, 40, 30)), (20,), A(randn(rng, 20)), A(randn(rng, 20))),
               {"transpose": True}, name="transposed: general path"),
        Sample((A(randn(rng, 8, 2100)), (2100,), A(randn(rng, 2100)), A(randn(rng, 2100))),
               name="normalized size over 2048: general path")],
        fn=lambda lib, x, *a, transpose=False, **k: lib.nn.functional.layer_norm(
            x.permute(2, 1, 0) if transpose else x, *a, **k), fd=False),
    _nn("normalize", _normalize_samples),
    _nn("one_hot", _one_hot_samples, grad=False, dtypes=("float64",)),
    _nn("conv1d", _conv1d_samples, complex=True, rtol=1e-4, atol=2e-5),
    _nn("conv2d", _conv2d_samples, complex=True, rtol=1e-4, atol=2e-5),
    _nn("max_pool2d", _max_pool_samples, nondiff_outputs=(1,)),
    _nn("avg_pool2d", _avg_pool_samples),
    _nn("embedding", _embedding_samples),
    OpInfo("nn.functional.embedding(padding_idx, scale_grad_by_freq)",
           _embedding_unscaled_samples,
           fn=lambda lib, *a, **k: lib.nn.functional.embedding(*a, **k),
           skips={"fd": _NOT_A_DERIVATIVE}),
]
