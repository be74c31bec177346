"""gradcheck / gradgradcheck against PyTorch: pass or fail (and the exception type) must
agree, in fast and slow mode, for real and complex inputs.

- fast mode draws PyTorch's random vectors (a fresh default-seeded generator, one vector
  per real input, two per complex input) and scales atol as PyTorch does, so a borderline
  function passes or fails in both;
- the undefined-gradient check sees what PyTorch's sees: hooks are called with None for an
  undefined gradient, and a backward that cannot handle one fails the check;
- the scenarios of PyTorch's own gradcheck tests (written afresh, dense tensors only).
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, torch


def inp(lib, shape, seed=0, complex_=False, requires_grad=True, scale=1.0):
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape)
    if complex_:
        a = a + 1j * r.standard_normal(shape)
    return lib.tensor(a * scale, requires_grad=requires_grad)


def outcome(fn):
    """What a gradcheck call gave: its result, or the exception type, with warnings off."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - compared by type
            return type(e).__name__


# ------------------------------------------------------------ fast mode, complex inputs
def test_fast_mode_complex_input_near_the_origin():
    # 1/|z| near 0 with a tight atol: the numerical and analytical v^T J u differ by a few
    # 1e-6; PyTorch's atol for a complex input counts both of its vectors and passes
    z0 = np.array([0.00061567 + 0.00043019j, 0.0077096 + 0.00821913j])

    def program(lib):
        res = []
        for fast in (True, False):
            z = lib.tensor(z0, requires_grad=True)
            res.append(lib.autograd.gradcheck(lambda z: 1.0 / lib.linalg.vector_norm(z), (z,),
                                              fast_mode=fast, atol=8.3e-6, rtol=1e-9,
                                              raise_exception=False))
        return res
    ours, _ = run_both(program)
    assert ours == [True, True]


@pytest.mark.parametrize("seed", range(12))
def test_fast_mode_borderline_complex_inputs_agree(seed):
    r = np.random.default_rng(seed)
    z0 = 1e-2 * (r.random(2) + 1j * r.random(2))

    def program(lib):
        res = []
        for fast in (True, False):
            z = lib.tensor(z0, requires_grad=True)
            res.append(outcome(lambda: lib.autograd.gradcheck(
                lambda z: 1.0 / lib.linalg.vector_norm(z), (z,), fast_mode=fast, atol=8.3e-6,
                rtol=1e-9, raise_exception=False)))
        return res
    run_both(program)


@pytest.mark.parametrize("shape,complex_,delta,outs", list(itertools.product(
    [(3,), (2, 3)], [False, True], [0.0, 3e-6, 8e-6, 1.5e-5, 3e-5, 1e-4], [1, 2])))
def test_fast_and_slow_agree_on_a_gradient_off_by_delta(shape, complex_, delta, outs):
    # a hook adds ``delta`` to the gradient: pass or fail depends on the tolerance and, in
    # fast mode, on the random vectors (the same as PyTorch's)
    def program(lib):
        x = inp(lib, shape, seed=1, complex_=complex_)
        y = inp(lib, shape, seed=2)

        def f(x, y):
            a = x.clone()
            a.register_hook(lambda g: g + delta * lib.ones_like(g))
            res = [a * 2 + y]
            if outs == 2:
                res.append((x * y).sum(0))
            return tuple(res)
        return [outcome(lambda: lib.autograd.gradcheck(
            f, (x, y), fast_mode=fast, raise_exception=False, check_undefined_grad=False))
            for fast in (True, False)]
    run_both(program)


@pytest.mark.parametrize("shape,complex_,delta", list(itertools.product(
    [(3,), (2, 3)], [False, True], [0.0, 8e-6, 3e-5, 1e-4])))
def test_forward_mode_agrees_on_a_tangent_off_by_delta(shape, complex_, delta):
    def program(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

            @staticmethod
            def jvp(ctx, t):
                return t * 2 + delta

        x = inp(lib, shape, seed=3, complex_=complex_)
        return [outcome(lambda: lib.autograd.gradcheck(
            Twice.apply, (x,), fast_mode=fast, raise_exception=False, check_forward_ad=True,
            check_backward_ad=False, check_undefined_grad=False)) for fast in (True, False)]
    run_both(program)


FUNCTIONS = {
    "sin": lambda lib, x: x.sin(),
    "abs": lambda lib, x: x.abs(),
    "mul_conj": lambda lib, x: x * x.conj(),
    "exp_sum": lambda lib, x: x.exp().sum(),
    "pow3": lambda lib, x: x ** 3,
    "angle": lambda lib, x: x.angle(),
    "matmul": lambda lib, x: x @ x.transpose(0, 1),
    "reciprocal": lambda lib, x: x.reciprocal(),
    "log": lambda lib, x: x.log(),
    "cumprod": lambda lib, x: x.cumprod(1),
    "exp_large": lambda lib, x: (x * 4).exp(),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("complex_", [False, True])
def test_common_functions_pass_in_every_mode(name, complex_):
    def program(lib):
        res = []
        for fast, fwd in itertools.product((True, False), (False, True)):
            x = inp(lib, (3, 4), seed=4, complex_=complex_, scale=0.8)
            res.append(outcome(lambda: lib.autograd.gradcheck(
                lambda x: FUNCTIONS[name](lib, x), (x,), fast_mode=fast, check_forward_ad=fwd)))
        return res
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
def test_gradgradcheck_complex(fast):
    def program(lib):
        x = inp(lib, (3,), seed=5, complex_=True)
        return outcome(lambda: lib.autograd.gradgradcheck(lambda x: (x * x.sin()).sum(), (x,),
                                                          fast_mode=fast))
    run_both(program)


# ------------------------------------------------------------ undefined output gradients
def _custom(lib, kind):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if kind == "raises":
                if g is None:
                    raise RuntimeError("cannot handle an undefined gradient")
                return g * 2
            if kind == "handles":
                return None if g is None else g * 2
            if kind == "nonzero":
                return lib.ones(3, dtype=lib.float64) if g is None else g * 2
            if kind == "zeros":
                return lib.zeros(3, dtype=lib.float64) if g is None else g * 2
            return g * 2  # "typeerror": None * 2

    return F.apply


def _hooked(lib):
    def fn(x):
        def hook(g):
            if g is None:
                raise RuntimeError("x is undefined")
        y = x.clone()
        y.register_hook(hook)
        return y
    return fn


@pytest.mark.parametrize("kind", ["raises", "handles", "nonzero", "zeros", "typeerror",
                                  "hook"])
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("complex_", [False, True])
def test_undefined_grad_check(kind, fast, complex_):
    def program(lib):
        f = _hooked(lib) if kind == "hook" else _custom(lib, kind)
        x = lib.tensor(np.array([1.0, 2.0, 3.0]) * (1 + 1j if complex_ else 1),
                       requires_grad=True)
        return [outcome(lambda: lib.autograd.gradcheck(f, (x,), fast_mode=fast)),
                outcome(lambda: lib.autograd.gradcheck(f, (x,), fast_mode=fast,
                                                       raise_exception=False)),
                outcome(lambda: lib.autograd.gradcheck(f, (x,), fast_mode=fast,
                                                       check_undefined_grad=False))]
    run_both(program)


def test_undefined_grad_check_warns_and_names_the_notes():
    x = graphgrad.ones(1, dtype=graphgrad.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="Backwards compatibility: New undefined gradient"):
        with pytest.raises(graphgrad.autograd.GradcheckError,
                           match="Expected backward function to handle undefined output"):
            graphgrad.autograd.gradcheck(_hooked(graphgrad), (x,))


def test_undefined_grad_with_two_outputs_one_at_a_time():
    def program(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                if g1 is None or g2 is None:
                    raise RuntimeError("needs both")
                return g1 * 2 + g2 * 3

        x = inp(lib, (3,), seed=6)
        return outcome(lambda: lib.autograd.gradcheck(Two.apply, (x,)))
    run_both(program)


# ------------------------------------------------------------ hooks and undefined gradients
def test_hooks_see_none_for_an_undefined_gradient():
    def program(lib):
        class Drop(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return None

        calls = []
        x = lib.ones(2, requires_grad=True)
        x.register_hook(lambda g: calls.append(("leaf", g)))
        y = x.clone()
        y.register_hook(lambda g: calls.append(("y", g)))
        z = Drop.apply(y)
        z.register_hook(lambda g: calls.append(("z", g)))
        z.sum().backward()
        a, b = lib.ones(2, requires_grad=True).split(1)
        a.register_hook(lambda g: calls.append(("a", g)))
        b.register_hook(lambda g: calls.append(("b", g)))
        a.sum().backward()
        return calls, x.grad
    run_both(program)


@pytest.mark.parametrize("on_leaf", [False, True])
def test_a_hook_cannot_replace_an_undefined_gradient(on_leaf):
    def program(lib):
        class Drop(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return None

        x = lib.ones(2, requires_grad=True)
        y = x if on_leaf else x * 3
        y.register_hook(lambda g: lib.ones(2) if g is None else g)
        Drop.apply(y).sum().backward()
        return x.grad
    ours, _ = run_both(program)
    assert "can't replace a None gradient with a non-None value" in str(ours.exc)


# ------------------------------------------------------------ PyTorch's gradcheck scenarios
def _nondet(lib):
    class NonDet(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, jitter=0.0):
            ctx._jitter = jitter
            return x

        @staticmethod
        def backward(ctx, g):
            return NonDet.apply(g, ctx._jitter) * (1 + lib.rand_like(g) * ctx._jitter), None
    return NonDet


@pytest.mark.parametrize("fast", [True, False])
def test_single_input(fast):
    def program(lib):
        return (lib.autograd.gradcheck(lambda x: x.mul(5), inp(lib, (10,)), fast_mode=fast),
                lib.autograd.gradgradcheck(lambda x: x.mul(5), inp(lib, (10,)), fast_mode=fast))
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("which,jitter,tol", [("gc", 0.0, 0.0), ("gc", 1e-6, 0.0),
                                              ("ggc", 1e-12, 0.0), ("gc", 1e-6, 1e-5),
                                              ("ggc", 1e-12, 1e-5)])
def test_nondeterministic_backward(fast, which, jitter, tol):
    def program(lib):
        nd = _nondet(lib)
        fn = lib.autograd.gradcheck if which == "gc" else lib.autograd.gradgradcheck
        x = inp(lib, (5, 5), seed=7)
        return outcome(lambda: fn(lambda x: nd.apply(x, jitter), x, nondet_tol=tol,
                                  fast_mode=fast))
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
def test_validates_inputs(fast):
    def program(lib):
        res = [outcome(lambda: lib.autograd.gradcheck(lambda x: x, (inp(lib, (10,),
                                                                        requires_grad=False),),
                                                      raise_exception=False, fast_mode=fast))]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x = lib.ones(1, dtype=lib.float32, requires_grad=True)
            res.append(lib.autograd.gradcheck(lambda x: x, (x,), atol=1e-1, fast_mode=fast))
        res.append(any("is not a double precision" in str(m.message) for m in w))
        x = lib.ones(1, dtype=lib.float64, requires_grad=True).expand((2, 2))
        res.append(outcome(lambda: lib.autograd.gradcheck(lambda x: x, (x,),
                                                          raise_exception=False,
                                                          fast_mode=fast)))
        return res
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
def test_no_differentiable_outputs(fast):
    def program(lib):
        x = lib.ones((1,), requires_grad=True)
        return [outcome(lambda: lib.autograd.gradcheck(lambda x: lib.tensor([x.item()]), x,
                                                       fast_mode=fast)),
                outcome(lambda: lib.autograd.gradcheck(lambda x: lib.tensor([x.item()]), x,
                                                       raise_exception=False, fast_mode=fast)),
                lib.autograd.gradcheck(lambda x: (), (x,), fast_mode=fast)]
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
def test_backward_not_multiplied_by_grad_output(fast):
    def program(lib):
        def fn(x):
            y = x.clone()
            y.register_hook(lambda g: g + 1e-2)
            return y
        x = lib.ones(1, dtype=lib.float64, requires_grad=True)
        return [outcome(lambda: lib.autograd.gradcheck(fn, (x,), atol=1e-1, fast_mode=fast)),
                lib.autograd.gradcheck(fn, (x,), atol=1e-1, raise_exception=False,
                                       fast_mode=fast)]
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("kind", ["RR", "CC", "RC", "CR"])
def test_jacobian_mismatch(fast, kind):
    def program(lib):
        def fn(x):
            y = {"RR": lambda: x.clone(), "CC": lambda: x.clone(),
                 "RC": lambda: lib.complex(x, x), "CR": lambda: lib.real(x)}[kind]()
            y.register_hook(lambda g: g + 1e-2)
            return y
        dt = lib.complex128 if kind[0] == "C" else lib.float64
        x = lib.ones(2, 2, requires_grad=True, dtype=dt)
        return [outcome(lambda: lib.autograd.gradcheck(fn, (x,), fast_mode=fast)),
                lib.autograd.gradcheck(fn, (x,), raise_exception=False, fast_mode=fast)]
    run_both(program)


def test_jacobian_mismatch_messages():
    def fn(x):
        y = x.clone()
        y.register_hook(lambda g: g + 1e-2)
        return y
    for fast in (True, False):
        with pytest.raises(graphgrad.autograd.GradcheckError,
                           match="Jacobian mismatch for output 0 with respect to input 0"):
            graphgrad.autograd.gradcheck(fn, (graphgrad.ones(2, 2, requires_grad=True),),
                                         fast_mode=fast)
    with pytest.raises(RuntimeError, match="While considering the imaginary part of complex "
                                           "outputs only"):
        graphgrad.autograd.gradcheck(
            fn, (graphgrad.ones(2, 2, requires_grad=True, dtype=graphgrad.complex128),))


@pytest.mark.parametrize("fast", [True, False])
def test_output_shape_or_dtype_depending_on_values(fast):
    def program(lib):
        a = lib.ones(1, dtype=lib.float64, requires_grad=True)
        return [outcome(lambda: lib.autograd.gradcheck(
            lambda x: lib.cat([x, x]) if lib.all(x >= 1) else x, (a,), fast_mode=fast)),
            outcome(lambda: lib.autograd.gradcheck(
                lambda x: x.to(lib.float32) if lib.all(x >= 1) else x, (a,), fast_mode=fast))]
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
def test_complex_and_real_outputs_together(fast):
    def program(lib):
        a = lib.ones(2, 2, requires_grad=True, dtype=lib.float64)
        b = lib.ones(2, 2, requires_grad=True, dtype=lib.float64)
        c = lib.ones(2, 2, requires_grad=True, dtype=lib.complex128)
        return (lib.autograd.gradcheck(lambda x, y: (lib.complex(x, y), x + 1), (a, b),
                                       fast_mode=fast),
                lib.autograd.gradcheck(lambda z: (z, lib.real(z)), (c,), fast_mode=fast))
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
def test_errors_other_than_gradcheck_errors_escape(fast):
    def program(lib):
        def fn(x):
            raise RuntimeError("Not a GradcheckError!")
        x = lib.ones(2, 2, requires_grad=True)
        return outcome(lambda: lib.autograd.gradcheck(fn, (x,), fast_mode=fast,
                                                      raise_exception=False))
    run_both(program)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("cx,cy", [(False, False), (True, False), (True, True)])
def test_forward_ad_checks(fast, cx, cy):
    def program(lib):
        fwAD = lib.autograd.forward_ad
        x = inp(lib, (2,), seed=8, complex_=cx)
        y = inp(lib, (2,), seed=9, complex_=cy)

        def bad_fn(x, y):
            if fwAD._current_level >= 0:
                yp, yd = fwAD.unpack_dual(y)
                y = fwAD.make_dual(yp, yd * 1.1)
            return x + y, y
        return [lib.autograd.gradcheck(lambda x, y: (x + y, y), (x, y), check_forward_ad=True,
                                       fast_mode=fast),
                outcome(lambda: lib.autograd.gradcheck(bad_fn, (x, y), check_forward_ad=True,
                                                       fast_mode=fast))]
    run_both(program)


def test_current_level_outside_and_inside_a_dual_level():
    def program(lib):
        fwAD = lib.autograd.forward_ad
        before = fwAD._current_level
        with fwAD.dual_level():
            inside = fwAD._current_level
        return before, inside, fwAD._current_level
    run_both(program)


def test_forward_or_backward_only():
    def program(lib):
        class UserFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, foo, fwd_bad, bwd_bad):
                ctx.fwd_bad, ctx.bwd_bad = fwd_bad, bwd_bad
                return foo * 2

            @staticmethod
            def vjp(ctx, g):
                if ctx.bwd_bad:
                    raise RuntimeError("FAIL BWD")
                return 2 * g, None, None

            @staticmethod
            def jvp(ctx, t, _1, _2):
                if ctx.fwd_bad:
                    raise RuntimeError("FAIL FWD")
                return 2 * t

        res = []
        for fast, fwd, bwd, fb, bb in itertools.product((True, False), repeat=5):
            x = inp(lib, (2,), seed=10)
            try:
                res.append(lib.autograd.gradcheck(
                    UserFn.apply, (x, fb, bb), check_forward_ad=fwd, check_backward_ad=bwd,
                    check_undefined_grad=bwd, check_batched_grad=bwd, fast_mode=fast))
            except Exception as e:  # noqa: BLE001
                res.append((type(e).__name__, str(e)[:8]))
        return res
    run_both(program)


def test_deprecated_numerical_jacobian():
    def program(lib):
        from importlib import import_module
        mod = import_module(lib.__name__ + ".autograd.gradcheck")

        def fn(inputs):  # takes the inputs as one tuple
            x, y = inputs
            return 2 * x + y, x + 2 * y
        a = inp(lib, (2, 2), seed=11)
        b = inp(lib, (2, 2), seed=12)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            j_target = mod.get_numerical_jacobian(fn, (a, b), target=a, eps=1e-6)
            j_all = mod.get_numerical_jacobian(fn, (a, b), eps=1e-6)
        future = [issubclass(m.category, FutureWarning) and
                  "`get_numerical_jacobian` was part of PyTorch's private API" in str(m.message)
                  for m in w]
        bad = outcome(lambda: mod.get_numerical_jacobian(fn, (a, b), eps=1e-6, grad_out=2.0))
        cplx = outcome(lambda: mod.get_numerical_jacobian(
            lambda inps: inps[0] * 1j, (a,), eps=1e-6))
        return (len(j_target), j_target[0].detach(), len(j_all), j_all[1].detach(), future,
                bad, cplx)
    run_both(program)


def test_deprecated_analytical_jacobian():
    def program(lib):
        from importlib import import_module
        mod = import_module(lib.__name__ + ".autograd.gradcheck")
        a = inp(lib, (2, 2), seed=13)
        b = inp(lib, (2, 2), seed=14)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            jac, reentrant, sizes_ok, types_ok = mod.get_analytical_jacobian((a, b), 2 * a + b)
            nd = _nondet(lib)
            _, reentrant2, _, _ = mod.get_analytical_jacobian((a,), nd.apply(a, 1e-6))
        future = {issubclass(m.category, FutureWarning) for m in w}
        bad = outcome(lambda: mod.get_analytical_jacobian((a,), a * 2, grad_out=2.0))
        cplx = outcome(lambda: mod.get_analytical_jacobian((a,), a * 1j))
        return jac[0].detach(), jac[1].detach(), reentrant, reentrant2, sizes_ok, types_ok, \
            future, bad, cplx
    run_both(program)


def test_fast_mode_vectors_are_pytorchs():
    from importlib import import_module
    gc = import_module("graphgrad.autograd.gradcheck.modes")
    gen = gc._TorchCPURandom()
    ours = [gen.rand(7), gen.rand(3)]
    g = torch.Generator()
    theirs = [torch.rand(7, generator=g).numpy(), torch.rand(3, generator=g).numpy()]
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
