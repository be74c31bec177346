"""A vector norm's derivative at a zero norm when the incoming gradient or tangent is
infinite or NaN (an earlier op's derivative, e.g. sqrt's at 0): PyTorch zeroes the scaled
gradient of p > 1 after the division by the norm (masked_fill_), so the result is 0 there,
not 0 * inf (fuzz seed 729041)."""
import numpy as np
import pytest

import graphgrad

ORDS = (0.5, 1, 1.5, 2, 3, float("inf"))
INCOMING = (float("inf"), float("nan"), 1.0)


def _jvp(lib, p, t):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(lib.tensor([[0.0, 0.0], [1.0, 0.0]], dtype=lib.float64),
                         lib.tensor([[t, 1.0], [1.0, t]], dtype=lib.float64))
        return fw.unpack_dual(x.norm(p, -1)).tangent.numpy()


def _vjp(lib, p, g):
    x = lib.tensor([[0.0, 0.0], [1.0, 0.0]], dtype=lib.float64, requires_grad=True)
    y = lib.linalg.vector_norm(x, p, -1)
    return lib.autograd.grad(y, x, lib.tensor([g, g], dtype=lib.float64))[0].numpy()


@pytest.mark.parametrize("p", ORDS)
@pytest.mark.parametrize("incoming", INCOMING)
def test_zero_norm_with_nonfinite_incoming_matches_pytorch(torch, p, incoming):
    np.testing.assert_array_equal(_jvp(graphgrad, p, incoming), _jvp(torch, p, incoming))
    np.testing.assert_array_equal(_vjp(graphgrad, p, incoming), _vjp(torch, p, incoming))
