"""selu, celu, softshrink, hardshrink, rrelu, softmin (nn.functional and torch.*) and complex
silu against PyTorch, beyond the op table (tests/ops/op_db/activation_more.py): in-place
variants (node, saved values, version counter, leaf check, backward through the result),
rrelu's random slopes in training, argument checks and refused dtypes."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both

torch = pytest.importorskip("torch")

X = np.array([[-2.5, -1.0, -0.3, 0.2], [0.7, 1.5, -0.05, 3.0]])


def _x(lib, dtype="float64", requires_grad=True):
    return lib.tensor(X, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def _nodes(y):
    fn = y.grad_fn
    return [fn, [n for n, _ in fn.next_functions]]


# ---------------------------------------------------------------- out of place
OUT_OF_PLACE = {
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x),
    "celu(alpha=2)": lambda F, x: F.celu(x, 2.0),
    "celu(alpha=-1)": lambda F, x: F.celu(x, -1.0),
    "softshrink": lambda F, x: F.softshrink(x),
    "softshrink(0.4)": lambda F, x: F.softshrink(x, 0.4),
    "softshrink(int)": lambda F, x: F.softshrink(x, 1),
    "hardshrink": lambda F, x: F.hardshrink(x),
    "hardshrink(-1)": lambda F, x: F.hardshrink(x, -1.0),
    "rrelu eval": lambda F, x: F.rrelu(x),
    "rrelu eval bounds": lambda F, x: F.rrelu(x, 0.1, 0.4),
    "rrelu train lower == upper": lambda F, x: F.rrelu(x, 0.25, 0.25, True),
    "softmin": lambda F, x: F.softmin(x, 1),
    "softmin dim 0": lambda F, x: F.softmin(x, dim=0),
    "softmin dtype": lambda F, x: F.softmin(x.float(), 1, dtype=x.dtype),
}


@pytest.mark.parametrize("name", list(OUT_OF_PLACE))
def test_values_nodes_grads_and_double_backward(name):
    f = OUT_OF_PLACE[name]

    def program(lib):
        x = _x(lib)
        y = f(lib.nn.functional, x)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gg_, = lib.autograd.grad((g * g).sum(), x, allow_unused=True)
        # (softmax's create_graph gradient is recorded as its formula, not PyTorch's
        # _softmax_backward_data node: softmax's own difference, not softmin's)
        return y, _nodes(y), g, None if name.startswith("softmin") else _nodes(g), gg_
    run_both(program)


@pytest.mark.parametrize("name,attrs", [
    ("selu", ("_saved_alpha", "_saved_scale", "_saved_input_scale")),
    ("celu(alpha=2)", ("_saved_alpha",)),
    ("softshrink(0.4)", ("_saved_lambd",)), ("hardshrink", ("_saved_lambd",)),
    ("rrelu eval bounds", ("_saved_lower", "_saved_upper", "_saved_training")),
])
def test_saved_attributes(name, attrs):
    run_both(lambda lib: [getattr(OUT_OF_PLACE[name](lib.nn.functional, _x(lib)).grad_fn, a)
                          for a in attrs])


def test_torch_namespace_functions():
    def program(lib):
        x = _x(lib)
        return [lib.selu(x), lib.celu(x, 0.5), lib.rrelu(x), lib.hardshrink(x, 0.3),
                x.hardshrink(0.3), lib.nn.functional.selu(x * 1, inplace=True)]
    run_both(program)


# ---------------------------------------------------------------- in place
INPLACE = {
    "selu(inplace)": lambda lib, z: lib.nn.functional.selu(z, inplace=True),
    "selu_": lambda lib, z: lib.nn.functional.selu_(z),
    "torch.selu_": lambda lib, z: lib.selu_(z),
    "celu(inplace)": lambda lib, z: lib.nn.functional.celu(z, 2.0, inplace=True),
    "celu_": lambda lib, z: lib.nn.functional.celu_(z, 0.5),
    "torch.celu_": lambda lib, z: lib.celu_(z),
    "rrelu(inplace) eval": lambda lib, z: lib.nn.functional.rrelu(z, inplace=True),
    "rrelu_ eval": lambda lib, z: lib.nn.functional.rrelu_(z, 0.1, 0.3),
    "torch.rrelu_ train lower == upper": lambda lib, z: lib.rrelu_(z, 0.2, 0.2, True),
    "silu(inplace)": lambda lib, z: lib.nn.functional.silu(z, inplace=True),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_variants(name):
    f = INPLACE[name]

    def program(lib):
        x = _x(lib)
        z = x * 1
        v = z._version
        r = f(lib, z)
        g, = lib.autograd.grad((z * z).sum(), x, create_graph=True)
        gg_, = lib.autograd.grad(g.sum(), x, allow_unused=True)
        return r is z, z._version - v, z, _nodes(z), g, _nodes(g), gg_
    run_both(program)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_a_leaf_that_requires_grad_raises(name):
    run_both(lambda lib: INPLACE[name](lib, _x(lib)))


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_without_grad_bumps_the_version(name):
    def program(lib):
        z = _x(lib, requires_grad=False)
        v = z._version
        return INPLACE[name](lib, z) is z, z._version - v, z
    run_both(program)


@pytest.mark.parametrize("f", [
    lambda lib, z: lib.nn.functional.celu(z, -1.0, inplace=True),
    lambda lib, z: lib.nn.functional.rrelu(z, -0.5, -0.1, inplace=True),
], ids=["celu_ negative alpha", "rrelu_ negative slope (eval)"])
def test_inplace_backward_with_a_negative_slope_raises(f):
    def program(lib):
        x = _x(lib)
        z = x * 1
        f(lib, z)
        return lib.autograd.grad(z.sum(), x)
    run_both(program)


# ---------------------------------------------------------------- rrelu in training
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("lower,upper", [(1 / 8, 1 / 3), (-0.5, -0.1), (0.0, 1.0)])
def test_rrelu_training_draws_slopes_in_bounds(lib, lower, upper, inplace):
    """Random slopes (PyTorch's and graphgrad's draws differ): 1 where x > 0, uniform in
    [lower, upper] elsewhere; y = x * noise and dy/dx = noise (RreluWithNoiseBackward0/1)."""
    x = lib.tensor(np.linspace(-3, 3, 2000), requires_grad=True)
    z = x * 1
    y = lib.nn.functional.rrelu(z, lower, upper, True, inplace)
    assert y.grad_fn.name() == ("RreluWithNoiseBackward1" if inplace
                                else "RreluWithNoiseBackward0")
    noise = y.grad_fn._saved_noise.detach().numpy()
    xs = np.linspace(-3, 3, 2000)
    assert (noise[xs > 0] == 1).all()
    neg = noise[xs <= 0]
    assert (neg >= lower).all() and (neg <= upper).all() and np.unique(neg).size > 500
    np.testing.assert_allclose(y.detach().numpy(), xs * noise, rtol=1e-15)
    g, = lib.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(g.numpy(), noise)
    assert y.grad_fn._saved_training is True


def test_rrelu_training_follows_manual_seed():
    x = gg.linspace(-3, 1, 50)
    gg.manual_seed(3)
    a = gg.nn.functional.rrelu(x, training=True)
    gg.manual_seed(3)
    b = gg.nn.functional.rrelu(x, training=True)
    assert gg.equal(a, b)


def test_rrelu_training_forward_mode():
    x = gg.tensor(X)
    t = gg.ones_like(x)
    import graphgrad.autograd.forward_ad as fwad
    with fwad.dual_level():
        y = gg.nn.functional.rrelu(fwad.make_dual(x, t), training=True)
        _, yt = fwad.unpack_dual(y)
    noise = np.where(X > 0, 1.0, y.detach().numpy() / X)
    np.testing.assert_allclose(yt.numpy(), noise, rtol=1e-12)


# ---------------------------------------------------------------- refused dtypes and args
REFUSING = {
    "selu": lambda F, x: F.selu(x), "celu": lambda F, x: F.celu(x),
    "selu_": lambda F, x: F.selu_(x), "celu_": lambda F, x: F.celu_(x),
    "softshrink": lambda F, x: F.softshrink(x), "hardshrink": lambda F, x: F.hardshrink(x),
    "rrelu": lambda F, x: F.rrelu(x), "rrelu train": lambda F, x: F.rrelu(x, training=True),
    "rrelu_": lambda F, x: F.rrelu_(x), "softmin": lambda F, x: F.softmin(x, 0),
    "silu": lambda F, x: F.silu(x), "silu_": lambda F, x: F.silu(x, inplace=True),
}


@pytest.mark.parametrize("dtype", ["int64", "bool", "complex128", "float16", "bfloat16",
                                   "float32"])
@pytest.mark.parametrize("name", list(REFUSING))
def test_dtypes(name, dtype):
    f = REFUSING[name]

    def program(lib):
        x = lib.tensor([1.0, -2.0, 3.0, 0.5]).to(getattr(lib, dtype))
        if name == "rrelu train" and dtype not in ("int64", "bool", "complex128",
                                                    "float16"):
            return f(lib.nn.functional, x).dtype   # (random values)
        return f(lib.nn.functional, x)
    run_both(program)


@pytest.mark.parametrize("call", [
    "F.softshrink(x, -0.5)", "F.softshrink(x.float(), -1.0)", "F.softshrink(x, 'a')",
    "F.celu(x, 0.0)", "F.celu_(x * 1, 0.0)", "F.rrelu(x, 0.5, 0.1)",
    "F.rrelu(x, 0.5, 0.1, True)", "F.selu([1.0])", "F.celu([1.0])", "F.softshrink([1.0])",
    "F.hardshrink([1.0])", "F.rrelu([1.0])", "F.softmin([1.0], 0)", "F.softmin(x, 2)",
    "F.softmin(x, (0,))", "F.hardshrink(x, x.new_tensor(0.5))",
])
def test_argument_errors(call):
    def program(lib):
        x = _x(lib, requires_grad=False)
        return eval(call, {"F": lib.nn.functional, "x": x})
    run_both(program)


@pytest.mark.filterwarnings("ignore:Implicit dimension")
def test_softmin_without_dim_warns(lib):
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        lib.nn.functional.softmin(lib.ones(2, 3))


def test_softshrink_error_message_names_the_bound():
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, .*\] for input "
                                           r"dtype Double, but found -0.5"):
        gg.nn.functional.softshrink(gg.ones(2, dtype=gg.float64), -0.5)


def test_signed_zeros_and_nan_as_torch():
    def program(lib):
        x = lib.tensor([-0.3, float("nan"), 0.3, -0.0, 0.0, -4.0])
        F = lib.nn.functional
        outs = [F.softshrink(x), F.hardshrink(x), F.selu(x), F.celu(x)]
        return outs + [np.signbit(o.numpy()).tolist() for o in outs]
    run_both(program)


# ---------------------------------------------------------------- complex silu
Z = np.array([0.5 + 0.3j, -1.2 + 2.0j, 3.0 - 1.0j, -0.1 - 0.4j, 0.0 + 0.0j])


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_silu_values(dtype):
    """PyTorch's silu takes complex inputs (z / (1 + exp(-z))), out of place and in place."""
    def program(lib):
        z = lib.tensor(Z).to(getattr(lib, dtype))
        w = z.clone()
        r = lib.nn.functional.silu(w, inplace=True)
        return lib.nn.functional.silu(z), r is w, w, lib.nn.SiLU()(z)
    run_both(program)


def test_complex_silu_refuses_autograd():
    """... but not under autograd: a complex input that requires grad raises at the forward,
    as PyTorch's ("silu does not support automatic differentiation for outputs with complex
    dtype"); under no_grad it runs."""
    def program(lib):
        z = lib.tensor(Z, requires_grad=True)
        with lib.no_grad():
            y = lib.nn.functional.silu(z)
        try:
            lib.nn.functional.silu(z)
        except RuntimeError as exc:
            return y, "automatic differentiation" in str(exc)
        return y, None
    run_both(program)
