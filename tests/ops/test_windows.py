"""Window functions (hann, hamming, blackman, bartlett, kaiser) against PyTorch's: values,
dtypes, periodic / symmetric, lengths 0 and 1, requires_grad leaves, refused arguments."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg

torch = pytest.importorskip("torch")

NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
         "kaiser_window"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 13])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", None])
def test_values_and_dtypes(name, n, periodic, dtype):
    kw = {} if dtype is None else {"dtype": getattr(gg, dtype)}
    a = getattr(gg, name)(n, periodic, **kw)
    kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    b = getattr(torch, name)(n, periodic, **kw)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    tol = 1e-13 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)


def test_default_periodic_and_parameters():
    np.testing.assert_allclose(gg.hann_window(6).numpy(), torch.hann_window(6).numpy(), atol=1e-7)
    np.testing.assert_allclose(gg.hamming_window(6, False, 0.6, 0.3).numpy(),
                               torch.hamming_window(6, False, 0.6, 0.3).numpy(), atol=1e-7)
    np.testing.assert_allclose(gg.kaiser_window(7, True, 5.0, dtype=gg.float64).numpy(),
                               torch.kaiser_window(7, True, 5.0, dtype=torch.float64).numpy(),
                               atol=1e-13)


def test_requires_grad_leaf():
    w = gg.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None


@pytest.mark.parametrize("call", [
    lambda L: L.hann_window(-1), lambda L: L.hann_window(3, dtype=L.int64),
    lambda L: L.hann_window(3.0), lambda L: L.kaiser_window(4, dtype=L.int64),
    lambda L: L.bartlett_window(4, dtype=L.complex64), lambda L: L.blackman_window(-2),
])
def test_errors_are_torchs(call):
    errs = []
    for lib in (gg, torch):
        with pytest.raises(Exception) as e:
            call(lib)
        errs.append(e.type)
    assert errs[0] is errs[1]
