"""graphgrad.numpy's construction, shape, joining, splitting and diagonal functions."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from tests.conftest import torch
from tests.numpy._harness import check_grads, check_values, check_vmap

pytestmark = pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated")

R = np.random.default_rng(20)
A = R.standard_normal((2, 3, 4))
M = R.standard_normal((3, 4))
S = R.standard_normal((4, 4))
V = R.standard_normal(5)

SAMPLES = [
    ("array_list", lambda np_, x: np_.array([x[0], x[1] * 2, x[2]]), M,
     lambda t, x: t.stack([x[0], x[1] * 2, x[2]])),
    ("array_nested", lambda np_, x: np_.array([[x[0, 0], 1.0], [2.0, x[1, 1]]]), M, None),
    ("asarray", lambda np_, x: np_.asarray(x) * 2, M, None),
    ("copy", lambda np_, x: np_.copy(x), M, None),
    ("reshape", lambda np_, x: np_.reshape(x, (4, -1)), A, lambda t, x: x.reshape(4, -1)),
    ("reshape_F", lambda np_, x: np_.reshape(x, (6, 4), order="F"), A, None),
    ("reshape_int", lambda np_, x: np_.reshape(x, 24), A, None),
    ("ravel", lambda np_, x: np_.ravel(x), A, lambda t, x: x.ravel()),
    ("ravel_F", lambda np_, x: np_.ravel(x, order="F"), A, None),
    ("transpose", lambda np_, x: np_.transpose(x), A, lambda t, x: x.permute(2, 1, 0)),
    ("transpose_axes", lambda np_, x: np_.transpose(x, (1, 0, 2)), A, None),
    ("swapaxes", lambda np_, x: np_.swapaxes(x, 0, -1), A, lambda t, x: x.swapaxes(0, -1)),
    ("moveaxis", lambda np_, x: np_.moveaxis(x, 0, -1), A, lambda t, x: x.movedim(0, -1)),
    ("moveaxis_many", lambda np_, x: np_.moveaxis(x, [0, 1], [2, 0]), A, None),
    ("rollaxis", lambda np_, x: np_.rollaxis(x, 2, 1), A, None),
    ("expand_dims", lambda np_, x: np_.expand_dims(x, 1), M, lambda t, x: x.unsqueeze(1)),
    ("expand_dims_tuple", lambda np_, x: np_.expand_dims(x, (0, -1)), M, None),
    ("squeeze", lambda np_, x: np_.squeeze(x[:, :1]), M, None),
    ("squeeze_axis", lambda np_, x: np_.squeeze(x[:, :1], axis=1), M, None),
    ("tile", lambda np_, x: np_.tile(x, (2, 1, 2)), M, None),
    ("tile_int", lambda np_, x: np_.tile(x, 3), V, lambda t, x: x.tile(3)),
    ("repeat", lambda np_, x: np_.repeat(x, 2), M, None),
    ("repeat_axis", lambda np_, x: np_.repeat(x, [1, 0, 3], axis=0), M,
     lambda t, x: x.repeat_interleave(t.tensor([1, 0, 3]), 0)),
    ("flip", lambda np_, x: np_.flip(x), A, lambda t, x: x.flip((0, 1, 2))),
    ("flip_axis", lambda np_, x: np_.flip(x, 1), A, None),
    ("fliplr", lambda np_, x: np_.fliplr(x), M, None),
    ("flipud", lambda np_, x: np_.flipud(x), M, None),
    ("roll", lambda np_, x: np_.roll(x, 2), M, None),
    ("roll_axis", lambda np_, x: np_.roll(x, (1, -1), axis=(0, 1)), M,
     lambda t, x: x.roll((1, -1), (0, 1))),
    ("rot90", lambda np_, x: np_.rot90(x), M, lambda t, x: x.rot90()),
    ("rot90_k3", lambda np_, x: np_.rot90(x, 3, axes=(1, 2)), A, None),
    ("rot90_k2", lambda np_, x: np_.rot90(x, 2), M, None),
    ("concatenate", lambda np_, x: np_.concatenate([x, x * 2], axis=1), M,
     lambda t, x: t.cat([x, x * 2], 1)),
    ("concatenate_none", lambda np_, x: np_.concatenate((x, x[0]), axis=None), M, None),
    ("concatenate_mixed", lambda np_, x: np_.concatenate([x, np.ones((1, 4))]), M, None),
    ("stack", lambda np_, x: np_.stack([x, x ** 2], axis=-1), M, None),
    ("hstack", lambda np_, x: np_.hstack([x, x]), M, None),
    ("hstack_1d", lambda np_, x: np_.hstack([x, x[:2]]), V, None),
    ("vstack", lambda np_, x: np_.vstack([x, x * 2]), V, None),
    ("row_stack", lambda np_, x: np_.row_stack([x, x]), M, None),
    ("dstack", lambda np_, x: np_.dstack([x, x]), M, None),
    ("column_stack", lambda np_, x: np_.column_stack([x, x]), V, None),
    ("append", lambda np_, x: np_.append(x, x[0]), M, None),
    ("append_axis", lambda np_, x: np_.append(x, x[:1], axis=0), M, None),
    ("split", lambda np_, x: np_.split(x, 2, axis=2), A, None),
    ("split_indices", lambda np_, x: np_.split(x, [1, 3], axis=1), M, None),
    ("array_split", lambda np_, x: np_.array_split(x, 3), V, None),
    ("hsplit", lambda np_, x: np_.hsplit(x, 2), M, None),
    ("vsplit", lambda np_, x: np_.vsplit(x, [1]), M, None),
    ("dsplit", lambda np_, x: np_.dsplit(x, 2), A, None),
    ("atleast_1d", lambda np_, x: np_.atleast_1d(x[0, 0]), M, None),
    ("atleast_2d", lambda np_, x: np_.atleast_2d(x), V, None),
    ("atleast_3d", lambda np_, x: np_.atleast_3d(x, x[0]), M, None),
    ("broadcast_to", lambda np_, x: np_.broadcast_to(x, (2, 5)), V, None),
    ("diag_vec", lambda np_, x: np_.diag(x, 1), V, lambda t, x: t.diag(x, 1)),
    ("diag_mat", lambda np_, x: np_.diag(x, -1), M, lambda t, x: t.diag(x, -1)),
    ("diagonal", lambda np_, x: np_.diagonal(x, 1, 0, 2), A, None),
    ("triu", lambda np_, x: np_.triu(x, 1), S, lambda t, x: t.triu(x, 1)),
    ("tril", lambda np_, x: np_.tril(x), M, lambda t, x: t.tril(x)),
    ("tril_1d", lambda np_, x: np_.tril(x, -1), V, None),
    ("take", lambda np_, x: np_.take(x, [[0, 5], [11, 2]]), M, None),
    ("take_axis", lambda np_, x: np_.take(x, [2, 0, 2], axis=1), M, None),
    ("take_along_axis", lambda np_, x: np_.take_along_axis(x, np.argsort(M, 1), 1), M, None),
    ("pad", lambda np_, x: np_.pad(x, ((1, 0), (2, 1))), M, None),
    ("pad_value", lambda np_, x: np_.pad(x, 2, constant_values=1.5), V, None),
    ("index", lambda np_, x: x[1:, ::2][:, None] * x[0, :2], M, None),
]


@pytest.mark.parametrize("name,f,x,tf", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_shape_function(name, f, x, tf):
    check_values(f, (x,))
    check_vmap(f, (x,))
    check_grads(f, (x,), np.random.default_rng(21), tf, torch)


def test_array_of_tensors_promotes_like_numpy():
    t32 = graphgrad.tensor(np.ones(2, np.float32))
    assert gnp.array([t32, t32]).dtype == graphgrad.float32
    assert gnp.array([t32, np.ones(2)]).dtype == graphgrad.float64
    assert gnp.array([graphgrad.tensor(1.0), 2]).shape == (2,)
    assert gnp.array(t32, ndmin=3).shape == (1, 1, 2)


def test_errors_have_numpy_types():
    t, n = graphgrad.tensor(M), M
    for f, exc in [(lambda np_, x: np_.reshape(x, (5, 2)), ValueError),
                   (lambda np_, x: np_.concatenate([x, x[0]]), ValueError),
                   (lambda np_, x: np_.concatenate([x, x[:, :2]]), ValueError),
                   (lambda np_, x: np_.stack([x, x[0]]), ValueError),
                   (lambda np_, x: np_.split(x, 2), ValueError),
                   (lambda np_, x: np_.squeeze(x, 0), ValueError),
                   (lambda np_, x: np_.transpose(x, (0, 0)), ValueError),
                   (lambda np_, x: np_.swapaxes(x, 0, 2), np.exceptions.AxisError),
                   (lambda np_, x: np_.broadcast_to(x, (2, 3)), ValueError),
                   (lambda np_, x: np_.diag(x[None]), ValueError),
                   (lambda np_, x: np_.array([x, x[0]]), ValueError),
                   (lambda np_, x: np_.take(x, [12]), IndexError)]:
        with pytest.raises(exc):
            f(np, n)
        with pytest.raises(exc):
            f(gnp, t)
