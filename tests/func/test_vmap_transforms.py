"""graphgrad.func against torch.func where vmap meets the other transforms and options:
a ``vjp_fn`` made outside vmap mapped over cotangents (the tutorials' Jacobian row by
row), has_aux and argnums tuples inside vmap, chunk_size with transforms inside, the
randomness modes (the same structure: which raise, which rows are equal), and the error
types of the unsupported cases."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
from tests.conftest import Raised, _run, torch
from tests.func.test_vmap import _close, _no_fallback

RNG = np.random.default_rng(2107)
X3 = RNG.standard_normal(3)
M33 = RNG.standard_normal((3, 3))
XB = RNG.standard_normal((4, 3))
EYE3 = np.eye(3)


def both(program, tol=1e-10):
    ours, theirs = _run(program, graphgrad), _run(program, torch)
    if isinstance(ours, Raised) or isinstance(theirs, Raised):
        assert isinstance(ours, Raised) and isinstance(theirs, Raised), (ours, theirs)
        assert type(ours.exc).__name__ == type(theirs.exc).__name__, (ours, theirs)
        return ours, theirs
    _close(ours, theirs, tol)
    return ours, theirs


# ----------------------------------------------------------------- vmap over an outside vjp_fn
def test_vmap_of_a_vjp_fn_made_outside_vmap():
    def f(L):
        W, x = L.tensor(M33), L.tensor(X3)
        _, fn = L.func.vjp(lambda x: (W @ x).tanh(), x)
        return L.func.vmap(fn)(L.tensor(EYE3))
    ours, _ = both(f)
    # (each row its own: not example 0's answer repeated)
    assert not np.allclose(ours[0][0].numpy(), ours[0][1].numpy())


def test_vmap_of_an_outside_vjp_fn_pytrees_and_partly_batched_cotangents():
    def f(L):
        x, y = L.tensor(X3), L.tensor(M33[0])
        _, fn = L.func.vjp(lambda x, y: {"a": x.sin() * y, "b": (x * y).sum()}, x, y)
        cots_a = L.tensor(XB)
        return L.func.vmap(lambda ca, cb: fn({"a": ca, "b": cb}), in_dims=(0, None))(
            cots_a, L.tensor(0.5))
    both(f)


def test_nested_vmap_of_an_outside_vjp_fn_and_an_unreached_input():
    def f(L):
        x, z = L.tensor(X3), L.tensor(X3[:2])
        _, fn = L.func.vjp(lambda x, z: x.exp() * 2, x, z)
        cots = L.tensor(np.stack([XB, XB * 2]))
        return L.func.vmap(L.func.vmap(fn))(cots)
    both(f)


def test_vmap_of_an_outside_vjp_fn_inside_grad():
    def f(L):
        def g(w):
            _, fn = L.func.vjp(lambda x: (w * x).sin(), L.tensor(X3))
            return L.func.vmap(fn)(L.tensor(EYE3))[0].sum()
        return L.func.grad(g)(L.tensor(M33[1]))
    both(f)


# ----------------------------------------------------------------- has_aux / argnums inside vmap
def _loss(w, b, x):
    y = (x @ w + b).tanh()
    return (y * y).sum(), {"y": y, "n": y.abs().max()}


@pytest.mark.parametrize("argnums", [0, (0, 1), (1, 0), (2,)])
def test_grad_and_value_inside_vmap_with_argnums_tuples_and_aux(argnums):
    def f(L):
        w, b = L.tensor(M33), L.tensor(X3)
        return L.func.vmap(L.func.grad_and_value(_loss, argnums=argnums, has_aux=True),
                           in_dims=(None, None, 0))(w, b, L.tensor(XB))
    both(f)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_inside_vmap_with_aux_and_argnums(jac):
    def f(L):
        def g(w, x):
            y = (x @ w).sin()
            return y, y.sum()
        return L.func.vmap(getattr(L.func, jac)(g, argnums=(0, 1), has_aux=True),
                           in_dims=(None, 0))(L.tensor(M33), L.tensor(XB))
    both(f)


def test_vjp_and_jvp_inside_vmap_with_aux():
    def f(L):
        F = L.func

        def g(x):
            return {"s": x.sin(), "c": x.cos() * x}, x.sum()

        def per(x):
            out, fn, aux = F.vjp(g, x, has_aux=True)
            v = fn({"s": x, "c": x * 0 + 1})
            o2, t, aux2 = F.jvp(g, (x,), (x.exp(),), has_aux=True)
            return out, v, aux, t, aux2
        return F.vmap(per)(L.tensor(XB))
    both(f)


# ----------------------------------------------------------------- chunk_size
@pytest.mark.parametrize("chunk_size", [1, 3, 4, 100])
def test_vmap_chunk_size_with_transforms_inside(chunk_size):
    def f(L):
        F = L.func
        return (F.vmap(F.grad(lambda w, x: _loss(w, L.zeros(3, dtype=L.float64), x)[0]),
                       in_dims=(None, 0), chunk_size=chunk_size)(L.tensor(M33), L.tensor(XB)),
                F.vmap(F.jacrev(lambda x: x.sin() * x.sum(), chunk_size=2),
                       chunk_size=chunk_size)(L.tensor(XB)),
                F.vmap(lambda x: {"a": x * 2, "b": (x.sum(),)}, chunk_size=chunk_size,
                       out_dims={"a": 1, "b": (0,)})(L.tensor(XB)))
    both(f)


def test_jacrev_chunk_size_composed():
    def f(L):
        F = L.func
        h = lambda x: (x.sin() * x.exp()).sum()  # noqa: E731
        return (F.jacrev(F.jacrev(h, chunk_size=1), chunk_size=2)(L.tensor(X3)),
                F.jacfwd(F.jacrev(h, chunk_size=2))(L.tensor(X3)))
    both(f)


# ----------------------------------------------------------------- randomness
RANDOM_OPS = {
    "rand_like": lambda L, x: x + L.rand_like(x),
    "randn": lambda L, x: x + L.randn(3, dtype=L.float64),
    "randn_like_complex": lambda L, x: x + L.randn_like(x.to(L.complex128)).real,
    "rand_requires_grad": lambda L, x: x + L.rand(3, dtype=L.float64, requires_grad=True),
    "randint": lambda L, x: x + L.randint(0, 1000, (3,)),
    "normal_size": lambda L, x: x + L.normal(0.0, 1.0, (3,), dtype=L.float64),
    "bernoulli": lambda L, x: x * L.full_like(x, 0.5).bernoulli(),
    "dropout": lambda L, x: L.nn.functional.dropout(x, 0.5, training=True),
    "normal_": lambda L, x: x.clone().normal_(),
    "uniform_": lambda L, x: x.clone().uniform_(),
}


def _rows_equal(t):
    a = t.detach().numpy() if hasattr(t, "detach") else t
    return all(np.array_equal(a[0], a[i]) for i in range(1, len(a)))


# docs/differences.md (vmap): "same" on a batched input (which PyTorch refuses) replays
# one draw for every example
KNOWN = {("bernoulli", "same"): ((4, 3), True)}


@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
@pytest.mark.parametrize("mode", ["error", "different", "same"])
def test_randomness_modes_match_torch(op, mode):
    def f(L):
        L.manual_seed(0)
        x = L.zeros(4, 3, dtype=L.float64)   # every example the same: only the draws differ
        out = L.func.vmap(lambda a: RANDOM_OPS[op](L, a), randomness=mode)(x)
        return tuple(out.shape), _rows_equal(out)
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    if (op, mode) in KNOWN:
        assert ours == KNOWN[op, mode]
        return
    if isinstance(theirs, Raised):
        assert isinstance(ours, Raised), (op, mode, ours, theirs)
        assert type(ours.exc).__name__ == type(theirs.exc).__name__
        assert "randomness" in str(ours.exc)
    else:
        assert ours == theirs, (op, mode)


@pytest.mark.parametrize("mode", ["different", "same"])
def test_randomness_with_a_batched_input_to_the_sampler(mode):
    # bernoulli of batched probabilities: per example in "different"; torch refuses "same"
    def f(L):
        L.manual_seed(0)
        p = L.full((4, 3), 0.5, dtype=L.float64)
        out = L.func.vmap(lambda a: L.bernoulli(a), randomness=mode)(p)
        return tuple(out.shape), _rows_equal(out)
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    if mode == "same":   # (PyTorch refuses; graphgrad replays one draw: see KNOWN above)
        assert isinstance(theirs, Raised) and ours == ((4, 3), True)
    else:
        assert ours == theirs == ((4, 3), False)


@pytest.mark.parametrize("mode", ["different", "same", "error"])
def test_multinomial_of_a_batched_input_raises_rather_than_read_example_0(mode):
    p = graphgrad.tensor(np.eye(3))
    with pytest.raises(RuntimeError, match="randomness error mode" if mode == "error"
                       else "multinomial of a batched tensor"):
        graphgrad.func.vmap(lambda q: graphgrad.multinomial(q, 1), randomness=mode)(p)
    # (a batch of distributions outside vmap: one row each)
    assert graphgrad.multinomial(p, 1).flatten().tolist() == [0, 1, 2]


def test_randomness_with_chunk_size_and_grad_inside():
    def f(L):
        L.manual_seed(0)
        x = L.zeros(6, 3, dtype=L.float64)
        g = L.func.grad(lambda a: (a + L.rand_like(a)).pow(2).sum())
        d = L.func.vmap(g, randomness="different", chunk_size=2)(x)
        s = L.func.vmap(g, randomness="same", chunk_size=4)(x)
        return _rows_equal(d), _rows_equal(s)
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    assert ours == theirs == (False, True)


# ----------------------------------------------------------------- unsupported cases
UNSUPPORTED = {
    "grad_of_a_vector_inside_vmap": lambda L: L.func.vmap(L.func.grad(lambda a: a * 2))(
        L.tensor(XB)),
    "grad_bad_aux_inside_vmap": lambda L: L.func.vmap(
        L.func.grad(lambda a: a.sum(), has_aux=True))(L.tensor(XB)),
    "grad_argnum_out_of_range_inside_vmap": lambda L: L.func.vmap(
        L.func.grad(lambda a: a.sum(), argnums=1))(L.tensor(XB)),
    "item_inside_grad_inside_vmap": lambda L: L.func.vmap(
        L.func.grad(lambda a: a.sum() * a.sum().item()))(L.tensor(XB)),
    "vmap_in_dims_mismatch_inside_grad": lambda L: L.func.grad(
        lambda a: L.func.vmap(lambda r: r.sum(), in_dims=(0, 0))(a).sum())(L.tensor(XB)),
    "jacrev_non_tensor_output_inside_vmap": lambda L: L.func.vmap(
        L.func.jacrev(lambda a: (a, "s")))(L.tensor(XB)),
    "vjp_fn_wrong_shape_inside_vmap": lambda L: L.func.vmap(
        L.func.vjp(lambda x: x.sin(), L.tensor(X3))[1])(L.tensor(M33[:, :2])),
    "jvp_tangent_shape_inside_vmap": lambda L: L.func.vmap(
        lambda a: L.func.jvp(L.sin, (a,), (L.ones(2, dtype=L.float64),)))(L.tensor(XB)),
    "random_in_jacrev_inside_vmap": lambda L: L.func.vmap(
        L.func.jacrev(lambda a: a * L.rand_like(a)))(L.tensor(XB)),
    "inplace_into_captured_inside_vmap_grad": lambda L: L.func.vmap(
        L.func.grad(lambda a: L.zeros(3, dtype=L.float64).add_(a).sum()))(L.tensor(XB)),
}


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_unsupported_cases_raise_torchs_exception_types(case):
    ours, theirs = _run(UNSUPPORTED[case], graphgrad), _run(UNSUPPORTED[case], torch)
    assert isinstance(theirs, Raised), theirs
    assert isinstance(ours, Raised), f"graphgrad returned {ours!r}, torch raised {theirs!r}"
    assert type(ours.exc).__name__ == type(theirs.exc).__name__, (ours, theirs)


def test_no_fallback_for_the_outside_vjp_fn():
    W, x = graphgrad.tensor(M33), graphgrad.tensor(X3)
    _, fn = graphgrad.func.vjp(lambda x: (W @ x).tanh(), x)
    _no_fallback(lambda: graphgrad.func.vmap(fn)(graphgrad.tensor(EYE3)))


# ----------------------------------------------------------------- the per-example Linear
# (inside vmap(grad(f)) a Linear on one example is a row times a batched weight: graphgrad
# computes F.linear, and a product x @ w.T written out, with its own nodes
# (func/_row_matmul.py), whose backward must match the batched ops')
def _linear_loss(L, bias=True, how="F.linear"):
    def lin(x, w, b):
        if how == "F.linear":
            return L.nn.functional.linear(x, w, b)
        y = x @ w.T
        return y if b is None else y + b

    def loss(p, x, y):
        xi = x.unsqueeze(0) if how != "vector" else x
        h = lin(xi, p["w1"], p["b1"] if bias else None).tanh()
        out = lin(h, p["w2"], None)
        if how == "vector":
            out = out.unsqueeze(0)
        return L.nn.functional.cross_entropy(out, y.unsqueeze(0))
    return loss


def _linear_params(L, dtype):
    r = np.random.default_rng(5)
    return {"w1": L.tensor(r.standard_normal((6, 4)), dtype=dtype),
            "b1": L.tensor(r.standard_normal(6), dtype=dtype),
            "w2": L.tensor(r.standard_normal((3, 6)), dtype=dtype)}


def _linear_data(L, dtype):
    r = np.random.default_rng(6)
    return L.tensor(r.standard_normal((5, 4)), dtype=dtype), L.tensor(r.integers(0, 3, 5))


@pytest.mark.parametrize("how", ["F.linear", "matmul", "vector"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_per_example_linear_grads(how, dtype, bias):
    def f(L):
        dt = getattr(L, dtype)
        x, y = _linear_data(L, dt)
        return L.func.vmap(L.func.grad(_linear_loss(L, bias, how)), in_dims=(None, 0, 0))(
            _linear_params(L, dt), x, y)
    both(f, tol=1e-5 if dtype == "float32" else 1e-10)


def test_per_example_linear_with_unbatched_or_batched_pieces():
    """The bias or the weight per example (in_dims 0), the input shared (in_dims None), a
    bias that requires grad outside: the rule's other cases, against torch."""
    def f(L):
        x, y = _linear_data(L, L.float64)
        p = _linear_params(L, L.float64)
        F = L.func
        loss = _linear_loss(L)
        ws = L.stack([p["w1"], p["w1"] * 2, p["w1"] - 1, p["w1"], p["w1"]])
        a = F.vmap(F.grad(lambda w, xi, yi: loss({**p, "w1": w}, xi, yi)), in_dims=(0, 0, 0))(
            ws, x, y)
        b = F.vmap(F.grad(lambda q, xi, yi: loss(q, xi, yi)), in_dims=(None, None, 0))(
            p, x[0], y)
        bb = p["b1"].clone().requires_grad_(True)
        c = F.vmap(F.grad(lambda q, xi, yi: loss({**q, "b1": bb}, xi, yi)),
                   in_dims=(None, 0, 0))(p, x, y)
        (sum(v.sum() for v in c.values())).backward()
        return a, b, c, bb.grad
    both(f)


def test_per_example_linear_second_order():
    """create_graph through the per-example product's backward, and its batched backward
    (jacrev inside vmap), against torch."""
    def f(L):
        F = L.func
        x, y = _linear_data(L, L.float64)
        p = _linear_params(L, L.float64)
        out = []
        for how in ("F.linear", "matmul"):
            loss = _linear_loss(L, how=how)
            # the gradient of a function of the per-sample gradients
            out.append(F.grad(lambda q: sum((g ** 2).sum() for g in F.vmap(
                F.grad(loss), in_dims=(None, 0, 0))(q, x, y).values()))(p))
            # per-example Hessians of the loss in w2, reverse over reverse
            out.append(F.vmap(F.jacrev(F.jacrev(
                lambda w2, xi, yi: loss({**p, "w2": w2}, xi, yi))), in_dims=(None, 0, 0))(
                    p["w2"], x, y))
        # per-example Jacobians of the activations with respect to the weights
        out.append(F.vmap(F.jacrev(
            lambda w, xi: L.nn.functional.linear(xi.unsqueeze(0), w).tanh()),
            in_dims=(None, 0))(p["w1"], x))
        return out
    both(f)


@pytest.mark.parametrize("how,node", [("F.linear", "RowLinear"), ("matmul", "RowMatmul")])
def test_per_example_linear_node_is_used(how, node):
    from graphgrad.func import _row_matmul
    cls = getattr(_row_matmul, node)
    calls = []
    real = cls.backward

    def counting(ctx, g):
        calls.append(g.shape)
        return real(ctx, g)
    cls.backward = staticmethod(counting)
    try:
        x, y = _linear_data(graphgrad, graphgrad.float32)
        graphgrad.func.vmap(graphgrad.func.grad(_linear_loss(graphgrad, how=how)),
                            in_dims=(None, 0, 0))(_linear_params(graphgrad, graphgrad.float32),
                                                  x, y)
    finally:
        cls.backward = staticmethod(real)
    assert len(calls) == 2


# ----------------------------------------------------------------- autograd inside vmap
def test_autograd_grad_of_an_outside_graph_over_batched_grad_outputs():
    def f(L):
        x = L.tensor(X3, requires_grad=True)
        y = {"a": x.sin() * 2, "b": (x * x).sum()}
        z = L.tensor(X3[:2], requires_grad=True)
        one = L.func.vmap(lambda v: L.autograd.grad(y["a"], x, v, retain_graph=True)[0])(
            L.tensor(EYE3))
        two = L.func.vmap(lambda v, s: L.autograd.grad(
            (y["a"], y["b"]), (x, z), (v, s), retain_graph=True, allow_unused=True),
            in_dims=(0, None))(L.tensor(XB), L.tensor(0.5))
        return one, two[0], two[1] is None
    both(f)


def test_backward_inside_vmap_with_batched_values_raises():
    def f(L):
        x = L.tensor(X3, requires_grad=True)
        y = x.sin() * 2
        return L.func.vmap(lambda v: y.backward(v, retain_graph=True))(L.tensor(EYE3))
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    assert isinstance(ours, Raised) and isinstance(theirs, Raised), (ours, theirs)
    assert type(ours.exc) is RuntimeError and type(theirs.exc).__name__ == "RuntimeError"
    with pytest.raises(RuntimeError, match="batched value inside vmap"):
        graphgrad.func.vmap(lambda a: graphgrad.autograd.grad(
            (a * a).sum(), a))(graphgrad.tensor(XB, requires_grad=True))


def test_implicit_backward_of_a_batched_scalar_inside_vmap_raises():
    """``loss.backward()`` (no gradient argument) of a per-example scalar inside vmap: each
    example's loss is a 0-d value, which the plain backward's shortcut must not take for
    an ordinary scalar (it would accumulate one example's gradient, silently)."""
    def f(L):
        w = L.tensor(X3, requires_grad=True)
        return L.func.vmap(lambda v: (w * v).sum().backward())(L.tensor(EYE3))
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    assert isinstance(ours, Raised) and isinstance(theirs, Raised), (ours, theirs)
    assert type(ours.exc) is RuntimeError and type(theirs.exc).__name__ == "RuntimeError"


def test_random_draws_per_example_in_nested_levels():
    """A draw from a shape gets a batch dim per "different" level, none per "same" one."""
    def f(L):
        L.manual_seed(0)
        x = L.zeros(2, 3, 4, dtype=L.float64)
        inner = lambda a: a + L.rand(4, dtype=L.float64)  # noqa: E731
        out = {}
        for outer_mode in ("same", "different"):
            for inner_mode in ("same", "different"):
                r = L.func.vmap(L.func.vmap(inner, randomness=inner_mode),
                                randomness=outer_mode)(x).numpy()
                out[outer_mode, inner_mode] = (np.array_equal(r[0], r[1]),
                                               np.array_equal(r[:, 0], r[:, 1]))
        return out
    ours, theirs = _run(f, graphgrad), _run(f, torch)
    assert ours == theirs, (ours, theirs)
