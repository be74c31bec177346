"""OpInfos of the further activations: selu, celu, softshrink, hardshrink, rrelu, softmin
(nn.functional) and torch.hardshrink / Tensor.hardshrink."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, OpInfo, Sample, randn
from tests.ops.op_db.nn import _away, _softmax_samples, _unary
from tests.ops.op_db.nn_layers import _kinks


def _nn(name, samples, **kw):
    return OpInfo("nn.functional." + name, samples, **kw)


def _shrink_samples(rng):
    """Away from the kinks at +-0.5 (the default lambd), +-1 and 0 (the other lambds)."""
    return _unary(rng, _kinks(-0.5, 0.5)) + [
        Sample((A(_kinks(-1, 1)(randn(rng, 3, 4))), 1.0), name="lambd=1"),
        Sample((A(_kinks(0)(randn(rng, 3, 4))),), {"lambd": 0.0}, name="lambd=0"),
        Sample((A(_kinks(-0.25, 0.25)(randn(rng, 2, 3, 2))), 0.25), name="3-d")]


def _rrelu_samples(rng):
    # (training with lower == upper draws the slope ``lower`` everywhere: deterministic,
    # and PyTorch's backward then takes the leaky_relu branch too)
    return _unary(rng) + [
        Sample((A(_away(randn(rng, 3, 4))), 0.1, 0.3), name="lower upper"),
        Sample((A(_away(randn(rng, 3, 4))),), {"lower": 0.2, "upper": 0.2, "training": True},
               name="training, lower == upper")]


def _softmin_samples(rng):
    return _softmax_samples(rng)


def _softmin(lib, x, *args, dtype=None, **kw):
    return lib.nn.functional.softmin(x, *args, dtype=None if dtype is None
                                     else getattr(lib, dtype), **kw)


OPS = [
    _nn("selu", lambda rng: _unary(rng, lambda x: _away(x * 2))),
    _nn("celu", lambda rng: _unary(rng) + [
        Sample((A(_away(randn(rng, 3, 4))), 0.5), name="alpha=0.5"),
        Sample((A(_away(randn(rng, 3, 4) * 2)),), {"alpha": 2.0}, name="alpha=2")]),
    _nn("softshrink", _shrink_samples),
    _nn("hardshrink", _shrink_samples),
    OpInfo("hardshrink", _shrink_samples, aliases=("Tensor.hardshrink",)),
    _nn("rrelu", _rrelu_samples),
    _nn("softmin", _softmin_samples, fn=_softmin),
]
