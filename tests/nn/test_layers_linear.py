"""Identity, Linear, Bilinear against torch.nn (weights copied from torch)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, needs, randn

torch = pytest.importorskip("torch")


def test_identity():
    check_layer(lambda lib: lib.nn.Identity(3, foo=1), [randn(2, 3)])


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3), (0, 3)])
def test_linear(bias, shape):
    check_layer(lambda lib: lib.nn.Linear(3, 4, bias=bias, dtype=lib.float64), [randn(*shape)])


def test_linear_default_init_bounds_and_dtype():
    m = gg.nn.Linear(50, 20)
    assert m.weight.dtype == gg.float32 and m.bias.dtype == gg.float32
    b = 1 / math.sqrt(50)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= b and np.abs(w).max() > 0.9 * b
    assert np.abs(m.bias.detach().numpy()).max() <= b
    assert m.weight.requires_grad and m.weight.is_leaf


def test_linear_wrong_input_raises_runtime_error():
    def prog(lib):
        return lib.nn.Linear(3, 4)(lib.randn(2, 5))
    run_both(prog)


@needs("bilinear")
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear(bias):
    check_layer(lambda lib: lib.nn.Bilinear(3, 2, 4, bias=bias, dtype=lib.float64),
                [randn(5, 3), randn(5, 2, seed=1)])


def test_bilinear_repr_and_shapes():
    for lib in (gg, torch):
        m = lib.nn.Bilinear(3, 2, 4)
        assert tuple(m.weight.shape) == (4, 3, 2)
    assert repr(gg.nn.Bilinear(3, 2, 4, bias=False)) == repr(torch.nn.Bilinear(3, 2, 4,
                                                                             bias=False))
    with pytest.raises(ValueError):
        gg.nn.Bilinear(0, 2, 4)
