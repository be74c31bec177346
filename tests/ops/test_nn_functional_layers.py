"""The functional ops of the nn layers (graphgrad/nn/_functional_<family>.py) beyond what the
op table checks (tests/ops/op_db/nn_layers.py): PyTorch's argument errors (exception types),
batch_norm's running statistics, randomness of the dropouts, and torch.* aliases."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both

torch = pytest.importorskip("torch")


def _t(lib, *shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape))


# (name, program(lib, F)): each must raise PyTorch's exception type in graphgrad too
ERRORS = {
    "conv_transpose1d output_padding >= stride": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), output_padding=1),
    "conv_transpose2d output_padding >= stride": lambda L, F: F.conv_transpose2d(
        _t(L, 2, 4, 5, 5), _t(L, 4, 3, 3, 3), output_padding=(1, 0), stride=(1, 2)),
    "conv_transpose1d channels": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 3, 3, 3)),
    "conv_transpose1d weight rank": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5),
                                                                    _t(L, 4, 3, 3, 3)),
    "conv_transpose1d groups": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 4, 3, 3),
                                                               groups=3),
    "conv_transpose1d bias": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 4, 3, 3),
                                                             _t(L, 4)),
    "conv_transpose1d input rank": lambda L, F: F.conv_transpose1d(_t(L, 2, 2, 4, 5),
                                                                   _t(L, 4, 3, 3)),
    "conv_transpose1d too much padding": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), padding=5),
    "conv_transpose1d stride 0": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 4, 3, 3),
                                                                 stride=0),
    "conv_transpose1d negative padding": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), padding=-1),
    "conv_transpose1d padding string": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), padding="same"),
    "conv_transpose1d dtypes": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5),
                                                               _t(L, 4, 3, 3).float()),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_argument_errors_vs_torch(name):
    prog = ERRORS[name]

    def run(lib):
        import importlib
        return prog(lib, importlib.import_module(lib.__name__ + ".nn.functional"))
    ours, theirs = run_both(run)
    assert type(theirs).__name__ == "Raised", f"torch accepted {name}"


@pytest.mark.parametrize("name", ["conv_transpose1d", "conv_transpose2d"])
def test_torch_namespace_aliases(name):
    assert getattr(gg, name) is getattr(gg.nn.functional, name)
