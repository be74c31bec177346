"""graphgrad.numpy's reductions and scans with NumPy's axis/keepdims/ddof/dtype rules."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from tests.conftest import torch
from tests.numpy._harness import check_grads, check_values, check_vmap

R = np.random.default_rng(10)
A = R.standard_normal((3, 4, 2))
POS = R.uniform(0.5, 1.5, (3, 4))

# (id, f(np, x), x, torch's f(torch, x) or None)
SAMPLES = [
    ("sum", lambda np_, x: np_.sum(x), A, lambda t, x: x.sum()),
    ("sum_axis", lambda np_, x: np_.sum(x, axis=1), A, lambda t, x: x.sum(1)),
    ("sum_axes_keepdims", lambda np_, x: np_.sum(x, axis=(0, 2), keepdims=True), A,
     lambda t, x: x.sum((0, 2), keepdim=True)),
    ("sum_neg_axis", lambda np_, x: np_.sum(x, -1), A, None),
    ("sum_empty_axes", lambda np_, x: np_.sum(x, axis=()), A, None),
    ("mean", lambda np_, x: np_.mean(x, axis=(1,)), A, lambda t, x: x.mean(1)),
    ("mean_all_keepdims", lambda np_, x: np_.mean(x, keepdims=True), A, None),
    ("var", lambda np_, x: np_.var(x, axis=0), A, lambda t, x: x.var(0, correction=0)),
    ("var_ddof", lambda np_, x: np_.var(x, axis=(0, 1), ddof=1), A,
     lambda t, x: x.var((0, 1), correction=1)),
    ("std", lambda np_, x: np_.std(x), A, lambda t, x: x.std(correction=0)),
    ("std_keepdims", lambda np_, x: np_.std(x, 2, ddof=1, keepdims=True), A, None),
    ("max", lambda np_, x: np_.max(x, axis=1), A, lambda t, x: x.amax(1)),
    ("amax_all", lambda np_, x: np_.amax(x), A, lambda t, x: x.amax()),
    ("min_keepdims", lambda np_, x: np_.min(x, axis=(0, 2), keepdims=True), A, None),
    ("amin", lambda np_, x: np_.amin(x, 0), A, lambda t, x: x.amin(0)),
    ("ptp", lambda np_, x: np_.ptp(x, axis=1), A, None),
    ("prod", lambda np_, x: np_.prod(x), POS, lambda t, x: x.prod()),
    ("prod_axes", lambda np_, x: np_.prod(x, axis=(0, 1)), A, None),
    ("prod_keepdims", lambda np_, x: np_.prod(x, axis=1, keepdims=True), A, None),
    ("cumsum", lambda np_, x: np_.cumsum(x), A, lambda t, x: x.reshape(-1).cumsum(0)),
    ("cumsum_axis", lambda np_, x: np_.cumsum(x, axis=1), A, lambda t, x: x.cumsum(1)),
    ("cumprod", lambda np_, x: np_.cumprod(x, axis=-1), POS, lambda t, x: x.cumprod(-1)),
    ("average", lambda np_, x: np_.average(x, axis=1), A, None),
    ("average_weights", lambda np_, x: np_.average(x, axis=1, weights=np.arange(1., 5.)), A,
     None),
    ("sort", lambda np_, x: np_.sort(x, axis=1), A, lambda t, x: x.sort(1).values),
    ("sort_none", lambda np_, x: np_.sort(x, axis=None), A, None),
    ("diff", lambda np_, x: np_.diff(x), A, lambda t, x: t.diff(x)),
    ("diff_n2_axis0", lambda np_, x: np_.diff(x, n=2, axis=0), A, None),
    ("nansum", lambda np_, x: np_.nansum(x, axis=0), A, None),
    ("sum_list", lambda np_, x: np_.sum([x[0], x[1]], axis=0), A, None),
    ("mean_dtype", lambda np_, x: np_.mean(x, dtype=np.float64), A, None),
    ("var_0d", lambda np_, x: np_.var(x[0, 0, 0]) + np_.std(x[0, 0, 0]), A, None),
    ("var_empty_axes", lambda np_, x: np_.var(x, axis=()), A, None),
    ("sum_0d", lambda np_, x: np_.sum(x[1, 1, 1]) * np_.mean(x[0, 1, 0]), A, None),
]


@pytest.mark.parametrize("name,f,x,tf", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_reduction(name, f, x, tf):
    check_values(f, (x,))
    check_vmap(f, (x,))
    check_grads(f, (x,), np.random.default_rng(11), tf, torch)


Z = R.standard_normal((3, 4)) + 1j * R.standard_normal((3, 4))


@pytest.mark.parametrize("f", [lambda np_, z: np_.max(z), lambda np_, z: np_.min(z, axis=0),
                               lambda np_, z: np_.amax(z, 1, keepdims=True)])
def test_complex_max_min_order_lexicographically(f):
    check_values(f, (Z,))


def test_integer_dtypes_follow_numpy():
    i = np.arange(12).reshape(3, 4)
    b = i > 5
    for f in (lambda np_, x: np_.sum(x), lambda np_, x: np_.mean(x, 0),
              lambda np_, x: np_.var(x, 1), lambda np_, x: np_.cumsum(x),
              lambda np_, x: np_.prod(x, 0), lambda np_, x: np_.max(x)):
        check_values(f, (i,))
    check_values(lambda np_, x: np_.sum(x, axis=0), (b,))
    check_values(lambda np_, x: np_.mean(x), (b,))


def test_errors_have_numpy_types():
    t = graphgrad.tensor(A)
    for f in (lambda np_, x: np_.sum(x, axis=3), lambda np_, x: np_.max(x, -4)):
        with pytest.raises(np.exceptions.AxisError):
            f(np, A)
        with pytest.raises(np.exceptions.AxisError):
            f(gnp, t)
    with pytest.raises(ValueError, match="repeated|duplicate"):
        gnp.mean(t, (0, 0))
    with pytest.raises(ValueError, match="zero-size array"):
        gnp.max(graphgrad.tensor(np.zeros((0, 3))))
    with pytest.raises(ValueError, match="zero-size array"):
        np.max(np.zeros((0, 3)))
    with pytest.raises(NotImplementedError, match="where"):
        gnp.sum(t, where=A > 0)
