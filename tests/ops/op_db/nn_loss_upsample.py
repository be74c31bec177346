"""OpInfos of the further losses (soft/multi/multilabel margin, the likelihood and triplet
losses), of interpolate's modes and of pixel (un)shuffle (graphgrad/nn/functional/
loss_margin.py, loss_likelihood.py, upsampling.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _nn(name, samples, **kw):
    return OpInfo("nn.functional." + name, samples, **kw)


_RED = ("mean", "sum", "none")
_NO_DERIV = "PyTorch has no derivative of its backward op nor a forward derivative"


def _away_from(x, centre, eps=0.05):
    return np.where(np.abs(x - centre) < eps, centre + 2 * eps * np.sign(x - centre + 1e-12), x)


# ---------------------------------------------------------------- margin losses
def _soft_margin_samples(rng):
    signs = lambda *s: I(np.where(rng.standard_normal(s) > 0, 1.0, -1.0), cast=True)  # noqa
    out = [Sample((A(randn(rng, 3, 4)), signs(3, 4)), {"reduction": r}) for r in _RED]
    out.append(Sample((A(randn(rng, 3, 4)), signs(4)), name="broadcast target"))
    out.append(Sample((A(randn(rng, 5)), I(randn(rng, 5), cast=True)), {"reduction": "sum"},
                      name="real targets"))
    return out


def _multi_margin_samples(rng):
    def x_for(t, C, margin):
        x = randn(rng, len(t), C)
        xy = x[np.arange(len(t)), t][:, None]
        z = _away_from(margin - xy + x, 0.0)      # keep the hinges off their kinks
        x = z - margin + xy
        x[np.arange(len(t)), t] = xy[:, 0]
        return x
    t = np.array([0, 3, 1, 3])
    out = [Sample((A(x_for(t, 4, 1.0)), I(t)), {"reduction": r}) for r in _RED]
    out.append(Sample((A(x_for(t, 4, 0.5)), I(t)), {"p": 2, "margin": 0.5}, name="p=2"))
    out.append(Sample((A(x_for(t, 4, 1.0)), I(t)),
                      {"weight": I(positive(rng, 4), cast=True), "reduction": "sum"},
                      name="weight"))
    out.append(Sample((A(x_for(t[:1], 4, 1.0)[0]), I(np.array(2))), {"reduction": "none"},
                      name="1-d"))
    return out


def _multilabel_margin_samples(rng):
    t = np.array([[0, 3, -1, 1], [2, -1, 0, 0], [1, 2, 3, 0]])
    x = _away_from(randn(rng, 3, 4), 0.0) * 0.3
    out = [Sample((A(x), I(t)), {"reduction": r}) for r in _RED]
    out.append(Sample((A(x[0].copy()), I(t[0].copy())), {"reduction": "none"}, name="1-d"))
    return out


def _mlsm_samples(rng):
    bits = I((rng.standard_normal((3, 4)) > 0).astype(np.float64), cast=True)
    out = [Sample((A(randn(rng, 3, 4)), bits), {"reduction": r}) for r in _RED]
    out.append(Sample((A(randn(rng, 3, 4)), bits), {"weight": I(positive(rng, 4), cast=True)},
                      name="weight"))
    return out


def _hinge_samples(rng):
    y = I(np.array([[1.0, -1, -1, 1], [-1, 1, -1, 1], [1, 1, -1, -1]]), cast=True)
    x = _away_from(randn(rng, 3, 4), 1.0)
    out = [Sample((A(x), y), {"reduction": r}) for r in _RED]
    out.append(Sample((A(_away_from(randn(rng, 3, 4), 0.4)), y), {"margin": 0.4},
                      name="margin"))
    return out


def _triplet_samples(rng):
    out = [Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), A(randn(rng, 4, 3))),
                  {"reduction": r, "margin": 2.0}) for r in _RED]
    out.append(Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), A(randn(rng, 4, 3))),
                      {"swap": True, "p": 1.0, "margin": 3.0}, name="swap p=1"))
    return out


def _triplet_distance_samples(rng):
    out = _triplet_samples(rng)[:3]
    out.append(Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), A(randn(rng, 4, 3))),
                      {"swap": True, "margin": 3.0}, name="swap"))
    return out


def _poisson_samples(rng):
    out = [Sample((A(randn(rng, 3, 4)), I(positive(rng, 3, 4) * 2, cast=True)),
                  {"reduction": r}) for r in _RED]
    out.append(Sample((A(positive(rng, 3, 4)), A(positive(rng, 3, 4) * 2)),
                      {"log_input": False, "full": True}, name="rates, full"))
    return out


def _gaussian_samples(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), A(positive(rng, 3, 4))),
                   {"reduction": r}) for r in _RED] + [
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), A(positive(rng, 3))),
               {"full": True}, name="homoscedastic"),
        Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)), A(positive(rng, 3, 1))),
               {"reduction": "none"}, name="broadcast var")]


LOSS_OPS = [
    _nn("soft_margin_loss", _soft_margin_samples),
    # (_NO_DERIV: no double backward, no forward AD, as in PyTorch)
    _nn("multi_margin_loss", _multi_margin_samples, gradgrad=False, fwd_ad=False),
    _nn("multilabel_margin_loss", _multilabel_margin_samples, gradgrad=False, fwd_ad=False),
    _nn("multilabel_soft_margin_loss", _mlsm_samples),
    _nn("hinge_embedding_loss", _hinge_samples),
    _nn("triplet_margin_loss", _triplet_samples),
    _nn("triplet_margin_with_distance_loss", _triplet_distance_samples),
    _nn("poisson_nll_loss", _poisson_samples),
    _nn("gaussian_nll_loss", _gaussian_samples),
]


# ---------------------------------------------------------------- interpolate, pixel shuffle
def _interp_nearest_samples(rng):
    out = []
    for mode in ("nearest", "nearest-exact"):
        out += [
            Sample((A(randn(rng, 2, 3, 5)),), {"scale_factor": 2, "mode": mode}, name="1-d x2"),
            Sample((A(randn(rng, 1, 2, 5, 4)),), {"size": (7, 3), "mode": mode}, name="2-d size"),
            Sample((A(randn(rng, 1, 2, 3, 4, 5)),), {"scale_factor": (1.5, 0.7, 2.3),
                                                     "mode": mode}, name="3-d scales"),
            Sample((A(randn(rng, 1, 2, 5, 4)),), {"scale_factor": 1.7, "mode": mode,
                                                  "recompute_scale_factor": True},
                   name="2-d recompute")]
    out += [Sample((A(randn(rng, 2, 3, 7)),), {"size": 3, "mode": "area"}, name="area 1-d"),
            Sample((A(randn(rng, 1, 2, 7, 5)),), {"scale_factor": 0.5, "mode": "area"},
                   name="area 2-d"),
            Sample((A(randn(rng, 1, 2, 3, 5, 4)),), {"size": (2, 3, 3), "mode": "area"},
                   name="area 3-d")]
    return out


def _interp_linear_samples(rng):
    out = []
    for ac in (False, True):
        out += [
            Sample((A(randn(rng, 2, 3, 5)),), {"size": 8, "mode": "linear",
                                               "align_corners": ac}, name="linear"),
            Sample((A(randn(rng, 1, 2, 4, 5)),), {"scale_factor": (1.7, 0.6), "mode": "bilinear",
                                                  "align_corners": ac}, name="bilinear"),
            Sample((A(randn(rng, 1, 2, 3, 4, 2)),), {"size": (5, 3, 4), "mode": "trilinear",
                                                     "align_corners": ac}, name="trilinear"),
            Sample((A(randn(rng, 1, 2, 4, 5)),), {"size": (6, 3), "mode": "bicubic",
                                                  "align_corners": ac}, name="bicubic")]
    out.append(Sample((A(randn(rng, 1, 2, 4, 4)),), {"scale_factor": 2.5, "mode": "bicubic"},
                      name="bicubic scale"))
    return out


def _interp_aa_samples(rng):
    return [Sample((A(randn(rng, 1, 2, 7, 6)),), {"size": (3, 4), "mode": m, "antialias": True},
                   name=m) for m in ("bilinear", "bicubic", "lanczos")] + [
        Sample((A(randn(rng, 1, 2, 5, 6)),), {"scale_factor": (0.5, 1.4), "mode": "bicubic",
                                              "antialias": True, "align_corners": True},
               name="align_corners")]


def _pixel_shuffle_samples(rng):
    return [Sample((A(randn(rng, 2, 8, 3, 2)), 2)), Sample((A(randn(rng, 9, 2, 2)), 3),
                                                            name="3-d"),
            Sample((A(randn(rng, 2, 1, 4, 2, 3)), 2), name="5-d")]


def _pixel_unshuffle_samples(rng):
    return [Sample((A(randn(rng, 2, 2, 6, 4)), 2)), Sample((A(randn(rng, 1, 6, 3)), 3),
                                                            name="3-d")]


def _interp(lib, *a, **k):
    return lib.nn.functional.interpolate(*a, **k)


def _adaptive_avg3d_samples(rng):
    return [Sample((A(randn(rng, 1, 2, 5, 4, 3)), 2)),
            Sample((A(randn(rng, 2, 3, 4, 5)), (None, 3, 2)), name="unbatched None"),
            Sample((A(randn(rng, 1, 2, 3, 2, 4)), 1), name="to 1: a mean")]


UPSAMPLE_OPS = [
    _nn("adaptive_avg_pool3d", _adaptive_avg3d_samples),
    _nn("interpolate", _interp_nearest_samples),
    OpInfo("nn.functional.interpolate(linear)", _interp_linear_samples, fn=_interp),
    OpInfo("nn.functional.interpolate(antialias)", _interp_aa_samples, fn=_interp),
    _nn("pixel_shuffle", _pixel_shuffle_samples, aliases=("pixel_shuffle",)),
    _nn("pixel_unshuffle", _pixel_unshuffle_samples, aliases=("pixel_unshuffle",)),
]

OPS = LOSS_OPS + UPSAMPLE_OPS
