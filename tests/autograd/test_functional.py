"""autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against PyTorch.

Every test runs one program on graphgrad and on torch (``run_both``): values,
dtypes, shapes, requires_grad/grad_fn of the results, and the exception type
of failing calls.  On top of that the *container structure* of the results
(Tensor vs tuple vs list, nesting) must be PyTorch's exactly, and error
messages must say the same thing.
"""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
from tests.conftest import TOL, Raised, _run, assert_same, dtype_name, run_both, to_numpy, torch

RNG = np.random.default_rng(1234)
X3 = RNG.standard_normal(3)
Y2 = RNG.standard_normal(2)
M23 = RNG.standard_normal((2, 3))
S0 = np.array(0.7)
A44 = RNG.standard_normal((4, 4)) / 2
C3 = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)


def _struct(r):
    """The container structure of a result: 'T' for a tensor, nested tuple/list tags."""
    if isinstance(r, (graphgrad.Tensor, torch.Tensor)):
        return "T"
    if isinstance(r, tuple):
        return ("tuple",) + tuple(_struct(x) for x in r)
    if isinstance(r, list):
        return ["list"] + [_struct(x) for x in r]
    if isinstance(r, Raised):
        return ("raised", type(r.exc).__name__)
    return type(r).__name__


def _same_no_names(ours, theirs, path="result"):
    """assert_same without comparing grad_fn names (with create_graph=True the nodes of a
    result depend on how each op's backward formula is written, not on functional)."""
    if isinstance(ours, (graphgrad.Tensor, torch.Tensor)):
        assert isinstance(ours, graphgrad.Tensor) and isinstance(theirs, torch.Tensor), path
        assert dtype_name(ours.dtype) == dtype_name(theirs.dtype), path
        assert tuple(ours.shape) == tuple(theirs.shape), path
        assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad differs"
        rtol, atol = TOL[dtype_name(theirs.dtype)]
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol,
                                   err_msg=path)
    elif isinstance(ours, (tuple, list)) and isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same_no_names(a, b, f"{path}[{i}]")
    else:
        assert_same(ours, theirs, path)


def check(program, names=True):
    """Run on both libraries; compare results (and grad_fn names when ``names``) and the
    container structure."""
    if names:
        ours, theirs = run_both(program)
    else:
        ours, theirs = _run(program, graphgrad), _run(program, torch)
        _same_no_names(ours, theirs)
    assert _struct(ours) == _struct(theirs), f"structure {_struct(ours)} vs {_struct(theirs)}"
    return ours, theirs


def t(lib, a, req=False):
    return lib.tensor(np.array(a)).requires_grad_(req)


# ----------------------------------------------------------------- functions
# name -> (function of (lib, *inputs), input arrays)
FUNCS = {
    "1->1": (lambda L, x: L.sin(x) * x, (X3,)),
    "matrix->vector": (lambda L, x: (x * x).sum(1), (M23,)),
    "0d->0d": (lambda L, x: x * x * 3.0, (S0,)),
    "2->2": (lambda L, x, y: (x.exp() * y.sum(), (x * x).sum() * y), (X3, Y2)),
    "2->1": (lambda L, x, y: x * y.sum() + x.sin(), (X3, Y2)),
    "1->tuple1": (lambda L, x: (x.tanh(),), (X3,)),
    "tuple1->1": (lambda L, x: x.cos() * 2, (X3,)),
    "unused input": (lambda L, x, y: x * 2.0, (X3, Y2)),
    "constant output": (lambda L, x: (x * 2.0, L.ones(2, dtype=L.float64)), (X3,)),
    "matmul": (lambda L, x: L.tanh(t(L, A44) @ x), (RNG.standard_normal(4),)),
}
# which entries pass the inputs as a tuple even when there is one
TUPLE_INPUT = {"tuple1->1"}


def _inputs(L, name, req=False):
    arrs = FUNCS[name][1]
    xs = tuple(t(L, a, req) for a in arrs)
    if len(xs) == 1 and name not in TUPLE_INPUT:
        return xs[0]
    return xs


def _fn(L, name):
    f = FUNCS[name][0]
    return lambda *xs: f(L, *xs)


# ----------------------------------------------------------------- jacobian
@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_reverse(name, vectorize):
    check(lambda L: L.autograd.functional.jacobian(_fn(L, name), _inputs(L, name),
                                                   vectorize=vectorize))


@pytest.mark.parametrize("name", list(FUNCS))
def test_jacobian_forward_mode(name):
    check(lambda L: L.autograd.functional.jacobian(_fn(L, name), _inputs(L, name),
                                                   vectorize=True, strategy="forward-mode"))


@pytest.mark.parametrize("name", ["1->1", "2->2", "matmul", "0d->0d"])
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_create_graph(name, vectorize):
    """create_graph=True: the Jacobian is differentiable; its gradient matches torch's."""
    def program(L):
        xs = _inputs(L, name, req=True)
        J = L.autograd.functional.jacobian(_fn(L, name), xs, create_graph=True,
                                           vectorize=vectorize)
        flat = []

        def collect(r):
            if isinstance(r, (tuple, list)):
                for e in r:
                    collect(e)
            else:
                flat.append(r)
        collect(J)
        total = sum((j * j).sum() for j in flat if j.requires_grad)
        xs_t = xs if isinstance(xs, tuple) else (xs,)
        grads = L.autograd.grad(total, xs_t, allow_unused=True)
        return J, grads, tuple(x.grad for x in xs_t)
    check(program, names=False)


def test_jacobian_no_accumulation_into_inputs():
    def program(L):
        x = t(L, X3, req=True)
        J = L.autograd.functional.jacobian(lambda v: v * v, x)
        Jv = L.autograd.functional.jacobian(lambda v: v * v, x, vectorize=True)
        return J, Jv, x.grad, x.requires_grad
    check(program)


def test_jacobian_complex():
    check(lambda L: L.autograd.functional.jacobian(lambda z: z * z, t(L, C3)))
    check(lambda L: L.autograd.functional.jacobian(lambda z: z * z, t(L, C3), vectorize=True))


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_strict(vectorize):
    def independent(L):
        return L.autograd.functional.jacobian(lambda x, y: x * 2.0, (t(L, X3), t(L, Y2)),
                                              strict=True, vectorize=vectorize)

    def no_grad_output(L):
        return L.autograd.functional.jacobian(lambda x: L.ones(3, dtype=L.float64), t(L, X3),
                                              strict=True, vectorize=vectorize)

    def fine(L):
        return L.autograd.functional.jacobian(lambda x: x.sin(), t(L, X3), strict=True,
                                              vectorize=vectorize)
    for program in (independent, no_grad_output, fine):
        check(program)
    assert_same_message(no_grad_output)
    if not vectorize:
        assert_same_message(independent)
    else:
        assert_same_message(fine)


def test_jacobian_strict_create_graph_linear():
    """strict + create_graph: a Jacobian that does not depend on the input is an error."""
    def program(L):
        return L.autograd.functional.jacobian(lambda x: x * 3.0, t(L, X3), strict=True,
                                              create_graph=True)
    check(program)
    assert_same_message(program)


def _msg(program, lib):
    try:
        program(lib)
    except BaseException as e:  # noqa: BLE001
        return type(e), str(e)
    return None, None


def _normalize(s):
    return s.replace("graphgrad", "torch").replace(" ", "")


def assert_same_message(program):
    (ta, ma), (tb, mb) = _msg(program, graphgrad), _msg(program, torch)
    assert ta is tb, (ta, tb)
    if ta is None:
        return
    assert _normalize(ma) == _normalize(mb), f"\nours:   {ma}\ntorch:  {mb}"


@pytest.mark.parametrize("program", [
    lambda L: L.autograd.functional.jacobian(lambda x: x, [t(L, X3)]),
    lambda L: L.autograd.functional.jacobian(lambda x: x, (t(L, X3), 3)),
    lambda L: L.autograd.functional.jacobian(lambda x: [x], t(L, X3)),
    lambda L: L.autograd.functional.jacobian(lambda x: 3, t(L, X3)),
    lambda L: L.autograd.functional.jacobian(lambda x: x, t(L, X3), strategy="foo"),
    lambda L: L.autograd.functional.jacobian(lambda x: x, t(L, X3), strategy="forward-mode"),
    lambda L: L.autograd.functional.jacobian(lambda x: x, t(L, X3), strategy="forward-mode",
                                             vectorize=True, create_graph=True),
    lambda L: L.autograd.functional.jacobian(lambda x: x, t(L, X3), strategy="forward-mode",
                                             vectorize=True, strict=True),
    lambda L: L.autograd.functional.jacobian(lambda x: x * 2.0, t(L, X3), vectorize=True,
                                             strict=True),
    lambda L: L.autograd.functional.hessian(lambda x: x * x, t(L, X3)),
    lambda L: L.autograd.functional.hessian(lambda x: (x.sum(), x.sum()), t(L, X3)),
    lambda L: L.autograd.functional.hessian(lambda x: x.sum(), t(L, X3),
                                            outer_jacobian_strategy="bad"),
    lambda L: L.autograd.functional.hessian(lambda x: x.sum(), [t(L, X3)]),
], ids=["list inputs", "non-tensor in tuple", "list outputs", "int output", "bad strategy",
        "forward not vectorized", "forward create_graph", "forward strict",
        "strict vectorize", "hessian non-scalar", "hessian tuple output",
        "hessian bad strategy", "hessian list inputs"])
def test_jacobian_hessian_errors(program):
    check(program)
    assert_same_message(program)


def test_vectorized_jacobian_is_one_batched_backward(monkeypatch):
    """vectorize=True runs ONE backward with batched cotangents (and hessian one more for
    the gradient with create_graph), never a loop over output elements."""
    import graphgrad.autograd as ag  # (grad() calls the engine's execute through this name)
    F = graphgrad.autograd.functional  # (and the vectorized jacobian through this one)
    calls = []
    real = ag.execute

    def counting(*args, **kwargs):
        calls.append(kwargs.get("batch_nd", 0))
        return real(*args, **kwargs)
    monkeypatch.setattr(ag, "execute", counting)
    monkeypatch.setattr(F, "execute", counting)
    x = t(graphgrad, RNG.standard_normal(20))
    A = t(graphgrad, RNG.standard_normal((20, 20)))
    F.jacobian(lambda v: graphgrad.sin(A @ v) * v, x, vectorize=True)
    assert calls == [1]
    calls.clear()
    F.jacobian(lambda a, b: (a * b, a.sum() * b), (x, x), vectorize=True)
    assert calls == [1]
    calls.clear()
    F.hessian(lambda v: graphgrad.tanh(A @ v).sum(), x, vectorize=True)
    assert calls == [0, 1]
    calls.clear()
    F.jacobian(lambda v: graphgrad.sin(A @ v) * v, x)
    assert len(calls) == 20  # the loop: one backward per output element


def _counted(f, calls, L):
    """``f`` that records each call (under the library's name)."""
    def g(*xs):
        calls.append(L.__name__)
        return f(*xs)
    return g


M44 = RNG.standard_normal((4, 4)) / 2
FWD_ONE_PASS = {
    # the W5/W6 function
    "sin(Bx)*x": (lambda L, x: L.sin(t(L, A44) @ x) * x, (RNG.standard_normal(4),)),
    "2->4": (lambda L, a, b: (a * b, (t(L, M44) @ a).exp().sum() * b,
                              L.cat([a, b[:2]]).tanh(), a.reshape(2, 2).t() @ b.reshape(2, 2)),
             (RNG.standard_normal(4), RNG.standard_normal(4))),
    "matrix in, views": (lambda L, m, v: ((m.t() @ v).unsqueeze(0).expand(3, 2),
                                          L.stack([m[0], m[1] * v[:3]]).sum(0),
                                          m[:, 1:].mean() + (v * v).sum()),
                         (M23, RNG.standard_normal(3))),
}


@pytest.mark.parametrize("name", list(FWD_ONE_PASS))
def test_forward_mode_jacobian_is_one_batched_pass(name):
    """strategy="forward-mode", vectorize=True: ONE call of the function with all the
    one-hot tangents as a batch (PyTorch's vmap also calls it once), no op takes the
    batched-tangent fallback (a loop over the batch), and the result is PyTorch's."""
    fw = graphgrad.autograd.forward_ad
    f, arrs = FWD_ONE_PASS[name]
    calls = []
    fw._fallback_calls.clear()
    check(lambda L: L.autograd.functional.jacobian(
        _counted(lambda *xs: f(L, *xs), calls, L), tuple(t(L, a) for a in arrs),
        vectorize=True, strategy="forward-mode"))
    assert calls == ["graphgrad", "torch"]
    assert not fw._fallback_calls, dict(fw._fallback_calls)


def test_forward_mode_jacobian_of_vector_matrix_product():
    """``a @ M`` with a 1-D ``a`` (mm + an in-place squeeze_, as in PyTorch): PyTorch 2.13's
    vmapped forward-mode jacobian raises here ("Trying to set a forward gradient that has a
    different size"); graphgrad's equals the reverse-mode one."""
    F = graphgrad.autograd.functional
    fw = graphgrad.autograd.forward_ad
    a, M = t(graphgrad, RNG.standard_normal(4)), t(graphgrad, M44)
    fw._fallback_calls.clear()
    jf = F.jacobian(lambda v: (v @ M).exp(), a, vectorize=True, strategy="forward-mode")
    jr = F.jacobian(lambda v: (v @ M).exp(), a)
    np.testing.assert_allclose(jf.numpy(), jr.numpy(), rtol=1e-12, atol=1e-14)
    assert not fw._fallback_calls


def test_forward_over_reverse_hessian_is_one_batched_pass():
    """hessian(outer_jacobian_strategy="forward-mode"): the gradient (a create_graph
    backward) runs once under a batched level, and the JVPs of the backward formulas take
    the batch without the fallback; the result is PyTorch's, with its grad_fn."""
    fw = graphgrad.autograd.forward_ad

    def f(L, x):
        A = t(L, A44)
        return (L.nn.functional.softmax(A @ x, 0) * x.exp()).sum() + x.norm() + \
            (x[1:3] ** 3).prod() + L.tanh(x.unsqueeze(1) * x.unsqueeze(0)).mean()
    calls = []
    fw._fallback_calls.clear()
    x = RNG.standard_normal(4)
    check(lambda L: L.autograd.functional.hessian(
        _counted(lambda v: f(L, v), calls, L), t(L, x), vectorize=True,
        outer_jacobian_strategy="forward-mode"))
    assert calls == ["graphgrad", "torch"]
    assert not fw._fallback_calls, dict(fw._fallback_calls)


# ----------------------------------------------------------------- hessian
HESS = {
    "tanh(Ax)": (lambda L, x: L.tanh(t(L, A44) @ x).sum(), (RNG.standard_normal(4),)),
    "cubic": (lambda L, x: (x * x * x).sum(), (X3,)),
    "0d": (lambda L, x: x * x * x, (S0,)),
    "matrix": (lambda L, x: (x.sin() * x).sum(), (M23,)),
    "two inputs": (lambda L, x, y: (x.exp().sum() * (y * y).sum()), (X3, Y2)),
    "unused": (lambda L, x, y: (x * x).sum(), (X3, Y2)),
    "linear": (lambda L, x: (x * 2.0).sum(), (X3,)),
}


def _h_inputs(L, name, req=False):
    xs = tuple(t(L, a, req) for a in HESS[name][1])
    return xs[0] if len(xs) == 1 else xs


@pytest.mark.parametrize("name", list(HESS))
@pytest.mark.parametrize("vectorize,strategy", [(False, "reverse-mode"), (True, "reverse-mode"),
                                                (True, "forward-mode")])
def test_hessian(name, vectorize, strategy):
    f = HESS[name][0]
    check(lambda L: L.autograd.functional.hessian(
        lambda *xs: f(L, *xs), _h_inputs(L, name), vectorize=vectorize,
        outer_jacobian_strategy=strategy))


def test_hessian_single_input_as_tuple():
    check(lambda L: L.autograd.functional.hessian(lambda x: (x * x * x).sum(), (t(L, X3),)))
    check(lambda L: L.autograd.functional.hessian(lambda x: (x * x * x).sum(), (t(L, X3),),
                                                  vectorize=True))


@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian_create_graph(vectorize):
    def program(L):
        x = t(L, X3, req=True)
        H = L.autograd.functional.hessian(lambda v: (v.sin() * v * v).sum(), x,
                                          create_graph=True, vectorize=vectorize)
        g, = L.autograd.grad((H * H).sum(), x)
        return H, g, x.grad
    check(program, names=False)


@pytest.mark.parametrize("name", ["unused", "linear"])
def test_hessian_strict(name):
    f = HESS[name][0]

    def program(L):
        return L.autograd.functional.hessian(lambda *xs: f(L, *xs), _h_inputs(L, name),
                                             strict=True)
    check(program)
    assert_same_message(program)


# ----------------------------------------------------------------- vjp / jvp
VJP = {
    "1->1": (lambda L, x: L.sin(x) * x, (X3,), (X3 * 0.5,)),
    "scalar out": (lambda L, x: (x * x).sum(), (X3,), None),
    "2->2": (lambda L, x, y: (x.exp() * y.sum(), (x * x).sum() * y), (X3, Y2), (X3, Y2)),
    "tuple in, 1 out": (lambda L, x: x.cos(), (X3,), (X3,)),
    "unused input": (lambda L, x, y: x * 2.0, (X3, Y2), (X3,)),
    "0d": (lambda L, x: x * x, (S0,), None),
}


def _vjp_args(L, name):
    f, ins, vs = VJP[name]
    xs = tuple(t(L, a) for a in ins)
    x = xs if (len(xs) > 1 or name == "tuple in, 1 out") else xs[0]
    if vs is None:
        v = None
    else:
        vt = tuple(t(L, a) for a in vs)
        v = vt if len(vt) > 1 else vt[0]
    return (lambda *a: f(L, *a)), x, v


@pytest.mark.parametrize("name", list(VJP))
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(name, create_graph):
    def program(L):
        fn, x, v = _vjp_args(L, name)
        return L.autograd.functional.vjp(fn, x, v, create_graph=create_graph)
    check(program, names=not create_graph)


JVP = {
    "1->1": (lambda L, x: L.sin(x) * x, (X3,), (X3 * 0.5,)),
    "2->2": (lambda L, x, y: (x.exp() * y.sum(), (x * x).sum() * y), (X3, Y2), (X3, Y2)),
    "tuple out": (lambda L, x: (x.tanh(), x.sum()), (X3,), (X3,)),
    "0d": (lambda L, x: x * x, (S0,), None),
    "constant output": (lambda L, x: (x * 2.0, L.ones(2, dtype=L.float64)), (X3,), (X3,)),
}


@pytest.mark.parametrize("name", list(JVP))
@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp(name, create_graph):
    f, ins, vs = JVP[name]

    def program(L):
        xs = tuple(t(L, a) for a in ins)
        x = xs if len(xs) > 1 else xs[0]
        v = None if vs is None else tuple(t(L, a) for a in vs)
        if v is not None and len(v) == 1:
            v = v[0]
        return L.autograd.functional.jvp(lambda *a: f(L, *a), x, v, create_graph=create_graph)
    check(program, names=not create_graph)


def test_vjp_jvp_create_graph_differentiable():
    def program(L):
        x = t(L, X3, req=True)
        v = t(L, X3 * 0.3, req=True)
        out, r = L.autograd.functional.vjp(lambda a: a.sin() * a, x, v, create_graph=True)
        out2, r2 = L.autograd.functional.jvp(lambda a: a.sin() * a, x, v, create_graph=True)
        g = L.autograd.grad((r * r).sum() + (r2 * r2).sum() + out.sum(), (x, v))
        return out, r, r2, g, x.grad, v.grad
    check(program, names=False)


@pytest.mark.parametrize("program", [
    lambda L: L.autograd.functional.vjp(lambda x: x * 2, t(L, X3)),
    lambda L: L.autograd.functional.vjp(lambda x: x * 2, t(L, X3), t(L, Y2)),
    lambda L: L.autograd.functional.vjp(lambda x: (x * 2, x), t(L, X3), t(L, X3)),
    lambda L: L.autograd.functional.vjp(lambda x: (x * 2, x), t(L, X3), (t(L, X3), t(L, Y2))),
    lambda L: L.autograd.functional.vjp(lambda x: x * 2, t(L, X3), (t(L, X3), t(L, X3))),
    lambda L: L.autograd.functional.vjp(lambda x: x * 2, t(L, X3), [t(L, X3)]),
    lambda L: L.autograd.functional.jvp(lambda x: x * 2, t(L, X3)),
    lambda L: L.autograd.functional.jvp(lambda x: x * 2, t(L, X3), t(L, Y2)),
    lambda L: L.autograd.functional.jvp(lambda x, y: x * 2, (t(L, X3), t(L, Y2)), t(L, X3)),
    lambda L: L.autograd.functional.vhp(lambda x: x * 2, t(L, X3), t(L, X3)),
    lambda L: L.autograd.functional.vhp(lambda x: (x.sum(),), t(L, X3), t(L, X3)),
    lambda L: L.autograd.functional.hvp(lambda x: x * 2, t(L, X3), t(L, X3)),
    lambda L: L.autograd.functional.hvp(lambda x: x.sum(), t(L, X3)),
    lambda L: L.autograd.functional.vhp(lambda x: x.sum(), t(L, X3), t(L, Y2)),
], ids=["vjp v None non-scalar", "vjp v shape", "vjp v single for tuple", "vjp tuple entry shape",
        "vjp v too long", "vjp v list", "jvp v None", "jvp v shape", "jvp v single for tuple",
        "vhp non-scalar", "vhp tuple output", "hvp non-scalar", "hvp v None", "vhp v shape"])
def test_vjp_jvp_errors(program):
    check(program)
    assert_same_message(program)


@pytest.mark.parametrize("fname", ["vjp", "jvp"])
def test_vjp_jvp_strict(fname):
    def independent(L):
        F = getattr(L.autograd.functional, fname)
        v = (t(L, X3),) if fname == "vjp" else (t(L, X3), t(L, Y2))
        return F(lambda x, y: x * 2.0, (t(L, X3), t(L, Y2)), v, strict=True)

    def constant(L):
        F = getattr(L.autograd.functional, fname)
        return F(lambda x: L.ones(3, dtype=L.float64), t(L, X3), t(L, X3), strict=True)

    def not_strict(L):
        F = getattr(L.autograd.functional, fname)
        v = (t(L, X3),) if fname == "vjp" else (t(L, X3), t(L, Y2))
        return F(lambda x, y: x * 2.0, (t(L, X3), t(L, Y2)), v)
    for program in (independent, constant, not_strict):
        check(program)
        assert_same_message(program)


def test_jvp_strict_create_graph_linear():
    def program(L):
        return L.autograd.functional.vjp(lambda x: x * 3.0, t(L, X3), t(L, X3), strict=True,
                                         create_graph=True)
    check(program)
    assert_same_message(program)


# ----------------------------------------------------------------- vhp / hvp
HVP = {
    "1 input": (lambda L, x: (x.sin() * x * x).sum(), (X3,), (X3 * 0.3,)),
    "0d": (lambda L, x: x * x * x, (S0,), None),
    "2 inputs": (lambda L, x, y: x.exp().sum() * (y * y).sum(), (X3, Y2), (X3, Y2)),
    "tanh(Ax)": (lambda L, x: L.tanh(t(L, A44) @ x).sum(), (X3[:2].repeat(2),),
                 (X3[:2].repeat(2),)),
    "unused": (lambda L, x, y: (x * x * x).sum(), (X3, Y2), (X3, Y2)),
}


@pytest.mark.parametrize("fname", ["vhp", "hvp"])
@pytest.mark.parametrize("name", list(HVP))
@pytest.mark.parametrize("create_graph", [False, True])
def test_vhp_hvp(fname, name, create_graph):
    f, ins, vs = HVP[name]

    def program(L):
        xs = tuple(t(L, a) for a in ins)
        x = xs if len(xs) > 1 else xs[0]
        v = None if vs is None else tuple(t(L, a) for a in vs)
        if v is not None and len(v) == 1:
            v = v[0]
        F = getattr(L.autograd.functional, fname)
        return F(lambda *a: f(L, *a), x, v, create_graph=create_graph)
    check(program, names=not create_graph)


@pytest.mark.parametrize("fname", ["vhp", "hvp"])
@pytest.mark.parametrize("name", ["unused", "linear", "constant"])
def test_vhp_hvp_strict(fname, name):
    funcs = {
        "unused": (lambda L, x, y: (x * x * x).sum(), 2),
        "linear": (lambda L, x, y: (x * 2.0).sum() + (y * 3.0).sum(), 2),
        "constant": (lambda L, x, y: L.ones((), dtype=L.float64), 2),
    }
    f, _ = funcs[name]

    def program(L):
        F = getattr(L.autograd.functional, fname)
        return F(lambda *a: f(L, *a), (t(L, X3), t(L, Y2)), (t(L, X3), t(L, Y2)), strict=True)
    check(program)
    assert_same_message(program)


def test_results_detached_without_create_graph():
    def program(L):
        x = t(L, X3, req=True)
        F = L.autograd.functional
        res = [F.vjp(lambda a: a * a, x, x.detach()), F.jvp(lambda a: a * a, x, x.detach()),
               F.vhp(lambda a: (a ** 3).sum(), x, x.detach()),
               F.hvp(lambda a: (a ** 3).sum(), x, x.detach()),
               F.jacobian(lambda a: a * a, x), F.hessian(lambda a: (a ** 3).sum(), x)]
        return res, x.grad
    check(program)


# ----------------------------------------------------------------- is_grads_batched
GA = RNG.standard_normal((4, 2))
GB = RNG.standard_normal(4)


def test_grad_is_grads_batched_end_to_end():
    """autograd.grad(..., is_grads_batched=True) equals torch's vmap'ed grad."""
    def program(L):
        x = t(L, M23, req=True)
        y = t(L, Y2, req=True)
        u = t(L, Y2, req=True)   # unused
        a = (x.sin() * x).sum(1) * y          # (2,)
        b = (x @ t(L, X3)).exp().sum()        # ()
        ga = t(L, GA)
        gb = t(L, GB)
        r1 = L.autograd.grad((a, b), (x, y), (ga, gb), is_grads_batched=True,
                             retain_graph=True)
        r2 = L.autograd.grad((a,), (x, y, u), (ga,), is_grads_batched=True,
                             retain_graph=True, allow_unused=True)
        r3 = L.autograd.grad((a,), (x, u), (ga,), is_grads_batched=True, retain_graph=True,
                             materialize_grads=True)
        r4 = L.autograd.grad((a, b), (x,), (ga, gb), is_grads_batched=True, create_graph=True)
        (g4,) = L.autograd.grad((r4[0] * r4[0]).sum(), (x,))
        return r1, r2, r3, g4
    check(program, names=False)


def test_grad_is_grads_batched_shape_error():
    def program(L):
        x = t(L, X3, req=True)
        return L.autograd.grad(x * 2, x, t(L, np.ones((2, 4))), is_grads_batched=True)
    check(program)
