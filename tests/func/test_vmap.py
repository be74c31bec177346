"""graphgrad.func.vmap against torch.func.vmap and against a Python loop over the batch:
ops with batching rules (which must not take the per-example fallback), in_dims/out_dims
pytrees, nesting, randomness, chunk_size, errors, and transforms inside vmap (per-sample
gradients, batched Jacobians, ensembling)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphgrad
import graphgrad.func as gfunc
from graphgrad.func import _batching
from tests.conftest import torch

RNG = np.random.default_rng(21)


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _close(a, b, tol=1e-10):
    a, b = _np(a), _np(b)
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    if isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            _close(a[k], b[k], tol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(np.float64) if a.dtype != bool else a,
                               b.astype(np.float64) if b.dtype != bool else b,
                               rtol=tol, atol=tol)


def _no_fallback(fn):
    """Run fn, failing if any op took the per-example fallback."""
    before = dict(_batching.FALLBACK_COUNTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        out = fn()
    assert _batching.FALLBACK_COUNTS == before, "an op fell back to the per-example loop"
    return out


B = 3
A34 = RNG.standard_normal((B, 3, 4))
C34 = RNG.standard_normal((B, 3, 4))
D4 = RNG.standard_normal(4)
M45 = RNG.standard_normal((4, 5))
P34 = np.abs(RNG.standard_normal((B, 3, 4))) + 0.5
SQ = RNG.standard_normal((B, 3, 3))
SPD = SQ @ SQ.transpose(0, 2, 1) + 3 * np.eye(3)
IDX = RNG.integers(0, 3, (B, 2, 4))

# (name, function of (lib, *args), batched inputs, in_dims); every op here has a real rule
OPS = [
    ("sin", lambda L, a: L.sin(a), (A34,), 0),
    ("exp_tanh", lambda L, a: a.exp().tanh(), (A34,), 0),
    ("relu", lambda L, a: L.nn.functional.relu(a), (A34,), 0),
    ("gelu", lambda L, a: L.nn.functional.gelu(a), (A34,), 0),
    ("sigmoid", lambda L, a: L.sigmoid(a), (A34,), 0),
    ("log", lambda L, a: L.log(a), (P34,), 0),
    ("pow_scalar", lambda L, a: a ** 2.5, (P34,), 0),
    ("add", lambda L, a, b: a + b, (A34, C34), 0),
    ("mul_bcast", lambda L, a, b: a * b, (A34, D4), (0, None)),
    ("sub_rank", lambda L, a, b: a - b, (A34, RNG.standard_normal((B, 4))), 0),
    ("div", lambda L, a, b: a / b, (A34, P34), 0),
    ("maximum", lambda L, a, b: L.maximum(a, b), (A34, C34), 0),
    ("where", lambda L, a, b: L.where(a > 0, a, b), (A34, C34), 0),
    ("clamp", lambda L, a: L.clamp(a, -0.5, 0.5), (A34,), 0),
    ("eq", lambda L, a, b: (a > b).to(L.float64), (A34, C34), 0),
    ("sum", lambda L, a: a.sum(), (A34,), 0),
    ("sum_dim", lambda L, a: a.sum(1), (A34,), 0),
    ("sum_neg_keep", lambda L, a: a.sum(-2, keepdim=True), (A34,), 0),
    ("mean", lambda L, a: a.mean(), (A34,), 0),
    ("mean_dim", lambda L, a: a.mean(0), (A34,), 0),
    ("prod_dim", lambda L, a: a.prod(1), (A34,), 0),
    ("amax", lambda L, a: a.amax(0), (A34,), 0),
    ("max", lambda L, a: a.max(), (A34,), 0),
    ("max_dim", lambda L, a: a.max(1)[0], (A34,), 0),
    ("argmax", lambda L, a: a.argmax(), (A34,), 0),
    ("argmax_dim", lambda L, a: a.argmax(1), (A34,), 0),
    ("var", lambda L, a: a.var(0), (A34,), 0),
    ("std_all", lambda L, a: a.std(), (A34,), 0),
    ("norm", lambda L, a: L.linalg.vector_norm(a, dim=1), (A34,), 0),
    ("logsumexp", lambda L, a: L.logsumexp(a, 1), (A34,), 0),
    ("cumsum", lambda L, a: a.cumsum(0), (A34,), 0),
    ("softmax", lambda L, a: a.softmax(0), (A34,), 0),
    ("log_softmax", lambda L, a: L.nn.functional.log_softmax(a, dim=-1), (A34,), 0),
    ("view", lambda L, a: a.view(12), (A34,), 0),
    ("reshape", lambda L, a: a.reshape(2, -1, 3), (A34,), 0),
    ("flatten", lambda L, a: a.flatten(), (A34,), 0),
    ("transpose", lambda L, a: a.transpose(0, 1), (A34,), 0),
    ("t", lambda L, a: a.t(), (A34,), 0),
    ("permute", lambda L, a: a.permute(1, 0), (A34,), 0),
    ("unsqueeze", lambda L, a: a.unsqueeze(0), (A34,), 0),
    ("squeeze", lambda L, a: a.unsqueeze(1).squeeze(), (A34,), 0),
    ("expand", lambda L, a: a[0].expand(2, 3, 4), (A34,), 0),
    ("repeat", lambda L, a: a.repeat(2, 1), (A34,), 0),
    ("select", lambda L, a: a[1], (A34,), 0),
    ("slice", lambda L, a: a[:, 1:3], (A34,), 0),
    ("index", lambda L, a: a[L.tensor([0, 2, 2])], (A34,), 0),
    ("flip", lambda L, a: a.flip(0), (A34,), 0),
    ("roll", lambda L, a: a.roll(1, 1), (A34,), 0),
    ("cat", lambda L, a, b: L.cat([a, b], 0), (A34, C34), 0),
    ("cat_unbatched", lambda L, a, b: L.cat([a, b], 1), (A34, M45[:3]), (0, None)),
    ("stack", lambda L, a, b: L.stack([a, b], 1), (A34, C34), 0),
    ("split", lambda L, a: a.split(2, 1)[1], (A34,), 0),
    ("unbind", lambda L, a: a.unbind(1)[2], (A34,), 0),
    ("chunk", lambda L, a: a.chunk(3, 0)[0], (A34,), 0),
    ("gather", lambda L, a, i: a.gather(0, i), (A34, IDX), 0),
    ("index_select", lambda L, a: a.index_select(1, L.tensor([3, 0])), (A34,), 0),
    ("sort", lambda L, a: a.sort(1)[0], (A34,), 0),
    ("topk", lambda L, a: a.topk(2, 1)[0], (A34,), 0),
    ("tril", lambda L, a: a.tril(), (A34,), 0),
    ("diagonal", lambda L, a: a.diagonal(), (A34,), 0),
    ("trace", lambda L, a: a[:, :3].trace(), (A34,), 0),
    ("mm", lambda L, a, m: a @ m, (A34, M45), (0, None)),
    ("mm_both", lambda L, a, m: a @ m, (A34, RNG.standard_normal((B, 4, 2))), 0),
    ("mv", lambda L, a, v: a @ v, (A34, D4), (0, None)),
    ("mv_batched_vec", lambda L, m, v: m @ v, (M45[:3, :4], RNG.standard_normal((B, 4))),
     (None, 0)),
    ("dot", lambda L, a, b: L.dot(a, b), (RNG.standard_normal((B, 4)), D4), (0, None)),
    ("vec_mat", lambda L, v, m: v @ m, (RNG.standard_normal((B, 4)), M45), (0, None)),
    ("bmm", lambda L, a, b: L.bmm(a, b), (A34[:, None], RNG.standard_normal((B, 1, 4, 2))), 0),
    ("einsum", lambda L, a: L.einsum("ij->ji", a), (A34,), 0),
    ("linear", lambda L, a, w, b: L.nn.functional.linear(a, w, b),
     (A34, M45.T, RNG.standard_normal(5)), (0, None, None)),
    ("linear_bw", lambda L, a, w: L.nn.functional.linear(a, w),
     (A34, RNG.standard_normal((B, 5, 4))), 0),
    ("det", lambda L, a: L.linalg.det(a), (SPD,), 0),
    ("inv", lambda L, a: L.linalg.inv(a), (SPD,), 0),
    ("cholesky", lambda L, a: L.linalg.cholesky(a), (SPD,), 0),
    ("solve_vec", lambda L, a, b: L.linalg.solve(a, b), (SPD, RNG.standard_normal((B, 3))), 0),
    ("solve_unbatched_A", lambda L, a, b: L.linalg.solve(a, b),
     (SPD[0], RNG.standard_normal((B, 3, 2))), (None, 0)),
    ("solve_right", lambda L, a, b: L.linalg.solve(a, b, left=False),
     (SPD, RNG.standard_normal((B, 2, 3))), 0),
    ("unfold", lambda L, x: L.nn.functional.unfold(x, 2), (RNG.standard_normal((B, 2, 3, 4, 4)),), 0),
    ("index_add_batched_index", lambda L, a, i, s: a.index_add(1, i, s),
     (A34, RNG.integers(0, 4, (B, 2)), RNG.standard_normal((B, 3, 2))), 0),
    ("index_add_inplace", lambda L, a, i, s: a.clone().index_add_(0, i, s, alpha=2.0),
     (A34, RNG.integers(0, 3, (B, 5)), RNG.standard_normal((B, 5, 4))), 0),
    ("mse_loss", lambda L, a, b: L.nn.functional.mse_loss(a, b), (A34, C34), 0),
    ("l1_none", lambda L, a, b: L.nn.functional.smooth_l1_loss(a, b, reduction="none"),
     (A34, C34), 0),
    ("cross_entropy", lambda L, a, t: L.nn.functional.cross_entropy(a, t),
     (A34, RNG.integers(0, 4, (B, 3))), 0),
    ("nll_sum", lambda L, a, t: L.nn.functional.nll_loss(a, t, reduction="sum"),
     (A34, RNG.integers(0, 4, (B, 3))), 0),
    ("layer_norm", lambda L, a: L.nn.functional.layer_norm(a, (4,)), (A34,), 0),
    ("layer_norm_w", lambda L, a, w: L.nn.functional.layer_norm(a, (4,), w),
     (A34, RNG.standard_normal((B, 4))), 0),
    ("conv2d", lambda L, x, w: L.nn.functional.conv2d(x, w),
     (RNG.standard_normal((B, 2, 3, 6, 6)), RNG.standard_normal((4, 3, 3, 3))), (0, None)),
    ("conv2d_bw", lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1),
     (RNG.standard_normal((B, 2, 3, 5, 5)), RNG.standard_normal((B, 4, 3, 3, 3)),
      RNG.standard_normal((B, 4))), 0),
    ("max_pool2d", lambda L, x: L.nn.functional.max_pool2d(x, 2),
     (RNG.standard_normal((B, 2, 3, 6, 6)),), 0),
    ("avg_pool2d", lambda L, x: L.nn.functional.avg_pool2d(x, 2),
     (RNG.standard_normal((B, 2, 3, 6, 6)),), 0),
    ("embedding", lambda L, i, w: L.nn.functional.embedding(i, w),
     (RNG.integers(0, 4, (B, 3)), M45), (0, None)),
    ("pad", lambda L, x: L.nn.functional.pad(x, (1, 2)), (A34,), 0),
    ("inplace_add", lambda L, a, b: a.clone().add_(b), (A34, D4), (0, None)),
    ("inplace_mul", lambda L, a: a.clone().mul_(2.0), (A34,), 0),
]


def _lib_args(L, args):
    return [L.tensor(np.array(a)) for a in args]


def _move(args, dims, k):
    """Inputs with their batch dim moved to ``k`` (for in_dims k)."""
    dims = dims if isinstance(dims, tuple) else (dims,) * len(args)
    out, nd = [], []
    for a, d in zip(args, dims):
        if d is None:
            out.append(a)
            nd.append(None)
        else:
            kk = k % a.ndim
            out.append(np.moveaxis(a, 0, kk))
            nd.append(k)
    return out, tuple(nd)


@pytest.mark.parametrize("name,fn,args,dims", OPS, ids=[o[0] for o in OPS])
@pytest.mark.parametrize("where", [0, 1, -1])
def test_op_matches_loop_and_torch(name, fn, args, dims, where):
    moved, nd = _move(list(args), dims, where)
    ga = _lib_args(graphgrad, moved)
    ours = _no_fallback(lambda: gfunc.vmap(lambda *a: fn(graphgrad, *a), in_dims=nd)(*ga))
    theirs = torch.func.vmap(lambda *a: fn(torch, *a), in_dims=nd)(*_lib_args(torch, moved))
    _close(ours, theirs)
    # a Python loop of the op over the batch
    base = _lib_args(graphgrad, list(args))
    bd = dims if isinstance(dims, tuple) else (dims,) * len(args)
    loop = graphgrad.stack([fn(graphgrad, *[a[b] if d is not None else a
                                            for a, d in zip(base, bd)]) for b in range(B)])
    _close(ours, loop)


def test_out_dims_and_pytrees():
    x = RNG.standard_normal((2, 3))
    for L, vm in ((graphgrad, gfunc.vmap), (torch, torch.func.vmap)):
        pass

    def run(L, vm):
        d = {"a": L.tensor(x), "b": (L.tensor(x.T), L.tensor(1.0))}
        f = vm(lambda t: (t["a"] * 2, {"s": t["b"][0].sum() + t["b"][1]}),
               in_dims=({"a": 0, "b": (1, None)},), out_dims=(1, {"s": 0}))
        return f(d)
    ours, theirs = run(graphgrad, gfunc.vmap), run(torch, torch.func.vmap)
    _close(ours[0], theirs[0])
    _close(ours[1]["s"], theirs[1]["s"])
    # out_dims None for an unbatched output, negative out_dim
    o = gfunc.vmap(lambda a: (a.sum(), graphgrad.tensor(2.0)), out_dims=(-1, None))(
        graphgrad.tensor(x))
    t = torch.func.vmap(lambda a: (a.sum(), torch.tensor(2.0)), out_dims=(-1, None))(
        torch.tensor(x))
    _close(o, t)


def test_in_dims_negative_and_none_kwargs():
    x = RNG.standard_normal((3, 2))
    o = gfunc.vmap(lambda a, s: a * s, in_dims=(-1, None))(graphgrad.tensor(x), 2.0)
    t = torch.func.vmap(lambda a, s: a * s, in_dims=(-1, None))(torch.tensor(x), 2.0)
    _close(o, t)
    o = gfunc.vmap(lambda a, *, k: a * k)(graphgrad.tensor(x), k=graphgrad.tensor(3.0))
    _close(o, x * 3)


@pytest.mark.parametrize("case", ["mismatch", "no_batched", "out_of_range", "non_tensor",
                                  "non_tensor_out", "in_dims_type", "structure", "no_inputs",
                                  "out_dims_none_batched", "bad_randomness", "chunk"])
def test_errors_match_torch(case):
    def run(L, vm):
        a, b = L.tensor(np.ones((2, 3))), L.tensor(np.ones((3, 3)))
        try:
            if case == "mismatch":
                vm(lambda x, y: x + y)(a, b)
            elif case == "no_batched":
                vm(lambda x: x, in_dims=None)(a)
            elif case == "out_of_range":
                vm(lambda x: x, in_dims=2)(a)
            elif case == "non_tensor":
                vm(lambda x: x, in_dims=0)(3.0)
            elif case == "non_tensor_out":
                vm(lambda x: 3.0)(a)
            elif case == "in_dims_type":
                vm(lambda x: x, in_dims=[0])(a)
            elif case == "structure":
                vm(lambda x, y: x, in_dims=(0,))(a, a)
            elif case == "no_inputs":
                vm(lambda: a)()
            elif case == "out_dims_none_batched":
                vm(lambda x: x, out_dims=None)(a)
            elif case == "bad_randomness":
                vm(lambda x: x, randomness="sometimes")(a)
            elif case == "chunk":
                vm(lambda x: x, chunk_size=0)(a)
        except Exception as e:  # noqa: BLE001
            return type(e)
        return None
    ours, theirs = run(graphgrad, gfunc.vmap), run(torch, torch.func.vmap)
    assert ours is theirs and ours is not None


def test_nested_vmap():
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4))

    def f(L, vm):
        return vm(vm(lambda a, b: (a * b).sum() + a.max()), in_dims=(0, None))(
            L.tensor(x), L.tensor(y))
    _close(_no_fallback(lambda: f(graphgrad, gfunc.vmap)), f(torch, torch.func.vmap))

    def g(L, vm):
        return vm(lambda a: vm(lambda b: a @ b, in_dims=1)(L.tensor(y.T)))(L.tensor(x))
    _close(g(graphgrad, gfunc.vmap), g(torch, torch.func.vmap))


def test_chunk_size():
    x = RNG.standard_normal((7, 3))
    for cs in (1, 2, 3, 7, 10):
        o = gfunc.vmap(lambda a: (a.sin(), a.sum()), chunk_size=cs, out_dims=(1, 0))(
            graphgrad.tensor(x))
        t = torch.func.vmap(lambda a: (a.sin(), a.sum()), chunk_size=cs, out_dims=(1, 0))(
            torch.tensor(x))
        _close(o, t)


def test_randomness():
    x = graphgrad.zeros(4, 3)
    with pytest.raises(RuntimeError, match="randomness"):
        gfunc.vmap(lambda a: a + graphgrad.rand_like(a).bernoulli())(x)
    with pytest.raises(RuntimeError, match="randomness"):
        gfunc.vmap(lambda a: a.clone().uniform_())(x)
    graphgrad.manual_seed(0)
    d = gfunc.vmap(lambda a: a.clone().uniform_(), randomness="different")(x)
    assert not np.allclose(d[0].numpy(), d[1].numpy())
    s = gfunc.vmap(lambda a: a.clone().uniform_(), randomness="same")(x)
    assert np.allclose(s[0].numpy(), s[1].numpy()) and np.allclose(s[0].numpy(), s[3].numpy())
    # unbatched random ops are fine in "same"
    s = gfunc.vmap(lambda a: a + graphgrad.ones(3).bernoulli(0.5), randomness="same")(x)
    assert np.allclose(s[0].numpy(), s[2].numpy())


def test_fallback_warns_and_is_correct():
    x = RNG.standard_normal((3, 4))
    with pytest.warns(UserWarning, match="performance drop.*as_strided"):
        o = gfunc.vmap(lambda a: a.as_strided((2,), (2,)))(graphgrad.tensor(x))
    _close(o, np.stack([r[[0, 2]] for r in x]))


def test_data_dependent_raises():
    with pytest.raises(RuntimeError, match="vmap"):
        gfunc.vmap(lambda a: a.sum().item())(graphgrad.ones(3, 2))
    with pytest.raises(RuntimeError, match="vmap"):
        gfunc.vmap(lambda a: a if a.sum() > 0 else -a)(graphgrad.ones(3, 2))


# ---------------------------------------------------------------- transforms inside vmap
def test_per_sample_grads_mlp_cross_entropy_and_cnn():
    def build(L):
        L.manual_seed(0)
        mlp = L.nn.Sequential(L.nn.Linear(3, 8), L.nn.Tanh(), L.nn.Linear(8, 4)).double()
        cnn = L.nn.Sequential(L.nn.Conv2d(1, 2, 3), L.nn.ReLU(), L.nn.MaxPool2d(2),
                              L.nn.Flatten(), L.nn.Linear(2 * 3 * 3, 4)).double()
        return mlp, cnn
    x, y = RNG.standard_normal((5, 3)), RNG.integers(0, 4, 5)
    img = RNG.standard_normal((5, 1, 8, 8))
    res = {}
    for L in (graphgrad, torch):
        mlp, cnn = build(L)
        if L is graphgrad:   # same parameters as torch's
            tm, tc = build(torch)
            for m, t in ((mlp, tm), (cnn, tc)):
                for (_, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
                    p.data = graphgrad.tensor(q.detach().numpy())
        out = []
        for model, data in ((mlp, x), (cnn, img)):
            params = {k: v.detach() for k, v in model.named_parameters()}

            def loss(p, xb, yb, model=model):
                o = L.func.functional_call(model, p, (xb.unsqueeze(0),))
                return L.nn.functional.cross_entropy(o, yb.unsqueeze(0))
            run = lambda: L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))(  # noqa: E731
                params, L.tensor(data), L.tensor(y))
            out.append(_no_fallback(run) if L is graphgrad else run())
        res[L] = out
    for a, b in zip(res[graphgrad], res[torch]):
        _close(a, b)


def test_ensembling_stack_module_state():
    res = {}
    x = RNG.standard_normal((6, 3))
    for L in (graphgrad, torch):
        L.manual_seed(0)
        models = [L.nn.Linear(3, 2).double() for _ in range(4)]
        if L is graphgrad:
            torch.manual_seed(0)
            tms = [torch.nn.Linear(3, 2).double() for _ in range(4)]
            for m, t in zip(models, tms):
                m.weight.data = graphgrad.tensor(t.weight.detach().numpy())
                m.bias.data = graphgrad.tensor(t.bias.detach().numpy())
        params, buffers = L.func.stack_module_state(models)
        base = models[0]

        def f(p, b, xx, base=base, L=L):
            return L.func.functional_call(base, (p, b), (xx,))
        res[L] = L.func.vmap(f, in_dims=(0, 0, None))(params, buffers, L.tensor(x))
    _close(res[graphgrad], res[torch])


@pytest.mark.parametrize("tr", ["jacrev", "jacfwd", "hessian", "vjp", "jvp", "grad_aux"])
def test_transforms_inside_vmap(tr):
    x = RNG.standard_normal((4, 3))

    def run(L):
        F = L.func

        def f(a):
            return (a.sin() * a).sum()
        X = L.tensor(x)
        if tr == "jacrev":
            return F.vmap(F.jacrev(lambda a: a.sin() * a.sum()))(X)
        if tr == "jacfwd":
            return F.vmap(F.jacfwd(lambda a: a.exp() * a[0]))(X)
        if tr == "hessian":
            return F.vmap(F.hessian(f))(X)
        if tr == "vjp":
            return F.vmap(lambda a: F.vjp(L.sin, a)[1](L.ones(3, dtype=L.float64))[0])(X)
        if tr == "jvp":
            return F.vmap(lambda a: F.jvp(L.sin, (a,), (L.ones(3, dtype=L.float64),))[1])(X)
        return F.vmap(F.grad(lambda a: (f(a), a.cos()), has_aux=True))(X)
    _close(run(graphgrad), run(torch))


def test_grad_of_vmap():
    x = RNG.standard_normal((4, 3))
    o = gfunc.grad(lambda a: gfunc.vmap(lambda r: (r.sin() * r).sum())(a).sum())(
        graphgrad.tensor(x))
    t = torch.func.grad(lambda a: torch.func.vmap(lambda r: (r.sin() * r).sum())(a).sum())(
        torch.tensor(x))
    _close(o, t)
    assert graphgrad.vmap is gfunc.vmap


# ---------------------------------------------------------------- autograd.Function
def _my_sin(L, mode):
    class MySin(L.autograd.Function):
        generate_vmap_rule = mode in ("generate", "both")

        @staticmethod
        def forward(a):
            return a.sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a.cos() * 2   # (not sin's gradient: shows the backward ran)

    if mode in ("vmap", "both"):
        def vmap(info, in_dims, a):
            assert info.batch_size == 4
            return MySin.apply(a), in_dims[0]
        MySin.vmap = staticmethod(vmap)
    return MySin


@pytest.mark.parametrize("mode", ["generate", "vmap"])
def test_autograd_function_under_vmap(mode):
    x = RNG.standard_normal((4, 3))
    res = {}
    for L in (graphgrad, torch):
        F = L.func
        fn = _my_sin(L, mode)
        X = L.tensor(x)
        res[L] = [F.vmap(fn.apply)(X),
                  F.vmap(F.grad(lambda a: fn.apply(a).sum()))(X),
                  F.grad(lambda a: F.vmap(fn.apply)(a).sum())(X),
                  F.vmap(fn.apply, in_dims=1)(X.T)]
    _close(res[graphgrad], res[torch])


@pytest.mark.parametrize("mode", ["neither", "both", "old_style"])
def test_autograd_function_vmap_errors(mode):
    def run(L):
        if mode == "old_style":
            class Old(L.autograd.Function):
                @staticmethod
                def forward(ctx, a):
                    return a * 2

                @staticmethod
                def backward(ctx, g):
                    return g * 2
            fn = Old
        else:
            fn = _my_sin(L, mode)
        try:
            L.func.vmap(fn.apply)(L.ones(4, 3))
        except Exception as e:  # noqa: BLE001
            return type(e)
        return None
    assert run(graphgrad) is run(torch) is RuntimeError


# ---------------------------------------------------------------- Tensor methods, in_dims=1
X324 = RNG.standard_normal((3, 4, 2))   # the batch on dim 1: examples are not contiguous
W35 = RNG.standard_normal((3, 5))
METHODS = {
    "contiguous": lambda L, a: a.contiguous(), "clone": lambda L, a: a.clone(),
    "to": lambda L, a: a.to(L.float32).double(), "new_zeros": lambda L, a: a.new_zeros(a.shape) + a,
    "zeros_like": lambda L, a: L.zeros_like(a) + a, "full_like": lambda L, a: L.full_like(a, 2.) * a,
    "T": lambda L, a: a.T, "mT": lambda L, a: a.mT, "flatten": lambda L, a: a.flatten(),
    "reshape": lambda L, a: a.reshape(-1), "none_index": lambda L, a: a[None],
    "ellipsis": lambda L, a: a[..., 0], "mid_none": lambda L, a: a[:, None],
    "where_scalar": lambda L, a: L.where(a > 0, a, 0.), "masked_fill": lambda L, a: a.masked_fill(a > 0, 1.),
    "norm": lambda L, a: a.norm(), "clamp_min": lambda L, a: a.clamp(min=0),
    "normalize": lambda L, a: L.nn.functional.normalize(a, dim=0),
    "outer": lambda L, a: L.outer(a[0], a[1]), "einsum2": lambda L, a: L.einsum("ij,ik->jk", a, a),
    "diag": lambda L, a: L.diag(a[:, 0]), "tensordot": lambda L, a: L.tensordot(a, a, dims=([0], [0])),
    "median": lambda L, a: a.median(), "cummax": lambda L, a: a.cummax(0)[0],
    "expand_as": lambda L, a: a[0:1].expand_as(a), "matmul_left": lambda L, a: L.tensor(W35).T @ a,
    "rmul": lambda L, a: 2 * a, "rsub": lambda L, a: 1 - a, "rpow": lambda L, a: 2 ** a,
    "abs_": lambda L, a: a.clone().abs_(), "count": lambda L, a: (a > 0).sum(),
    "all_dim": lambda L, a: (a > 0).all(0), "argsort": lambda L, a: a.argsort(0),
    "fliplr": lambda L, a: L.fliplr(a), "var_mean": lambda L, a: L.var_mean(a, 0)[0],
    "lerp": lambda L, a: L.lerp(a, a * 2, 0.3), "addcmul": lambda L, a: L.addcmul(a, a, a, value=0.5),
    "linalg_norm": lambda L, a: L.linalg.norm(a), "cdist": lambda L, a: L.cdist(a, a),
    "hstack": lambda L, a: L.hstack([a, a]), "vstack": lambda L, a: L.vstack([a, a]),
    "tile": lambda L, a: a.tile(2), "movedim": lambda L, a: a.movedim(0, 1),
    "narrow": lambda L, a: a.narrow(0, 1, 2), "unflatten": lambda L, a: a.flatten().unflatten(0, (2, 3)),
    "logaddexp": lambda L, a: L.logaddexp(a, a), "mean_keepdim": lambda L, a: a.mean((0, 1), keepdim=True),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_tensor_methods_in_dims_1(name):
    fn = METHODS[name]
    ours = _no_fallback(lambda: gfunc.vmap(lambda a: fn(graphgrad, a), in_dims=1)(
        graphgrad.tensor(X324)))
    theirs = torch.func.vmap(lambda a: fn(torch, a), in_dims=1)(torch.tensor(X324))
    _close(ours, theirs)


def test_inplace_into_unbatched_raises():
    def run(L):
        try:
            L.func.vmap(lambda a, b: b.add_(a), in_dims=(0, None))(L.ones(3, 2), L.zeros(2))
        except Exception as e:  # noqa: BLE001
            return type(e)
    assert run(graphgrad) is run(torch) is RuntimeError


@pytest.mark.parametrize("case", ["train", "eval", "train_running", "instance"])
def test_batch_norm_under_vmap(case):
    x = RNG.standard_normal((3, 4, 2, 5))
    rm, rv = RNG.standard_normal(2), np.abs(RNG.standard_normal(2)) + 0.5
    w, b = RNG.standard_normal(2), RNG.standard_normal(2)

    def run(L):
        F = L.nn.functional
        def f(a):
            if case == "train":
                return F.batch_norm(a, None, None, L.tensor(w), L.tensor(b), training=True)
            if case == "eval":
                return F.batch_norm(a, L.tensor(rm), L.tensor(rv), L.tensor(w), training=False)
            if case == "instance":
                return F.instance_norm(a)
            return F.batch_norm(a, L.tensor(rm), L.tensor(rv), training=True)
        try:
            return L.func.vmap(f)(L.tensor(x))
        except Exception as e:  # noqa: BLE001
            return type(e)
    ours, theirs = _no_fallback(lambda: run(graphgrad)), run(torch)
    if case == "train_running":
        assert ours is theirs is RuntimeError
    else:
        _close(ours, theirs)


_X234 = RNG.standard_normal((2, 3, 4))
_W4 = RNG.standard_normal(4)


def _sq(L):
    return lambda a, w: ((a * w).sin().sum()) ** 2


COMPOSITIONS = {
    "vmap_vmap_grad": lambda L: L.func.vmap(L.func.vmap(L.func.grad(_sq(L)), in_dims=(0, None)),
                                            in_dims=(0, None)),
    "vmap_vmap_grad_unbatched_arg": lambda L: L.func.vmap(
        L.func.vmap(L.func.grad(_sq(L), argnums=1), in_dims=(0, None)), in_dims=(0, None)),
    "vmap_vmap_hessian": lambda L: L.func.vmap(
        L.func.vmap(L.func.hessian(_sq(L)), in_dims=(0, None)), in_dims=(0, None)),
    "jacrev_of_vmap": lambda L: (lambda a, w: L.func.jacrev(
        L.func.vmap(_sq(L), in_dims=(0, None)), argnums=1)(a[0], w)),
    "vmap_jacrev_jacrev": lambda L: L.func.vmap(
        L.func.jacrev(L.func.jacrev(_sq(L), argnums=1), argnums=1), in_dims=(0, None)),
    "grad_of_vmap_grad": lambda L: (lambda a, w: L.func.grad(
        lambda w2: L.func.vmap(L.func.grad(_sq(L)), in_dims=(0, None))(a[0], w2).sum())(w)),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_with_vmap(name):
    build = COMPOSITIONS[name]
    ours = _no_fallback(lambda: build(graphgrad)(graphgrad.tensor(_X234), graphgrad.tensor(_W4)))
    _close(ours, build(torch)(torch.tensor(_X234), torch.tensor(_W4)))


def test_neural_tangent_kernel():
    """torch.func's NTK tutorial: per-example Jacobians of the parameters, contracted."""
    x1, x2 = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 3))
    res = {}
    for L in (graphgrad, torch):
        L.manual_seed(0)
        net = L.nn.Sequential(L.nn.Linear(3, 6), L.nn.Tanh(), L.nn.Linear(6, 2)).double()
        if L is graphgrad:
            torch.manual_seed(0)
            tnet = torch.nn.Sequential(torch.nn.Linear(3, 6), torch.nn.Tanh(),
                                       torch.nn.Linear(6, 2)).double()
            for (_, p), (_, q) in zip(net.named_parameters(), tnet.named_parameters()):
                p.data = graphgrad.tensor(q.detach().numpy())
        params = {k: v.detach() for k, v in net.named_parameters()}

        def single(p, x, net=net, L=L):
            return L.func.functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)
        j1 = L.func.vmap(L.func.jacrev(single), (None, 0))(params, L.tensor(x1))
        j2 = L.func.vmap(L.func.jacrev(single), (None, 0))(params, L.tensor(x2))
        res[L] = sum(L.einsum("Naf,Mbf->NMab", a.flatten(2), b.flatten(2))
                     for a, b in zip(j1.values(), j2.values()))
    _close(res[graphgrad], res[torch])


@pytest.mark.parametrize("case", ["gather", "unbatched_self", "tuple_key", "setitem",
                                  "setitem_value", "index_put_", "index_put_acc"])
def test_batched_index_tensors(case):
    x = RNG.standard_normal((3, 5, 2))
    i = np.array([[0, 1], [2, 3], [4, 4]])
    v = RNG.standard_normal((3, 2))

    def run(L):
        X, I, V = L.tensor(x), L.tensor(i), L.tensor(v)
        if case == "gather":
            return L.func.vmap(lambda a, j: a[j])(X, I)
        if case == "unbatched_self":
            return L.func.vmap(lambda j: X[0][j])(I)
        if case == "tuple_key":
            return L.func.vmap(lambda a, j: a[j, 1])(X, I)
        if case == "index_put_":
            return L.func.vmap(lambda a, j, w: a.clone().index_put_((j,), w))(X, I, V)
        if case == "index_put_acc":
            return L.func.vmap(lambda j, w: X[0].index_put((j,), w, accumulate=True))(I, V)
        if case == "setitem":
            def f(a, j):
                a = a.clone()
                a[j] = 0.0
                return a
            return L.func.vmap(f)(X, I)

        def g(a, j, w):
            a = a.clone()
            a[j, 0] = w
            return a
        return L.func.vmap(g)(X, I, V)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = run(graphgrad)
    _close(ours, run(torch))


def test_dropout_and_one_hot_under_vmap():
    x = graphgrad.ones(4, 1000)
    F = graphgrad.nn.functional
    d = gfunc.vmap(lambda a: F.dropout(a, 0.5), randomness="different")(x)
    assert not np.allclose(d[0].numpy(), d[1].numpy())
    assert set(np.unique(d.numpy())) <= {0.0, 2.0}
    s = gfunc.vmap(lambda a: F.dropout(a, 0.5), randomness="same")(x)
    assert np.allclose(s[0].numpy(), s[3].numpy())
    with pytest.raises(RuntimeError, match="randomness"):
        gfunc.vmap(lambda a: F.dropout(a, 0.5))(x)
    i = np.array([[0, 1], [2, 3], [4, 4]])
    _close(gfunc.vmap(lambda j: F.one_hot(j, 5))(graphgrad.tensor(i)),
           torch.func.vmap(lambda j: torch.nn.functional.one_hot(j, 5))(torch.tensor(i)))
    with pytest.raises(RuntimeError):   # num_classes from the values: data-dependent
        gfunc.vmap(lambda j: F.one_hot(j))(graphgrad.tensor(i))


def test_attention_with_fully_masked_rows_per_example():
    """scaled_dot_product_attention's safe softmax finds the fully masked rows of every
    example (example 0 has one, example 1 none)."""
    q = RNG.standard_normal((2, 3, 4))
    mask = np.ones((2, 3, 3), bool)
    mask[0, 1] = False

    def run(L):
        return L.func.vmap(lambda a, m: L.nn.functional.scaled_dot_product_attention(
            a, a, a, attn_mask=m))(L.tensor(q), L.tensor(mask))
    _close(_no_fallback(lambda: run(graphgrad)), run(torch))
