"""OpInfos of the functional ops the nn layers need (issue 18 item 3): transposed
convolutions, pooling, normalisation, losses, activations, attention
(graphgrad/nn/_functional_<family>.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _nn(name, samples, **kw):
    return OpInfo("nn.functional." + name, samples, **kw)


def _away(x, eps=0.15):
    """Keep values away from 0 (kinks)."""
    return np.where(np.abs(x) < eps, np.sign(x + 1e-12) * eps * 2, x)


def _distinct(rng, *shape):
    """Values with no ties (max pooling picks a unique maximum)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, shape)


# ---------------------------------------------------------------- conv
def _conv_transpose1d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 4, 5)), A(randn(rng, 4, 3, 3)))),
        Sample((A(randn(rng, 2, 4, 5)), A(randn(rng, 4, 3, 3)), A(randn(rng, 3))),
               {"stride": 2, "padding": 1, "output_padding": 1, "dilation": 2},
               name="bias stride pad output_padding dilation"),
        Sample((A(randn(rng, 1, 4, 4)), A(randn(rng, 4, 2, 2)), A(randn(rng, 4))),
               {"groups": 2, "stride": 3, "padding": 1}, name="groups"),
        Sample((A(randn(rng, 3, 6)), A(randn(rng, 3, 2, 3))), {"stride": 2},
               name="unbatched"),
    ]


def _conv_transpose2d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 3, 4, 3)), A(randn(rng, 3, 2, 3, 2)))),
        Sample((A(randn(rng, 1, 2, 3, 4)), A(randn(rng, 2, 3, 3, 3)), A(randn(rng, 3))),
               {"stride": (2, 1), "padding": (1, 0), "output_padding": (1, 0)},
               name="bias stride pad output_padding"),
        Sample((A(randn(rng, 1, 4, 3, 3)), A(randn(rng, 4, 1, 2, 2)), A(randn(rng, 2))),
               {"groups": 2, "dilation": (2, 1), "stride": 2, "output_padding": 1},
               name="groups dilation"),
        Sample((A(randn(rng, 2, 3, 3)), A(randn(rng, 2, 2, 2, 2))), {"padding": 1},
               name="unbatched"),
    ]


# ---------------------------------------------------------------- norm
def _stat(rng, c, var=False):
    """A running statistic (no grad; a fresh tensor per call, so in-place updates are fine)."""
    return I(positive(rng, c) if var else randn(rng, c) * 0.3, cast=True)


def _batch_norm_samples(rng):
    return [
        Sample((A(randn(rng, 4, 3)), None, None), {"training": True}, name="no stats"),
        Sample((A(randn(rng, 3, 2, 4)), _stat(rng, 2), _stat(rng, 2, True), A(randn(rng, 2)),
                A(randn(rng, 2))), {"training": True, "momentum": 0.3}, name="train affine"),
        Sample((A(randn(rng, 2, 3, 2, 3)), _stat(rng, 3), _stat(rng, 3, True)),
               {"weight": A(randn(rng, 3)), "training": True, "eps": 1e-3},
               name="train 4-d weight only"),
        Sample((A(randn(rng, 3, 2, 4)), _stat(rng, 2), _stat(rng, 2, True), A(randn(rng, 2)),
                A(randn(rng, 2))), name="eval affine"),
        Sample((A(randn(rng, 2, 3)), _stat(rng, 3), _stat(rng, 3, True)), name="eval"),
    ]


def _instance_norm_samples(rng):
    return [
        Sample((A(randn(rng, 2, 3, 4)),)),
        Sample((A(randn(rng, 2, 2, 3, 2)), _stat(rng, 2), _stat(rng, 2, True),
                A(randn(rng, 2)), A(randn(rng, 2))), name="affine stats"),
        Sample((A(randn(rng, 2, 2, 3)), _stat(rng, 2), _stat(rng, 2, True)),
               {"use_input_stats": False}, name="eval"),
    ]


def _group_norm_samples(rng):
    return [
        Sample((A(randn(rng, 2, 4, 3)), 2)),
        Sample((A(randn(rng, 2, 6, 2, 2)), 3, A(randn(rng, 6)), A(randn(rng, 6))),
               name="affine 4-d"),
        Sample((A(randn(rng, 3, 4)), 2), {"weight": A(randn(rng, 4)), "eps": 1e-3},
               name="2-d"),
        # (PyTorch's backward fails for a bias without a weight)
        Sample((A(randn(rng, 1, 3, 5)), 1, None, I(randn(rng, 3), cast=True)),
               name="one group, bias"),
    ]


def _rms_norm_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), (4,))),
        Sample((A(randn(rng, 2, 3, 4)), [3, 4], A(randn(rng, 3, 4))), name="weight 2-d"),
        Sample((A(randn(rng, 5)), (5,)), {"eps": 1e-3, "weight": A(randn(rng, 5))}, name="eps"),
    ]


# ---------------------------------------------------------------- pool
def _max_pool1d_samples(rng):
    return [
        Sample((A(_distinct(rng, 2, 3, 7)), 2)),
        Sample((A(_distinct(rng, 2, 3, 8)), 3), {"stride": 2, "padding": 1, "ceil_mode": True},
               name="stride pad ceil"),
        Sample((A(_distinct(rng, 3, 9)), 2), {"dilation": 2, "return_indices": True},
               name="dilation indices unbatched"),
    ]


def _avg_pool1d_samples(rng):
    return [
        Sample((A(randn(rng, 2, 3, 7)), 2)),
        Sample((A(randn(rng, 2, 3, 8)), 3), {"stride": 2, "padding": 1,
                                             "count_include_pad": False}, name="exclude pad"),
        Sample((A(randn(rng, 3, 9)), 3), {"ceil_mode": True, "stride": 2}, name="unbatched"),
    ]


def _adaptive_avg1d_samples(rng):
    return [Sample((A(randn(rng, 2, 3, 7)), 3)), Sample((A(randn(rng, 3, 5)), 1), name="to 1"),
            Sample((A(randn(rng, 2, 2, 4)), 6), name="upsample")]


def _adaptive_avg2d_samples(rng):
    return [Sample((A(randn(rng, 2, 3, 7, 5)), 3)),
            Sample((A(randn(rng, 2, 6, 5)), (2, 4)), name="unbatched"),
            Sample((A(randn(rng, 1, 2, 4, 5)), (None, 3)), name="None"),
            Sample((A(randn(rng, 2, 3, 4, 5)), 1), name="to 1: a mean")]


def _adaptive_max1d_samples(rng):
    return [Sample((A(_distinct(rng, 2, 3, 7)), 3)),
            Sample((A(_distinct(rng, 3, 5)), 2), {"return_indices": True}, name="indices")]


def _adaptive_max2d_samples(rng):
    return [Sample((A(_distinct(rng, 2, 3, 7, 5)), 3)),
            Sample((A(_distinct(rng, 2, 6, 5)), (2, 4)), {"return_indices": True},
                   name="unbatched indices"),
            Sample((A(_distinct(rng, 1, 2, 4, 5)), (None, 3)), name="None")]


# ---------------------------------------------------------------- activations
def _unary(rng, domain=_away, **kwargs):
    return [Sample((A(domain(randn(rng, 3, 4))),), dict(kwargs)),
            Sample((A(domain(randn(rng))),), dict(kwargs), name="0-d")]


def _kinks(*points, eps=0.1):
    """Keep values (scaled up) away from the kinks at ``points``."""
    def d(x):
        x = x * 3
        for k in points:
            x = np.where(np.abs(x - k) < eps, k + 2 * eps * np.sign(x - k + 1e-12), x)
        return x
    return d


def _prelu_samples(rng):
    return [
        Sample((A(_away(randn(rng, 2, 3, 4))), A(positive(rng, 3) * 0.3))),
        Sample((A(_away(randn(rng, 2, 3))), A(positive(rng, 1) * 0.2)), name="one weight"),
        Sample((A(_away(randn(rng, 4))), A(positive(rng, 1) * 0.2)), name="1-d"),
        Sample((A(_away(randn(rng, 2, 2, 3, 2))), A(randn(rng, 2))), name="4-d"),
    ]


def _glu_samples(rng):
    return [Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 4, 3)), 0)),
            Sample((A(randn(rng, 2, 6, 2)),), {"dim": 1}, name="3-d dim 1")]


def _dropout_eval(rng):
    return [Sample((A(randn(rng, 2, 3, 4)),), {"training": False}, name="eval"),
            Sample((A(randn(rng, 2, 3, 4)), 1.0), name="p=1")]


# ---------------------------------------------------------------- losses
def _huber_samples(rng):
    def pair(*shape, delta=1.0):
        x = randn(rng, *shape)
        d = rng.choice([-1, 1], shape) * rng.uniform(0.1, 2.5, shape) * delta
        d = np.where(np.abs(np.abs(d) - delta) < 0.1 * delta, d * 1.3, d)
        return x, x - d
    out = []
    for red in ("mean", "sum", "none"):
        x, y = pair(3, 4)
        out.append(Sample((A(x), A(y)), {"reduction": red}))
    x, y = pair(2, 3, delta=2.5)
    out.append(Sample((A(x), A(y)), {"delta": 2.5, "reduction": "sum"}, name="delta"))
    x, y = pair(2, 3)
    out.append(Sample((A(x), A(y)), {"weight": A(positive(rng, 2, 3))}, name="weight"))
    return out


def _kl_samples(rng):
    def logp(*s):
        x = randn(rng, *s)
        return x - np.log(np.exp(x).sum(-1, keepdims=True))
    out = []
    for red in ("batchmean", "sum", "none", "mean"):
        out.append(Sample((A(logp(3, 4)), A(np.exp(logp(3, 4)))), {"reduction": red}))
    out.append(Sample((A(logp(3, 4)), A(logp(3, 4))), {"reduction": "batchmean",
                                                       "log_target": True}, name="log_target"))
    out.append(Sample((A(logp(2, 3)), A(logp(2, 3))), {"reduction": "none", "log_target": True},
                      name="log_target none"))
    return out


def _cos_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)))),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 4))), {"dim": -1}, name="broadcast"),
            Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 3, 4))), {"dim": 0}, name="dim 0")]


def _pdist_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)))),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 4))), {"p": 1.0, "keepdim": True},
                   name="p=1 broadcast keepdim"),
            Sample((A(randn(rng, 5)), A(randn(rng, 5))), {"p": 3.0}, name="1-d")]


def _cel_samples(rng):
    t = I(np.array([1.0, -1.0, 1.0, -1.0]), cast=True)
    return [Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), t)),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), t),
                   {"margin": -0.3, "reduction": "none"}, name="margin none"),
            Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), t), {"reduction": "sum"}),
            Sample((A(randn(rng, 3)), A(randn(rng, 3)), I(np.array(-1.0), cast=True)),
                   {"margin": -0.9}, name="0-d target")]


def _mrl_samples(rng):
    t = I(np.array([1.0, -1.0, 1.0, -1.0, 1.0]), cast=True)
    return [Sample((A(randn(rng, 5)), A(randn(rng, 5)), t)),
            Sample((A(randn(rng, 5)), A(randn(rng, 5)), t), {"margin": 0.2, "reduction": "none"},
                   name="margin none"),
            Sample((A(randn(rng, 5)), A(randn(rng, 5)), t), {"reduction": "sum"})]


# ---------------------------------------------------------------- attention
def _sdpa_samples(rng):
    causal_ok = np.ones((3, 5), bool)
    causal_ok[1, 2:] = False
    dead = np.ones((3, 5), bool)
    dead[2] = False
    return [
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 5, 4)), A(randn(rng, 2, 5, 6)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 5, 4)), A(randn(rng, 5, 2))), name="2-d"),
        Sample((A(randn(rng, 1, 2, 3, 4)), A(randn(rng, 1, 2, 5, 4)), A(randn(rng, 1, 2, 5, 3))),
               {"attn_mask": I(causal_ok)}, name="bool mask"),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 5, 4)), A(randn(rng, 2, 5, 3))),
               {"attn_mask": A(randn(rng, 3, 5)), "scale": 0.3}, name="float mask, scale"),
        Sample((A(randn(rng, 2, 4, 4)), A(randn(rng, 2, 4, 4)), A(randn(rng, 2, 4, 3))),
               {"is_causal": True}, name="causal"),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 5, 4)), A(randn(rng, 2, 5, 3))),
               {"attn_mask": I(dead)}, name="fully masked row"),
    ]


def _bilinear_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 5)), A(randn(rng, 2, 4, 5)))),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 5)), A(randn(rng, 2, 4, 5)),
                A(randn(rng, 2))), name="bias"),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 3, 2)), A(randn(rng, 3, 4, 2)),
                A(randn(rng, 3))), name="3-d"),
        Sample((A(randn(rng, 4)), A(randn(rng, 2)), A(randn(rng, 3, 4, 2))), name="1-d"),
    ]


def _unfold_samples(rng):
    return [Sample((A(randn(rng, 2, 3, 5, 4)), 2)),
            Sample((A(randn(rng, 3, 5, 6)), (2, 3)), {"dilation": (1, 2), "padding": 1,
                                                      "stride": 2}, name="unbatched")]


def _fold_samples(rng):
    return [Sample((A(randn(rng, 2, 12, 12)), (4, 5), 2)),
            Sample((A(randn(rng, 18, 6)), (5, 6), (2, 3)),
                   {"dilation": (1, 2), "padding": 1, "stride": 2}, name="unbatched")]


OPS = [
    _nn("conv_transpose1d", _conv_transpose1d_samples, rtol=1e-4, atol=2e-5),
    _nn("conv_transpose2d", _conv_transpose2d_samples, rtol=1e-4, atol=2e-5),
    _nn("unfold", _unfold_samples),
    _nn("fold", _fold_samples),
    _nn("batch_norm", _batch_norm_samples),
    _nn("instance_norm", _instance_norm_samples),
    _nn("group_norm", _group_norm_samples),
    _nn("rms_norm", _rms_norm_samples),
    _nn("max_pool1d", _max_pool1d_samples, nondiff_outputs=(1,)),
    _nn("avg_pool1d", _avg_pool1d_samples),
    _nn("adaptive_avg_pool1d", _adaptive_avg1d_samples),
    _nn("adaptive_avg_pool2d", _adaptive_avg2d_samples),
    _nn("adaptive_max_pool1d", _adaptive_max1d_samples, nondiff_outputs=(1,)),
    _nn("adaptive_max_pool2d", _adaptive_max2d_samples, nondiff_outputs=(1,)),
    _nn("hardtanh", lambda rng: _unary(rng, _kinks(-1, 1)) + [
        Sample((A(_kinks(-0.5, 2)(randn(rng, 3, 4))), -0.5, 2.0), name="bounds")]),
    _nn("relu6", lambda rng: _unary(rng, _kinks(0, 6))),
    _nn("hardsigmoid", lambda rng: _unary(rng, _kinks(-3, 3)), gradgrad=False),  # (PyTorch
    # has no derivative of hardsigmoid_backward; graphgrad's second derivative, 0, is checked by
    # finite differences)
    _nn("hardswish", lambda rng: _unary(rng, _kinks(-3, 3))),
    _nn("mish", lambda rng: _unary(rng, lambda x: x * 3)),
    _nn("logsigmoid", lambda rng: _unary(rng, lambda x: x * 3) + [
        Sample((A(np.array([-40.0, -1.0, 0.5, 30.0])),), name="tails")]),
    _nn("softsign", lambda rng: _unary(rng)),
    _nn("tanhshrink", lambda rng: _unary(rng, lambda x: x * 2)),
    _nn("prelu", _prelu_samples),
    _nn("glu", _glu_samples),
    _nn("dropout1d", _dropout_eval),
    _nn("dropout2d", lambda rng: [
        Sample((A(randn(rng, 2, 3, 2, 2)),), {"training": False}, name="eval"),
        Sample((A(randn(rng, 2, 3, 2, 2)), 1.0), name="p=1")]),
    _nn("huber_loss", _huber_samples),
    _nn("kl_div", _kl_samples),
    _nn("cosine_similarity", _cos_samples),
    _nn("pairwise_distance", _pdist_samples),
    _nn("cosine_embedding_loss", _cel_samples),
    _nn("margin_ranking_loss", _mrl_samples),
    _nn("scaled_dot_product_attention", _sdpa_samples),
    _nn("bilinear", _bilinear_samples),
    _nn("alpha_dropout", lambda rng: [Sample((A(randn(rng, 3, 4)),), name="eval (default)")]),
]
