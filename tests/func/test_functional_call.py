"""graphgrad.func.functional_call and stack_module_state against torch.func."""
from __future__ import annotations

import numpy as np

import graphgrad
from tests.conftest import _run, torch
from tests.func.test_eager_transforms import _same, both, msg

RNG = np.random.default_rng(7)
X = RNG.standard_normal((5, 3))


def model(lib, seed=0):
    """A small MLP with a BatchNorm (a buffer), weights drawn from NumPy (same in both)."""
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh(),
                          lib.nn.Linear(4, 2)).double()
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _, p in m.named_parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        m[1].running_mean.copy_(lib.tensor(rng.standard_normal(4)))
    return m.eval()


def new_params(lib, m, seed=1):
    rng = np.random.default_rng(seed)
    return {k: lib.tensor(rng.standard_normal(tuple(p.shape))) for k, p in m.named_parameters()}


def test_functional_call_values_and_restores_the_module():
    def f(lib):
        m = model(lib)
        before = {k: v.clone() for k, v in m.state_dict().items()}
        p = new_params(lib, m)
        out = lib.func.functional_call(m, p, (lib.tensor(X),))
        out1 = lib.func.functional_call(m, p, lib.tensor(X))          # args not a tuple
        bufs = {"1.running_mean": lib.zeros(4, dtype=lib.float64)}
        out2 = lib.func.functional_call(m, (p, bufs), (lib.tensor(X),))
        part = lib.func.functional_call(m, {"0.bias": lib.zeros(4, dtype=lib.float64)},
                                        (lib.tensor(X),))
        after = m.state_dict()
        return out, out1, out2, part, m(lib.tensor(X)), all(
            bool((before[k] == after[k]).all()) for k in before)
    both(f)


def test_functional_call_kwargs():
    def f(lib):
        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(3, dtype=lib.float64))

            def forward(self, x, *, shift=0.0):
                return x * self.w + shift
        return lib.func.functional_call(Scale(), {"w": lib.tensor([1.0, 2, 3])},
                                        (lib.tensor(X[0]),), {"shift": 1.5})
    both(f)


def test_grad_through_functional_call():
    def f(lib):
        m = model(lib)
        params = {k: v.detach() for k, v in m.named_parameters()}
        x = lib.tensor(X)

        def loss(p, x):
            return lib.func.functional_call(m, p, (x,)).pow(2).sum()
        g = lib.func.grad(loss)(params, x)
        j = lib.func.jacrev(lambda p: lib.func.functional_call(m, p, (x,)))(params)
        return g, j
    both(f)


def test_tied_weights():
    def f(lib):
        class Tied(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Linear(2, 2, bias=False).double()
                self.b = lib.nn.Linear(2, 2, bias=False).double()
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.b(self.a(x))
        m = Tied()
        w = lib.tensor([[1.0, 2], [3, 4]])
        x = lib.tensor([0.5, -1.0])
        out = lib.func.functional_call(m, {"a.weight": w}, (x,))
        untied = lib.func.functional_call(m, {"a.weight": w}, (x,), tie_weights=False)
        return out, untied.shape, lib.func.functional_call(
            m, {"a.weight": w, "b.weight": w * 2}, (x,))
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    _same(ours, theirs)


def test_functional_call_errors():
    fc = lambda lib, *a, **k: lib.func.functional_call(*a, **k)  # noqa: E731
    assert "multiple dictionaries" in msg(lambda lib: fc(
        lib, model(lib), ({"0.bias": lib.zeros(4)}, {"0.bias": lib.zeros(4)}), (lib.tensor(X),)))
    assert "dictionaries" in msg(lambda lib: fc(lib, model(lib), ({"0.bias": lib.zeros(4)}, 3),
                                                (lib.tensor(X),)))
    assert "dict" in msg(lambda lib: fc(lib, model(lib), 3, (lib.tensor(X),)))
    assert "Missing key" in msg(lambda lib: fc(lib, model(lib), {"0.bias": lib.zeros(4)},
                                               (lib.tensor(X),), strict=True))
    assert "Unexpected key" in msg(lambda lib: fc(
        lib, model(lib), dict(model(lib).state_dict(), extra=lib.zeros(1)), (lib.tensor(X),),
        strict=True))


def test_the_module_is_restored_when_forward_raises():
    def f(lib):
        m = model(lib)
        w = m[0].weight
        try:
            lib.func.functional_call(m, {"0.weight": lib.zeros(4, 5, dtype=lib.float64)},
                                     (lib.tensor(X),))
        except RuntimeError:
            pass
        return m[0].weight is w, type(m[0].weight).__name__
    both(f)


def test_stack_module_state_and_ensembling():
    def f(lib):
        models = [model(lib, seed=s) for s in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        meta = {k: (v.requires_grad, v.is_leaf) for k, v in params.items()}
        x = lib.tensor(X)
        # ensembling without vmap: one functional_call per stacked slice
        base = model(lib, seed=9)
        outs = [lib.func.functional_call(base, ({k: v[i] for k, v in params.items()},
                                                {k: v[i] for k, v in buffers.items()}), (x,))
                for i in range(3)]
        return params, buffers, meta, outs
    both(f)


def test_stack_module_state_errors():
    assert "at least one model" in msg(lambda lib: lib.func.stack_module_state([]))
    assert "same class" in msg(lambda lib: lib.func.stack_module_state(
        [lib.nn.Linear(2, 2), lib.nn.Tanh()]))
    assert "training/eval" in msg(lambda lib: lib.func.stack_module_state(
        [lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()]))

    def mixed(lib):
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        b.bias.requires_grad_(False)
        return lib.func.stack_module_state([a, b])
    assert "requires_grad" in msg(mixed)


def test_nn_utils_stateless_reexport():
    from graphgrad.nn.utils import stateless
    assert stateless.functional_call is graphgrad.func.functional_call
    assert stateless.stack_module_state is graphgrad.func.stack_module_state
