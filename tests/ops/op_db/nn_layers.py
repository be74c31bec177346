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


OPS = [
    _nn("conv_transpose1d", _conv_transpose1d_samples, rtol=1e-4, atol=2e-5),
    _nn("conv_transpose2d", _conv_transpose2d_samples, rtol=1e-4, atol=2e-5),
]
