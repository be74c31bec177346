"""graphgrad.numpy's products: dot, matmul, inner, outer, vdot, tensordot, einsum, kron,
cross, trace -- NumPy's shape rules, both modes, torch's gradients."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from tests.conftest import torch
from tests.numpy._harness import check_grads, check_values, check_vmap

R = np.random.default_rng(30)
V3, W3 = R.standard_normal(3), R.standard_normal(3)
M23, M34 = R.standard_normal((2, 3)), R.standard_normal((3, 4))
T234 = R.standard_normal((2, 3, 4))
T435 = R.standard_normal((4, 3, 5))
T345 = R.standard_normal((3, 4, 5))
S33 = R.standard_normal((3, 3))

SAMPLES = [
    ("dot_vv", lambda np_, x, y: np_.dot(x, y), V3, W3, lambda t, x, y: t.dot(x, y)),
    ("dot_mv", lambda np_, x, y: np_.dot(x, y), M23, W3, lambda t, x, y: t.mv(x, y)),
    ("dot_mm", lambda np_, x, y: np_.dot(x, y), M23, M34, lambda t, x, y: t.mm(x, y)),
    ("dot_nd", lambda np_, x, y: np_.dot(x, y), T234, T345, None),
    ("dot_scalar", lambda np_, x, y: np_.dot(x, y[0]), M23, W3, None),
    ("matmul", lambda np_, x, y: np_.matmul(x, y), T234, M34.T, lambda t, x, y: x @ y),
    ("matmul_vec", lambda np_, x, y: np_.matmul(y, x), M23.T, W3, None),
    ("at_operator", lambda np_, x, y: np_.sum(x @ y), M23, M34, None),
    ("inner", lambda np_, x, y: np_.inner(x, y), M23, M23, lambda t, x, y: t.inner(x, y)),
    ("inner_vv", lambda np_, x, y: np_.inner(x, y), V3, W3, None),
    ("outer", lambda np_, x, y: np_.outer(x, y), V3, M23, None),
    ("vdot", lambda np_, x, y: np_.vdot(x, y), M23, M23, None),
    ("tensordot_int", lambda np_, x, y: np_.tensordot(x, y, 1), T234, T435,
     lambda t, x, y: t.tensordot(x, y, 1)),
    ("tensordot_pairs", lambda np_, x, y: np_.tensordot(x, y, ([1, 2], [1, 0])), T234, T435,
     None),
    ("tensordot_default", lambda np_, x, y: np_.tensordot(x, y), T234, T234[0], None),
    ("einsum", lambda np_, x, y: np_.einsum("ij,jk->ik", x, y), M23, M34,
     lambda t, x, y: t.einsum("ij,jk->ik", x, y)),
    ("einsum_implicit", lambda np_, x, y: np_.einsum("ij,ij", x, y), M23, M23, None),
    ("einsum_ellipsis", lambda np_, x, y: np_.einsum("...j,jk->...k", x, y),
     T234.transpose(0, 2, 1), M34, None),
    ("einsum_trace", lambda np_, x, y: np_.einsum("ii->", x) * np_.sum(y), S33, V3, None),
    ("kron", lambda np_, x, y: np_.kron(x, y), M23, V3, None),
    ("cross", lambda np_, x, y: np_.cross(x, y), M23, W3,
     lambda t, x, y: t.linalg.cross(x, y.expand(2, 3))),
    ("trace", lambda np_, x, y: np_.trace(x) * y, S33, W3, None),
    ("trace_offset", lambda np_, x, y: np_.trace(x, 1, 2, 0) + y[0], T234, W3, None),
]


@pytest.mark.parametrize("name,f,x,y,tf", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_product(name, f, x, y, tf):
    check_values(f, (x, y))
    check_vmap(f, (x, y))
    check_grads(f, (x, y), np.random.default_rng(31), tf, torch)


def test_int_operands_follow_numpy():
    i = np.arange(6).reshape(2, 3)
    check_values(lambda np_, x: np_.dot(x, x.T), (i,))
    check_values(lambda np_, x: np_.dot(x, np.ones(3)), (i,))
    check_values(lambda np_, x: np_.einsum("ij->j", x), (i,))


def test_errors_have_numpy_types():
    for f in (lambda np_, x, y: np_.dot(x, y), lambda np_, x, y: np_.matmul(x, y),
              lambda np_, x, y: np_.inner(x, y.T), lambda np_, x, y: np_.tensordot(x, y, 1),
              lambda np_, x, y: np_.einsum("ij,jk", x, y), lambda np_, x, y: np_.matmul(x, 2.0)):
        with pytest.raises(ValueError):
            f(np, M23, M23)
        with pytest.raises(ValueError):
            f(gnp, graphgrad.tensor(M23), M23)
