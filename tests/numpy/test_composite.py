"""graphgrad.numpy's composed functions (linspace with Tensor end points, nan_to_num,
select, real_if_close, partition, gradient, r_/c_, einsum's interleaved form), and
complex inputs to functions whose result is real."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from tests.numpy._harness import check_grads, check_values, check_vmap

R = np.random.default_rng(70)
M = R.standard_normal((5, 4))
V = R.standard_normal(4)

SAMPLES = [
    ("linspace", lambda np_, x: np_.linspace(x[0], x[1], 7), V),
    ("linspace_vector_axis", lambda np_, x: np_.linspace(x[:2], x[2:], 4, axis=1), V),
    ("linspace_no_endpoint", lambda np_, x: np_.linspace(x[0], 2.0, 5, endpoint=False), V),
    ("nan_to_num", lambda np_, x: np_.nan_to_num(
        np_.add(np_.where(np.array([True, False, False, False]), np.nan, x),
                np.array([0.0, np.inf, 0.0, -np.inf])), posinf=5.0), V),
    ("select", lambda np_, x: np_.select([x > 0.5, x < -0.5], [x ** 2, np_.sin(x)], 0.1), M),
    ("partition", lambda np_, x: np_.partition(x, 2, axis=0), M),
    ("gradient", lambda np_, x: np_.gradient(x), M),
    ("gradient_axis_spacing", lambda np_, x: np_.gradient(x, 0.5, axis=1, edge_order=2), M),
    ("r_", lambda np_, x: np_.r_[x[0], 2.0, x[1, :2], 0:6:2], M),
    ("c_", lambda np_, x: np_.c_[x[:, 0], x[:, 1:3]], M),
    ("einsum_sublists", lambda np_, x: np_.einsum(x, [0, 1], x, [0, 2], [1, 2]), M),
]


@pytest.mark.parametrize("name,f,x", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_composite(name, f, x):
    check_values(f, (x,))
    if name != "partition":   # (its order is read from the data: vmap refuses)
        check_vmap(f, (x,))
    check_grads(f, (x,), np.random.default_rng(71))


Z = R.standard_normal((3, 4)) + 1j * R.standard_normal((3, 4))


@pytest.mark.parametrize("f", [
    lambda np_, z: np_.abs(z), lambda np_, z: np_.angle(z), lambda np_, z: np_.real(z),
    lambda np_, z: np_.imag(z), lambda np_, z: np_.var(z, axis=0), lambda np_, z: np_.std(z),
    lambda np_, z: np_.sum(z, 1), lambda np_, z: np_.mean(z), lambda np_, z: np_.exp(z),
    lambda np_, z: np_.linalg.norm(z), lambda np_, z: np_.linalg.svd(z, compute_uv=False),
    lambda np_, z: np_.real_if_close(z * 0 + 1.0), lambda np_, z: np_.conj(z) * z,
])
def test_complex_inputs_keep_their_imaginary_part(f):
    check_values(f, (Z,))


def test_eigh_and_cholesky_read_one_triangle_as_numpy():
    """The other triangle gets no gradient (NumPy never reads it)."""
    q = R.standard_normal((3, 3))
    spd = q @ q.T + 3 * np.eye(3)
    nonsym = spd + np.triu(R.standard_normal((3, 3)), 1)
    for f in (lambda np_, x: np_.linalg.eigh(x)[0], lambda np_, x: np_.linalg.eigvalsh(x, "U"),
              lambda np_, x: np_.linalg.cholesky(x)):
        check_values(f, (nonsym,))
        check_grads(f, (nonsym,), np.random.default_rng(72))
    g = graphgrad.func.grad(lambda x: gnp.sum(gnp.linalg.eigh(x)[0] ** 2))(nonsym)
    assert np.all(np.triu(g, 1) == 0)


def test_r_c_refuse_string_directives_with_tensors():
    assert np.array_equal(gnp.r_[1:4, 7], np.r_[1:4, 7])
    with pytest.raises(NotImplementedError, match="r_"):
        gnp.r_["0,2", graphgrad.tensor(V), V]
