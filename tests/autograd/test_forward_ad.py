"""Forward-mode AD: dual levels, make_dual/unpack_dual, JVPs of the starter ops."""
import numpy as np
import pytest

import graphgrad
from tests.conftest import Raised, run_both

# importing torch's forward AD scripts a few functions with the deprecated torch.jit.script
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _fw(lib):
    return lib.autograd.forward_ad


# ------------------------------------------------------------------ API
def test_make_dual_and_unpack_dual():
    def prog(lib):
        fw = _fw(lib)
        x = lib.tensor([1.0, 2.0])
        v = lib.tensor([0.5, -1.0])
        with fw.dual_level() as lvl:
            d = fw.make_dual(x, v)
            u = fw.unpack_dual(d)
            return (type(lvl).__name__, lvl, d, u.primal, u.tangent, u[0] is u.primal,
                    u[1] is u.tangent, u.tangent is v, u.primal is x, d._base is x,
                    type(u).__name__, fw.unpack_dual(x), fw.unpack_dual(d * 2),
                    fw.make_dual(x, v, level=lvl))
    run_both(prog)


def test_unpacked_dual_tensor_is_a_namedtuple():
    def prog(lib):
        fw = _fw(lib)
        u = fw.unpack_dual(lib.ones(2))
        return (u._fields, isinstance(u, tuple), isinstance(u, fw.UnpackedDualTensor), u.tangent)
    run_both(prog)


def test_dual_tensor_repr():
    def prog(lib):
        fw = _fw(lib)
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0]))
            return repr(d).replace("torch.", "").replace("graphgrad.", ""), repr(d.sin())
    ours, theirs = run_both(prog)
    assert ours[1] == theirs[1].replace("torch.", "graphgrad.")


def test_tangent_gone_after_level_exits():
    def prog(lib):
        fw = _fw(lib)
        x = lib.tensor([1.0, 2.0])
        with fw.dual_level():
            d = fw.make_dual(x, lib.ones(2))
            e = d.sin()
        after = (fw.unpack_dual(d), fw.unpack_dual(e), e.sin(), repr(d) == repr(x))
        with fw.dual_level():
            again = (fw.unpack_dual(d).tangent, fw.unpack_dual(e).tangent,
                     fw.unpack_dual(e * 2).tangent)
        return after, again
    run_both(prog)


def test_enter_and_exit_dual_level():
    def prog(lib):
        fw = _fw(lib)
        lvl = fw.enter_dual_level()
        d = fw.make_dual(lib.ones(2), lib.full((2,), 3.0))
        t = fw.unpack_dual(d * d).tangent
        fw.exit_dual_level(level=lvl)
        return lvl, t, fw.unpack_dual(d).tangent
    run_both(prog)


def test_dual_level_exits_on_exception():
    def prog(lib):
        fw = _fw(lib)
        try:
            with fw.dual_level():
                d = fw.make_dual(lib.ones(2), lib.ones(2))
                raise KeyError
        except KeyError:
            pass
        with fw.dual_level():
            return fw.unpack_dual(d).tangent, fw.unpack_dual(fw.make_dual(lib.ones(1),
                                                                          lib.ones(1)))
    run_both(prog)


FW_ERRORS = {
    "make_dual_outside_level": lambda lib, fw: fw.make_dual(lib.ones(2), lib.ones(2)),
    "shape_mismatch": lambda lib, fw: _in_level(fw, lambda: fw.make_dual(lib.ones(2),
                                                                         lib.ones(3))),
    "int_primal": lambda lib, fw: _in_level(fw, lambda: fw.make_dual(lib.tensor([1, 2]),
                                                                     lib.tensor([1, 2]))),
    "nested_level": lambda lib, fw: _in_level(fw, lambda: fw.enter_dual_level()),
    "wrong_level": lambda lib, fw: _in_level(fw, lambda: fw.make_dual(lib.ones(2), lib.ones(2),
                                                                      level=7)),
    "exit_wrong_level": lambda lib, fw: _in_level(fw, lambda: fw.exit_dual_level(level=7)),
    "exit_without_level": lambda lib, fw: fw.exit_dual_level(),
}


def _in_level(fw, fn):
    with fw.dual_level():
        return fn()


@pytest.mark.parametrize("name", list(FW_ERRORS))
def test_forward_ad_errors(name):
    def prog(lib):
        return FW_ERRORS[name](lib, _fw(lib))
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised)
    assert graphgrad._core.state.tls.fw_level is None  # no level left behind


# ------------------------------------------------------------------ JVPs of the starter ops
SHAPES = {"v": (3,), "w": (3,), "m": (2, 3), "n": (3, 2), "b": (4, 2, 3), "c": (4, 3, 2),
          "s": (), "r": (2, 1, 3)}


def _inputs(lib, names, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for k in names:
        p = rng.uniform(0.5, 1.5, SHAPES[k])
        t = rng.standard_normal(SHAPES[k])
        out.append((lib.tensor(p, dtype=lib.float64), lib.tensor(t, dtype=lib.float64)))
    return out


def _inplace(op):
    def f(a, b=None):
        y = a.clone()
        return op(y, b) if b is not None else op(y)
    return f


JVP_OPS = {
    "add": ("vw", lambda a, b: a + b),
    "add_broadcast": ("mv", lambda a, b: a + b),
    "add_scalar": ("v", lambda a: a + 2.5),
    "add_alpha": ("vw", lambda a, b: a.add(b, alpha=3.0)),
    "sub": ("vw", lambda a, b: a - b),
    "sub_alpha": ("vw", lambda a, b: a.sub(b, alpha=0.5)),
    "rsub": ("v", lambda a: 2 - a),
    "mul": ("vw", lambda a, b: a * b),
    "mul_broadcast": ("rm", lambda a, b: a * b),
    "mul_scalar": ("v", lambda a: a * 3.0),
    "div": ("vw", lambda a, b: a / b),
    "div_scalar": ("v", lambda a: a / 4.0),
    "rdiv": ("v", lambda a: 2 / a),
    "neg": ("v", lambda a: -a),
    "pow_scalar": ("v", lambda a: a ** 3),
    "pow_float": ("v", lambda a: a ** 2.5),
    "pow_tensor": ("vw", lambda a, b: a ** b),
    "pow_0d": ("vs", lambda a, b: a ** b),
    "rpow": ("v", lambda a: 2.0 ** a),
    "dot": ("vw", lambda a, b: a @ b),
    "mv": ("mv", lambda a, b: a @ b),
    "mm": ("mn", lambda a, b: a @ b),
    "vm": ("vn", lambda a, b: a @ b),
    "bmm": ("bc", lambda a, b: a @ b),
    "batched_fold": ("bn", lambda a, b: a @ b),
    "batched_mv": ("bv", lambda a, b: a @ b),
    "exp": ("v", lambda a: a.exp()),
    "log": ("v", lambda a: a.log()),
    "sin": ("v", lambda a: a.sin()),
    "cos": ("v", lambda a: a.cos()),
    "tanh": ("v", lambda a: a.tanh()),
    "sigmoid": ("v", lambda a: a.sigmoid()),
    "relu": ("v", lambda a: (a - 1).relu()),
    "sum": ("m", lambda a: a.sum()),
    "sum_dim": ("b", lambda a: a.sum(1)),
    "sum_dims_keepdim": ("b", lambda a: a.sum((0, 2), keepdim=True)),
    "mean": ("m", lambda a: a.mean()),
    "mean_dim": ("b", lambda a: a.mean(-1, keepdim=True)),
    "view": ("m", lambda a: a.view(3, 2)),
    "reshape_copy": ("m", lambda a: a.t().reshape(6)),
    "transpose": ("b", lambda a: a.transpose(0, 2)),
    "t": ("m", lambda a: a.t()),
    "expand": ("r", lambda a: a.expand(2, 4, 3)),
    "unsqueeze": ("m", lambda a: a.unsqueeze(1)),
    "squeeze": ("r", lambda a: a.squeeze()),
    "squeeze_dim": ("r", lambda a: a.squeeze(1)),
    "getitem_int": ("b", lambda a: a[1]),
    "getitem_slices": ("b", lambda a: a[1:, ::2, None]),
    "getitem_ellipsis": ("b", lambda a: a[..., 0]),
    "clone": ("m", lambda a: a.clone()),
    "to_float": ("m", lambda a: a.float()),
    "add_": ("vw", _inplace(lambda y, b: y.add_(b))),
    "add_scalar_": ("v", _inplace(lambda y: y.add_(1.5))),
    "mul_": ("vw", _inplace(lambda y, b: y.mul_(b))),
    "mul_scalar_": ("v", _inplace(lambda y: y.mul_(3.0))),
    "zero_": ("v", _inplace(lambda y: y.zero_())),
    "copy_": ("vw", _inplace(lambda y, b: y.copy_(b))),
    "setitem": ("vw", _inplace(lambda y, b: (y.__setitem__(slice(1, None), b[:2]), y)[1])),
    "inplace_on_view": ("m", _inplace(lambda y: (y[0].mul_(2), y)[1])),
    "chain": ("vw", lambda a, b: ((a * b).sin() + a.exp() / b).sum()),
}


def _jvp(lib, name, tangents_for="all"):
    names, f = JVP_OPS[name]
    fw = _fw(lib)
    ins = _inputs(lib, names)
    with fw.dual_level():
        duals = [fw.make_dual(p, t) if tangents_for == "all" or i == 0 else p
                 for i, (p, t) in enumerate(ins)]
        out = f(*duals)
        u = fw.unpack_dual(out)
        return u.primal, u.tangent


@pytest.mark.parametrize("name", list(JVP_OPS))
def test_jvp_matches_torch(name):
    run_both(lambda lib: _jvp(lib, name))


@pytest.mark.parametrize("name", [n for n in JVP_OPS if len(JVP_OPS[n][0]) == 2])
def test_jvp_with_tangent_on_first_input_only(name):
    run_both(lambda lib: _jvp(lib, name, tangents_for="first"))


@pytest.mark.parametrize("name", list(JVP_OPS))
def test_jvp_matches_finite_differences(name):
    names, f = JVP_OPS[name]
    ins = _inputs(graphgrad, names)
    _, tangent = _jvp(graphgrad, name)
    eps = 1e-2 if name == "to_float" else 1e-6  # to_float: float32 output, linear

    def at(sign):
        return f(*[p + sign * eps * t for p, t in ins]).numpy().astype(np.float64)
    fd = (at(1) - at(-1)) / (2 * eps)
    tol = 1e-3 if name == "to_float" else 1e-6
    np.testing.assert_allclose(tangent.numpy(), fd, rtol=tol, atol=tol)


def test_tangent_of_view_follows_inplace_on_base():
    def prog(lib):
        fw = _fw(lib)
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 1.0, 1.0]))
            y = d.clone()
            v = y[1:]
            y.mul_(lib.tensor([2.0, 3.0, 4.0]))
            return fw.unpack_dual(y), fw.unpack_dual(v)
    run_both(prog)


def test_inplace_gives_tangent_to_tensor_without_one():
    def prog(lib):
        fw = _fw(lib)
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0]))
            z = lib.zeros(2)
            z.copy_(d)
            a = fw.unpack_dual(z)
            z.add_(d)
            b = fw.unpack_dual(z)
            z.zero_()
            return a, b, fw.unpack_dual(z)
    run_both(prog)


def test_ops_on_non_dual_inputs_have_no_tangent():
    def prog(lib):
        fw = _fw(lib)
        with fw.dual_level():
            x = lib.tensor([1.0, 2.0])
            return fw.unpack_dual(x.sin() * 2).tangent, fw.unpack_dual(x @ x).tangent
    run_both(prog)


# ------------------------------------------------------------------ with reverse mode
def test_forward_over_reverse_hvp():
    def prog(lib):
        fw = _fw(lib)
        x = lib.tensor([0.5, 1.5, -0.3], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 0.5, 2.0], dtype=lib.float64)
        with fw.dual_level():
            d = fw.make_dual(x, v)
            y = (d.sin() * d.exp()).sum()
            (g,) = lib.autograd.grad(y, d, create_graph=True)
            return fw.unpack_dual(g).tangent, g
    run_both(prog)


def test_reverse_over_forward():
    def prog(lib):
        fw = _fw(lib)
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        tg = lib.tensor([1.0, 1.0], requires_grad=True)
        with fw.dual_level():
            dp = fw.make_dual(p, tg)
            out = (dp * dp).sin()
            jvp = fw.unpack_dual(out).tangent
            jvp.sum().backward()
            return jvp, p.grad, tg.grad, dp
    run_both(prog)


def test_make_dual_of_requires_grad_tensor_is_a_view():
    def prog(lib):
        fw = _fw(lib)
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        with fw.dual_level():
            dp = fw.make_dual(p, lib.ones(2))
            return dp, dp._base is p, dp.is_leaf, type(dp.grad_fn.next_functions[0][0]).__name__
    run_both(prog)


def test_forward_ad_under_no_grad_and_inference_of_values():
    def prog(lib):
        fw = _fw(lib)
        with lib.no_grad(), fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.5]))
            return fw.unpack_dual(d.exp() * d)
    run_both(prog)


def test_inplace_on_dual_updates_the_given_tangent_in_place():
    def prog(lib):
        fw = _fw(lib)
        x, v = lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0])
        with fw.dual_level():
            d = fw.make_dual(x, v)
            d.mul_(2)
            same = fw.unpack_dual(d).tangent is v
            e = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0]).expand(2))
            e.mul_(2)
            return x, v, same, fw.unpack_dual(e)
    run_both(prog)


# ------------------------------------------------------------------ batched tangents
# functional.jacobian(strategy="forward-mode") pushes all its tangents as one batch: a private
# batched level gives every tangent a leading batch dim.  The op table's rules are checked
# against a loop of unbatched JVPs in tests/ops/test_ops.py (test_batched_jvp*); these cover
# what the op table does not: in-place ops and views of dual tensors, custom Functions.
def _batched_vs_loop(prog, primals, B=3, seed=0):
    """Run ``prog(*duals)`` (returns a list of tensors) once with B tangents per input as a
    batch and B times with one tangent each; assert the tangents agree.  Returns the ops
    that took the batched fallback."""
    fw = graphgrad.autograd.forward_ad
    rng = np.random.default_rng(seed)
    tans = [rng.standard_normal((B,) + np.shape(p)) for p in primals]

    def run(level, pick):
        with level:
            duals = [fw.make_dual(graphgrad.tensor(p), graphgrad.tensor(pick(t)))
                     for p, t in zip(primals, tans)]
            outs = prog(*duals)
            res = []
            for o in outs:
                t = fw.unpack_dual(o).tangent
                res.append(None if t is None else np.array(t._data))
            return res
    fw._fallback_calls.clear()
    batched = run(fw._batched_dual_level(B), lambda t: t)
    used = set(fw._fallback_calls)
    for b in range(B):
        row = run(fw.dual_level(), lambda t: t[b])
        for i, (bt, rt) in enumerate(zip(batched, row)):
            if rt is None:
                assert bt is None or not bt[b].any(), f"output {i}"
                continue
            assert bt.shape == (B,) + rt.shape, f"output {i}: {bt.shape} vs {rt.shape}"
            np.testing.assert_allclose(bt[b], rt, rtol=1e-12, atol=1e-14,
                                       err_msg=f"output {i}, batch entry {b}")
    return used


def test_batched_tangents_through_inplace_ops():
    def prog(d, c):
        z = graphgrad.zeros(4, dtype=graphgrad.float64)
        z.copy_(d)
        a = z.clone()
        z.mul_(d)
        b = z.clone()
        v = z[1:3]                 # a view: its tangent is a view of z's tangent
        v.add_(d[:2] * 2)
        w = d.clone()
        w.fill_(c)                 # fill with a dual 0-d tensor: fill.Tensor
        u = d.clone()
        u.zero_()
        s = d.clone()
        s.fill_(2.0)
        e = graphgrad.nn.functional.elu(d.clone(), inplace=True)
        k = graphgrad.nn.functional.leaky_relu(d.clone(), 0.1, inplace=True)
        return [a, b, z, v, w, u, s, e, k]
    used = _batched_vs_loop(prog, [np.array([0.5, -1.0, 2.0, -0.3]), np.array(0.7)])
    assert not used


def test_batched_tangent_of_view_follows_inplace_on_base():
    fw = graphgrad.autograd.forward_ad
    with fw._batched_dual_level(2):
        d = fw.make_dual(graphgrad.tensor([1.0, 2.0, 3.0]),
                         graphgrad.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]]))
        y = d.clone()
        v = y[1:]
        y.mul_(graphgrad.tensor([2.0, 3.0, 4.0]))
        np.testing.assert_array_equal(fw.unpack_dual(y).tangent.numpy(),
                                      [[2.0, 3.0, 4.0], [0.0, 3.0, 8.0]])
        np.testing.assert_array_equal(fw.unpack_dual(v).tangent.numpy(), [[3.0, 4.0], [3.0, 8.0]])


def test_batched_tangents_through_views_and_copies():
    def prog(d, m):
        return [d[...], d.unsqueeze(0).squeeze(0), m.t(), m.T, m.view(6).view(3, 2),
                m.reshape(2, 1, 3).squeeze(), m.reshape(2, 1, 3).squeeze(1),
                m.reshape(1, 2, 3, 1).squeeze((0, 3)), m.expand(4, 2, 3), d.expand(2, 3),
                m.transpose(0, 1).reshape(6), graphgrad.stack([d]),
                graphgrad.stack([d, d, d, d], 1),
                graphgrad.cat([m, m * 2], 1), d.to(graphgrad.float32), m.unflatten(1, (3, 1)),
                m.movedim(0, 1), m.flatten(), m.unbind(1)[2], m.split(1, 0)[1],
                m.diagonal(), m.tril(), graphgrad.diag_embed(d), m.flip(0, 1), m.roll(1),
                m.roll(1, 0), m.repeat(2, 1, 2), m[[1, 0]], m[m > 0], m.masked_select(m > 0),
                graphgrad.where(m > 0, m, d), m.cumsum(1), m.sum(), m.mean(0), m.sum((0, 1)),
                m.amax(1), m.max(1).values, m.sort(1).values, m.logsumexp(1), m.norm(),
                m.var(1), m.std(), m.prod(1), m.cumprod(1), m @ d, d @ m.t(), d @ d,
                m @ m.t(), m.t() @ m]
    used = _batched_vs_loop(prog, [np.array([0.5, -1.0, 2.0]),
                                   np.array([[0.3, -0.8, 1.1], [0.9, 0.2, -1.4]])])
    assert not used


def test_batched_tangents_through_custom_function_use_the_fallback():
    class Cube(graphgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.k = k
            return x * x * x * k

        @staticmethod
        def backward(ctx, g):
            return None, None

        @staticmethod
        def jvp(ctx, xt, kt):
            assert kt is None and xt.shape == (3,)   # one (unbatched) tangent at a time
            (x,) = ctx.saved_tensors
            return 3 * x * x * xt * ctx.k
    used = _batched_vs_loop(lambda d: [Cube.apply(d, 2.0).sin()], [np.array([0.5, -1.0, 2.0])])
    assert used == {"Cube"}


def test_batched_level_checks_the_tangent_shape():
    fw = graphgrad.autograd.forward_ad
    with fw._batched_dual_level(4):
        with pytest.raises(RuntimeError, match="expected \\[4, 3\\]"):
            fw.make_dual(graphgrad.ones(3), graphgrad.ones(3))
        d = fw.make_dual(graphgrad.ones(3), graphgrad.ones(4, 3))
        assert fw.unpack_dual(d * 2).tangent.shape == (4, 3)
    with fw.dual_level():   # an ordinary level after a batched one: unbatched again
        with pytest.raises(RuntimeError, match="different size"):
            fw.make_dual(graphgrad.ones(3), graphgrad.ones(4, 3))


def test_batched_tangents_through_internal_backward_ops():
    """Ops that only appear inside backward formulas (reached by third-order derivatives
    or in-place views), called directly on dual tensors."""
    from graphgrad.ops import formulas as F
    from graphgrad.ops.api.inplace import view_scatter
    idx = np.array([[2, 0], [1, 1]])
    base = graphgrad.zeros(3, 4)
    chain = base[1:, 1:]._view_fn

    def prog(d, m, x4):
        return [F.squeeze_dims(m.unsqueeze(1), (-2,)), F.unsqueeze_dims(d, (0, -1)),
                F._gather_dim(m, -1, idx), F.as_strided_gather(m, (2, 3), (3,), (2,), 0),
                F.embedding_dense_gather(m, graphgrad.tensor([1, 0, 1]), -1, False),
                F.max_pool2d_gather(x4, graphgrad.tensor([[[[0, 3], [5, 2]]]])),
                view_scatter(m, chain, (3, 4), 2)]
    used = _batched_vs_loop(prog, [np.array([0.5, -1.0, 2.0]),
                                   np.array([[0.3, -0.8, 1.1], [0.9, 0.2, -1.4]]),
                                   np.arange(9.0).reshape(1, 1, 3, 3) - 4])
    assert not used


# ------------------------------------------------------------------ issue 16: views and aliasing
def test_copy_of_a_dual_into_a_view_gives_the_base_a_tangent():
    def prog(lib):
        fw = _fw(lib)
        f64 = lib.float64
        with fw.dual_level():
            d = fw.make_dual(lib.ones(2, dtype=f64), lib.ones(2, dtype=f64) * 3)
            baz = lib.zeros(2, dtype=f64)
            baz[0] = d[0]
            c = lib.zeros(3, dtype=f64)
            c[:2] = fw.make_dual(lib.ones(2, dtype=f64), lib.ones(2, dtype=f64) * 2)
            dual = fw.make_dual(lib.ones(2, 2, dtype=f64), lib.ones(2, 2, dtype=f64))
            base = lib.zeros(2, 2, dtype=f64)
            base.transpose(0, 1).copy_(dual)
            return (fw.unpack_dual(baz).tangent, fw.unpack_dual(c).tangent,
                    fw.unpack_dual(base).tangent, fw.unpack_dual(c[:2]).tangent)
    run_both(prog)


def test_jvp_of_a_non_view_op_does_not_alias_the_input_tangent():
    def prog(lib):
        fw = _fw(lib)
        with fw.dual_level():
            x = fw.make_dual(lib.ones(1, 3, dtype=lib.float64), lib.ones(1, 3, dtype=lib.float64))
            y = lib.cumprod(x, 0)
            y.mul_(2)
            return fw.unpack_dual(x).tangent, fw.unpack_dual(y).tangent
    run_both(prog)


# ------------------------------------------------------------------ custom Function jvp checks
def _custom(lib, forward, jvp):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return forward(ctx, x, y)

        @staticmethod
        def jvp(ctx, xt, yt):
            return jvp(xt, yt)

        @staticmethod
        def backward(ctx, g):
            return g, None
    return MyFn


def _nd(ctx, x, y):
    o = x.clone()
    ctx.mark_non_differentiable(o)
    return o


def _dirty(ctx, x, y):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


_JVP_CASES = {
    # (forward, jvp): PyTorch's checks of a custom jvp's result
    "count": (lambda c, x, y: x.clone(), lambda t, _: (t, t)),
    "non_differentiable": (_nd, lambda t, _: t),
    "non_differentiable_none": (_nd, lambda t, _: None),
    "dirty_ok": (_dirty, lambda t, _: t.mul_(2)),
    "dirty_not_inplace": (_dirty, lambda t, _: t * 2),
    "dirty_not_returned": (_dirty, lambda t, _: t.mul_(2).clone()),
    "view_ok": (lambda c, x, y: x[:1], lambda t, _: t[:1]),
    "view_not_a_view": (lambda c, x, y: x[:1], lambda t, _: t[:1].clone()),
    "view_of_another": (lambda c, x, y: x[:1], lambda t, _: t.clone()[:1]),
    "as_is_not_a_view": (lambda c, x, y: x, lambda t, _: t),
    "as_is_view_as": (lambda c, x, y: x, lambda t, _: t.view_as(t)),
    "as_is_times_2": (lambda c, x, y: x, lambda t, _: t * 2),
    "integer_input_gets_none": (lambda c, x, y: x * y,
                                lambda t, yt: t * 3 if yt is None else t * 5),
}


@pytest.mark.parametrize("case", list(_JVP_CASES))
@pytest.mark.parametrize("input_kind", ["plain", "view_of_dual"])
def test_custom_function_jvp_checks_as_pytorch(case, input_kind):
    # PyTorch's test_custom_function_forward_mode_{forward_is_no_op,inplace_checks,
    # view_checks,non_differentiable} and test_custom_function_mark_dirty_not_differentiable:
    # these results were accepted silently (or an integer input got a zero tangent)
    def prog(lib):
        fw = _fw(lib)
        fwd, jvp = _JVP_CASES[case]
        MyFn = _custom(lib, fwd, jvp)
        x = lib.tensor([1.0, 2.0], dtype=lib.float64).clone()
        tan = lib.tensor([1.0, -1.0], dtype=lib.float64)
        with fw.dual_level():
            d = fw.make_dual(x, tan)
            if input_kind == "view_of_dual":
                d = d.view_as(d)
            try:
                out = MyFn.apply(d, lib.tensor(3))
            except RuntimeError as e:
                return "RuntimeError: " + str(e)[:70]
            t = fw.unpack_dual(out).tangent
            return (out is d, t, t is not None and t is fw.unpack_dual(d).tangent,
                    t is not None and t._base is not None)
    run_both(prog)


def test_custom_function_view_checks_in_gradcheck():
    # PyTorch's test_custom_function_forward_mode_view_checks: gradcheck with forward AD of
    # a Function returning a view of its input (whose backward builds the input's shape)
    def prog(lib):
        class ViewFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, foo, flag):
                ctx.flag = flag
                ctx.size = foo.size()
                return foo.narrow(0, 0, 2)

            @staticmethod
            def vjp(ctx, g):
                gi = g.new_zeros(ctx.size)
                gi.narrow(0, 0, 2).copy_(g)
                return gi, None

            @staticmethod
            def jvp(ctx, t, _):
                res = t.narrow(0, 0, 2)
                if ctx.flag != "ok":
                    res = res.clone()
                if ctx.flag in ("not_a_view_of_inp", "not_a_view_of_inp_base"):
                    res = res.view_as(res)
                return res
        inp = lib.tensor(np.arange(16.0).reshape(4, 4) / 3, requires_grad=True)
        res = []
        for flag in ("ok", "not_a_view", "not_a_view_of_inp", "not_a_view_of_inp_base"):
            def fn(x):
                if flag == "not_a_view_of_inp_base":
                    x = x.view_as(x)
                return ViewFn.apply(x, flag)
            try:
                res.append(lib.autograd.gradcheck(fn, (inp,), check_forward_ad=True))
            except RuntimeError as e:
                res.append(str(e)[:80])
        return res
    run_both(prog)


def test_detach_in_place_drops_the_tangent():
    def program(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(lib.ones(2, dtype=lib.float64),
                                  lib.full((2,), 3.0, dtype=lib.float64))
            a = dual.clone()
            a.detach_()
            out = a * 2
            return (fwAD.unpack_dual(out).tangent, fwAD.unpack_dual(a).tangent,
                    fwAD.unpack_dual(dual.detach()).tangent, out)
    run_both(program)


def test_dot_tangent_of_operands_that_require_grad_keeps_the_output_shape():
    """dot's JVP with one tangent absent adds a recorded zero (PyTorch's ZeroTensor); that
    zero is the result's 0-d shape, not the operand's (it made the tangent shape (3,))."""
    def prog(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        y = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 1.0, -1.0], dtype=lib.float64)
        with fw.dual_level():
            yd = fw.make_dual(y.clone(), v)
            return [fw.unpack_dual(lib.dot(x, yd)).tangent,
                    fw.unpack_dual(lib.dot(yd, x)).tangent,
                    fw.unpack_dual(x @ yd).tangent]
    run_both(prog)
