"""log_softmax's blocked sum of exponentials (ops/kernels/nn_softmax.py) gives the
whole-array expression's sums bit for bit, and declines rows longer than its block."""
import numpy as np
import pytest

from graphgrad.ops.kernels import nn_softmax as K


@pytest.mark.parametrize("shape", [(1024, 1000), (7, 3000), (4, 5, 900), (20000, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blocked_sum_of_exponentials_is_bit_for_bit(shape, dtype):
    a = (np.random.default_rng(0).standard_normal(shape) * 5).astype(dtype)
    s = np.subtract(a, a.max(axis=-1, keepdims=True))
    got = K._sum_exp_rows(s)
    want = np.exp(s).sum(axis=-1, keepdims=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(K._log_softmax_kernel(a, -1), s - np.log(want))


def test_a_row_longer_than_the_block_is_declined():
    assert K._sum_exp_rows(np.zeros((2, K._ROWS_BLOCK + 1))) is None
