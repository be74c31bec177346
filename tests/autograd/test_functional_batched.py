"""The vectorized reverse-mode jacobian's own paths against PyTorch: its one batched
backward called on the engine directly (the seeds and edges it builds are what
autograd.grad would check them to be), the blocks it returns without a further detach,
grad() itself while a vmap level is active, the identity basis, and the grad mode
the functional API sets around the user's function."""
import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both

RNG = np.random.default_rng(7)
B = RNG.standard_normal((4, 4)) / 2
X4 = RNG.standard_normal(4)
M23 = RNG.standard_normal((2, 3))


def _jac(lib, f, inputs, **kw):
    return lib.autograd.functional.jacobian(f, inputs, vectorize=True, **kw)


@pytest.mark.parametrize("create_graph", [False, True])
def test_one_input_one_output(create_graph):
    def prog(lib):
        b = lib.tensor(B)
        x = lib.tensor(X4, requires_grad=create_graph)
        J = _jac(lib, lambda v: lib.sin(b @ v) * v, x, create_graph=create_graph)
        out = [J, J.requires_grad, J.is_leaf]
        if create_graph:
            out.append(lib.autograd.grad(J.sum(), x)[0])
        return out
    run_both(prog)


@pytest.mark.parametrize("create_graph", [False, True])
def test_several_inputs_and_outputs_with_unreached_pairs(create_graph):
    def prog(lib):
        a = lib.tensor(M23)
        x = lib.tensor(X4)
        c = lib.tensor([0.5, -1.5], requires_grad=True)

        def f(m, v):
            # an output of m alone, one of v alone, one that needs no grad at all, a 0-d one
            return (m.exp() * 2.0, v.cos(), c * 3.0, (m.sum() * v).sum())
        return _jac(lib, f, (a, x), create_graph=create_graph)
    run_both(prog)


def test_zero_dim_and_empty_inputs():
    def prog(lib):
        s = lib.tensor(0.3, dtype=lib.float64)
        e = lib.zeros(0, dtype=lib.float64)
        x = lib.tensor(X4)
        return _jac(lib, lambda a, b, v: (a * v, (b * 2.0).sum() + a, v.sin()), (s, e, x))
    run_both(prog)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_dtypes(dtype):
    def prog(lib):
        x = lib.tensor(X4).to(getattr(lib, dtype))
        return _jac(lib, lambda v: (v * v).exp(), x)
    run_both(prog)


def test_grad_mode_outside():
    def prog(lib):
        x = lib.tensor(X4)
        seen = []

        def f(v):
            seen.append(lib.is_grad_enabled())
            return v.sin()
        with lib.no_grad():
            J = _jac(lib, f, x)
            inside = lib.is_grad_enabled()
        J2 = _jac(lib, f, x)
        return J, J2, seen, inside, lib.is_grad_enabled()
    run_both(prog)


def test_an_error_in_the_function_restores_grad_mode():
    def prog(lib):
        def f(v):
            lib.set_grad_enabled(False)
            raise ValueError("boom")
        with lib.no_grad():
            try:
                _jac(lib, f, lib.tensor(X4))
            except ValueError:
                pass
            return lib.is_grad_enabled()
    run_both(prog)


def test_grad_while_a_vmap_level_is_active_goes_through_grad(monkeypatch):
    # inside vmap, autograd.grad hands batched values to func's hook: the jacobian's
    # backward must then take grad() (the hook returns None: "not batched, go on")
    import graphgrad.autograd as ag
    calls = []
    monkeypatch.setattr(ag, "vmap_grad_hook", lambda *a, **k: calls.append(k) or None)
    b = graphgrad.tensor(B)
    x = graphgrad.tensor(X4)
    J = _jac(graphgrad, lambda v: graphgrad.sin(b @ v) * v, x)
    assert len(calls) == 1 and calls[0]["is_grads_batched"]
    monkeypatch.setattr(ag, "vmap_grad_hook", None)
    np.testing.assert_array_equal(J.numpy(), _jac(graphgrad, lambda v: graphgrad.sin(b @ v) * v,
                                                   x).numpy())


def test_identity_basis_blocks():
    from graphgrad.autograd.functional import _standard_basis
    ts = (graphgrad.zeros(2), graphgrad.zeros(3, 1), graphgrad.zeros(0), graphgrad.zeros(()))
    blocks = _standard_basis(ts, [2, 3, 0, 1])
    assert [b.shape for b in blocks] == [(6, 2), (6, 3, 1), (6, 0), (6,)]
    full = np.concatenate([b.reshape(6, -1) for b in blocks], axis=1)
    np.testing.assert_array_equal(full, np.eye(6))
