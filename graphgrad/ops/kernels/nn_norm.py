"""NumPy kernels of the nn_norm family: layer_norm.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_norm.py, the
public functions in nn/functional/norm.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32


# ====================================================================== layer norm
def _ln_axes(normalized_shape):
    return tuple(range(-len(normalized_shape), 0))


# NOTE [layer_norm by rows]
# A C-contiguous float32/float64 input of more than _ROWS_MIN elements whose normalized
# size n is at most _DOT_ROW is normalised as a (rows, n) matrix: the row sums are BLAS
# matrix-vector products (x @ ones, and einsum's row dot for the squares), and the
# column sums of the parameters' gradients ones @ (rows, n), instead of NumPy's sums over
# a short last axis, which loop row by row (~4x slower here), and without the full-size
# temporaries of ``mean(d * d)`` and of the parameter gradients' products.  The same
# formula in the same order as the general path; the sums round differently in the last
# bits (a dot's accumulators against NumPy's pairwise sum, as PyTorch's vectorised sums
# also do).  Other inputs take the general path.
_ROWS_MIN = 16384
_DOT_ROW = 2048


def _ln_rows(x, weight, bias, normalized_shape):
    """(x as (rows, n), n) when NOTE [layer_norm by rows] applies, else None."""
    if x.__class__ is not np.ndarray or not (x.dtype == np.float32 or x.dtype == np.float64) \
            or not x.flags.c_contiguous or x.size <= _ROWS_MIN:
        return None
    n = 1
    for s in normalized_shape:
        n *= s
    if not 0 < n <= _DOT_ROW:
        return None
    for p in (weight, bias):
        if p is not None and (p.__class__ is not np.ndarray or p.dtype != x.dtype):
            return None
    return x.reshape(-1, n), n


def _row_dot(a, b):
    """Row-wise dot products of two (rows, n) matrices."""
    return np.einsum("ij,ij->i", a, b)


def _layer_norm_rows(x2, n, shape, weight, bias, normalized_shape, eps):
    one = np.ones(n, x2.dtype)
    mean = np.matmul(x2, one)
    mean /= n
    out = np.subtract(x2, mean[:, None])
    var = _row_dot(out, out)
    var /= n
    var += eps
    rstd = np.sqrt(var, out=var)
    np.divide(1.0, rstd, out=rstd)
    out *= rstd[:, None]
    if weight is not None:
        out *= weight.reshape(-1)
    if bias is not None:
        out += bias.reshape(-1)
    stat = shape[:len(shape) - len(normalized_shape)] + (1,) * len(normalized_shape)
    return out.reshape(shape), mean.reshape(stat), rstd.reshape(stat)


def _ln_input_grad_rows(g2, x2, n, weight, mean, rstd):
    """layer_norm's input gradient (NOTE [layer_norm by rows]); g2, x2 (rows, n).

    PyTorch's CPU kernel's form: with gw = grad * weight, per row db = sum(gw),
    ds = sum(gw * x), b = (db mean - ds) rstd^3 / n and c = -b mean - db rstd / n,
        dx = rstd gw + b x + c
    -- the row sums of gw and of gw * x, no centred copy of x (four full passes after gw,
    where rstd (gw - mean(gw) - xhat mean(gw xhat)) took eight)."""
    mean, rstd = mean.reshape(-1), rstd.reshape(-1)
    g = g2 * weight.reshape(-1) if weight is not None else g2.copy()
    db = np.matmul(g, np.ones(n, g.dtype))
    ds = _row_dot(g, x2)
    inv_n = 1.0 / n
    b = db * mean
    b -= ds
    b *= rstd
    b *= rstd
    b *= rstd
    b *= inv_n
    c = b * mean
    np.negative(c, out=c)
    c -= db * rstd * inv_n
    g *= rstd[:, None]
    t = np.multiply(x2, b[:, None])
    t += c[:, None]
    g += t
    return g


def _ln_weight_grad_rows(g2, x2, mean, rstd):
    """sum over rows of grad * xhat: the weight's gradient, in the weight's shape."""
    xhat = np.subtract(x2, mean.reshape(-1, 1))
    xhat *= rstd.reshape(-1, 1)
    xhat *= g2
    return np.matmul(np.ones(xhat.shape[0], xhat.dtype), xhat)


@half_in_float32
def _layer_norm_kernel(x, weight, bias, normalized_shape, eps):
    rows = _ln_rows(x, weight, bias, normalized_shape)
    if rows is not None:
        return _layer_norm_rows(rows[0], rows[1], x.shape, weight, bias, normalized_shape, eps)
    axes = _ln_axes(normalized_shape)
    mean = x.mean(axis=axes, keepdims=True)
    out = np.subtract(x, mean, order="C")  # (PyTorch's result is contiguous for any layout)
    var = np.mean(out * out, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    out *= rstd
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return out, mean, rstd
