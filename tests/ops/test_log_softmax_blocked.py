"""softmax and log_softmax by row blocks (NOTE [softmax by row blocks] in
ops/kernels/nn_softmax.py) against the whole-array expressions, forward and backward,
and which inputs take them."""
import numpy as np
import pytest

from graphgrad.ops.kernels import nn_softmax as K
from graphgrad.ops.derivatives import nn_softmax as D

SHAPES = [(1024, 1000), (7, 70000), (4, 5, 9000), (70000, 3), (16, 4, 64, 64)]


def _whole(a, log):
    s = np.subtract(a, a.max(axis=-1, keepdims=True))
    if log:
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def _no_worse(got, whole, ref, scale=None):
    # the row sums are a BLAS dot where the whole-array expressions use NumPy's pairwise
    # sum: they round differently, so both are measured against a float64 reference
    fin = np.isfinite(ref)
    np.testing.assert_array_equal(np.isfinite(got), fin)
    e_got = np.abs(got[fin] - ref[fin]).max()
    e_whole = np.abs(whole[fin] - ref[fin]).max()
    scale = np.abs(ref[fin]).max() if scale is None else scale
    assert e_got <= 2 * e_whole + 16 * np.finfo(got.dtype).eps * scale, \
        (e_got, e_whole)


def _vjp_whole(g, y, log):
    if log:
        return g - np.exp(y) * g.sum(-1, keepdims=True)
    return y * g - y * (g * y).sum(-1, keepdims=True)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("log", [False, True])
def test_row_blocks_match_the_whole_array_expressions(shape, dtype, log):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) * 5).astype(dtype)
    a.reshape(-1)[::97] = -np.inf  # masked entries, as softmax(masked_fill(...)) gets
    assert K._row_blocks(a, -1) and K._row_blocks(a, a.ndim - 1)
    kernel = K._log_softmax_kernel if log else K._softmax_kernel
    y = kernel(a, -1)
    assert y.dtype == dtype and y.shape == a.shape and y.flags.c_contiguous
    _no_worse(y, _whole(a, log), _whole(a.astype(np.float64), log))
    g = rng.standard_normal(shape).astype(dtype)
    vjp = D._log_softmax_vjp if log else D._softmax_vjp
    got = vjp(g, y, -1)
    assert got.dtype == dtype and got.shape == a.shape
    # the sums' rounding: ~eps * sum |terms| of a row
    scale = np.abs(g if log else g * y).sum(-1).max()
    ref = _vjp_whole(g.astype(np.float64), y.astype(np.float64), log)
    _no_worse(got, _vjp_whole(g, y, log), ref, scale)
    # a gradient of another layout takes the whole-array formula
    _no_worse(vjp(np.asfortranarray(g), y, -1), _vjp_whole(g, y, log), ref, scale)


def test_nan_and_inf_rows():
    a = np.zeros((2, 40000), np.float32)
    a[0, 5] = np.nan
    a[1, :] = -np.inf
    for log in (False, True):
        y = (K._log_softmax_kernel if log else K._softmax_kernel)(a, 1)
        assert np.isnan(y).all()
        np.testing.assert_array_equal(np.isnan(y), np.isnan(_whole(a, log)))


def test_what_takes_the_row_blocks():
    a = np.zeros((100, 1000), np.float32)
    assert K._row_blocks(a, 1) and K._row_blocks(a, -1)
    assert not K._row_blocks(a, 0)                      # another dim
    assert not K._row_blocks(a.T.copy().T, 1)           # not C-contiguous
    assert not K._row_blocks(a[:50], 1)                 # one block or less
    assert not K._row_blocks(a.astype(np.float16), 1)   # half: computed in float32 first
    assert not K._row_blocks(np.zeros((70000, 0), np.float32), 1)
