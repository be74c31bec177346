"""nn.init against torch.nn.init.

graphgrad's generator is NumPy's PCG64, not PyTorch's mt19937, so ``manual_seed`` does not
reproduce torch's numbers: the random schemes are tested by their distributions (bounds,
mean, standard deviation over many samples, compared with the same statistics of torch's
draw) and by reproducibility under a seed; the deterministic ones are compared exactly.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphgrad as gg
import graphgrad.nn.init as ginit
from tests.conftest import run_both

torch = pytest.importorskip("torch")
tinit = torch.nn.init


def _init(lib):
    return ginit if lib is gg else tinit


# ------------------------------------------------------------------ deterministic ones
@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("conv_transpose3d",), ("sigmoid",),
                                  ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                                  ("leaky_relu", 3), ("selu",), ("leaky_relu", True),
                                  ("leaky_relu", "x"), ("softmax",)])
def test_calculate_gain(args):
    run_both(lambda lib: _init(lib).calculate_gain(*args))


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (3, 3), (0, 2), (2, 3, 4), (5,)])
def test_eye(shape):
    def prog(lib):
        t = lib.full(shape, 7.0, dtype=lib.float64)
        r = _init(lib).eye_(t)
        return r is t, t
    run_both(prog)


@pytest.mark.parametrize("shape,groups", [((4, 3, 5), 1), ((6, 2, 3, 3), 2), ((4, 4, 3, 2, 3), 1),
                                          ((6, 3, 3, 3), 4), ((3, 4), 1), ((2, 8, 3), 2)])
def test_dirac(shape, groups):
    def prog(lib):
        t = lib.full(shape, 7.0, dtype=lib.float64)
        _init(lib).dirac_(t, groups)
        return t
    run_both(prog)


@pytest.mark.parametrize("name,args", [("constant_", (2.5,)), ("ones_", ()), ("zeros_", ())])
def test_fills_on_a_parameter_like_leaf(name, args):
    def prog(lib):
        t = lib.randn(3, 4, dtype=lib.float64).requires_grad_()
        r = getattr(_init(lib), name)(t, *args)
        return r is t, t.is_leaf, t.requires_grad, t.grad_fn, t.detach()
    run_both(prog)


@pytest.mark.parametrize("shape", [(5,), (4, 3), (4, 3, 2, 2), (2, 3, 5)])
def test_fans(shape):
    def prog(lib):
        return _init(lib)._calculate_fan_in_and_fan_out(lib.empty(shape))
    run_both(prog)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "FAN_OUT", "fan_avg"])
def test_correct_fan(mode):
    run_both(lambda lib: _init(lib)._calculate_correct_fan(lib.empty(4, 3, 2), mode))


@pytest.mark.parametrize("name,args", [
    ("xavier_uniform_", ()), ("xavier_normal_", ()), ("kaiming_uniform_", ()),
    ("kaiming_normal_", ()), ("orthogonal_", ()), ("sparse_", (0.1,)), ("eye_", ())])
def test_too_few_dims_raise_value_error(name, args):
    run_both(lambda lib: getattr(_init(lib), name)(lib.empty(5), *args))


@pytest.mark.parametrize("name", ["kaiming_uniform_", "kaiming_normal_"])
def test_kaiming_zero_element_warns_and_is_a_no_op(name):
    for lib in (gg, torch):
        t = lib.ones(0, 3)
        with pytest.warns(UserWarning, match="zero-element"):
            assert getattr(_init(lib), name)(t) is t


@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "eye", "xavier_uniform",
                                 "kaiming_normal", "orthogonal"])
def test_deprecated_aliases(old):
    for lib in (gg, torch):
        t = lib.empty(3, 4)
        args = (1.0,) if old == "constant" else ()
        with pytest.warns(FutureWarning, match=f"nn.init.{old}_"):
            assert getattr(_init(lib), old)(t, *args) is t


def test_trunc_normal_far_mean_warns():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="more than 2 std"):
            _init(lib).trunc_normal_(lib.empty(10), mean=10.0)


# ------------------------------------------------------------------ random ones
N = (300, 200)


def _stats(t):
    a = np.asarray(t.detach().numpy(), dtype=np.float64)
    return a.min(), a.max(), a.mean(), a.std()


CASES = [
    ("uniform_", (), {"a": -0.5, "b": 2.0}, (-0.5, 2.0)),
    ("normal_", (), {"mean": 1.0, "std": 0.5}, None),
    ("trunc_normal_", (), {"mean": 0.3, "std": 1.0, "a": -1.0, "b": 1.5}, (-1.0, 1.5)),
    ("trunc_normal_", (), {}, (-2.0, 2.0)),
    ("xavier_uniform_", (), {"gain": 2.0}, "xavier"),
    ("xavier_normal_", (), {}, None),
    ("kaiming_uniform_", (), {"a": math.sqrt(5)}, "kaiming"),
    ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}, "kaiming"),
    ("kaiming_normal_", (), {"nonlinearity": "tanh"}, None),
    ("orthogonal_", (), {"gain": 1.5}, None),
]


@pytest.mark.parametrize("name,args,kw,bounds", CASES)
def test_random_schemes_match_torch_statistics(name, args, kw, bounds):
    t_g = gg.empty(N, dtype=gg.float64)
    t_t = torch.empty(N, dtype=torch.float64)
    assert getattr(ginit, name)(t_g, *args, **kw) is t_g
    getattr(tinit, name)(t_t, *args, **kw)
    lo_g, hi_g, m_g, s_g = _stats(t_g)
    lo_t, hi_t, m_t, s_t = _stats(t_t)
    n = t_g.numel()
    assert abs(m_g - m_t) < 6 * max(s_t, 1e-3) / math.sqrt(n) * 1.5
    assert abs(s_g - s_t) < 0.03 * s_t
    if isinstance(bounds, tuple):
        assert bounds[0] <= lo_g and hi_g <= bounds[1]
    elif bounds is not None:  # uniform with a computed bound: the extremes reach it
        assert abs(hi_g - hi_t) < 0.01 * hi_t and abs(lo_g - lo_t) < 0.01 * hi_t


@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (5, 5), (3, 2, 2, 2)])
def test_orthogonal_is_orthogonal(shape):
    t = gg.empty(shape, dtype=gg.float64)
    ginit.orthogonal_(t, gain=2.0)
    m = t.detach().numpy().reshape(shape[0], -1)
    if m.shape[0] <= m.shape[1]:
        np.testing.assert_allclose(m @ m.T, 4 * np.eye(m.shape[0]), atol=1e-12)
    else:
        np.testing.assert_allclose(m.T @ m, 4 * np.eye(m.shape[1]), atol=1e-12)


def test_sparse_zeros_per_column():
    t = gg.empty(10, 7, dtype=gg.float64)
    ginit.sparse_(t, 0.25, std=0.5)
    a = t.numpy()
    assert ((a == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()


@pytest.mark.parametrize("name,kw", [(c[0], c[2]) for c in CASES] + [("sparse_", {"sparsity": .3})])
def test_generator_reproducible(name, kw):
    fn = getattr(ginit, name)
    a = fn(gg.empty(6, 5), **kw, generator=gg.Generator().manual_seed(3))
    b = fn(gg.empty(6, 5), **kw, generator=gg.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    gg.manual_seed(11)
    c = fn(gg.empty(6, 5), **kw)
    gg.manual_seed(11)
    d = fn(gg.empty(6, 5), **kw)
    np.testing.assert_array_equal(c.numpy(), d.numpy())


def test_random_init_of_leaf_requiring_grad_stays_leaf():
    w = gg.empty(3, 4).requires_grad_()
    ginit.kaiming_uniform_(w)
    ginit.trunc_normal_(w)
    ginit.orthogonal_(w)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None


def test_float32_dtype_kept():
    run_both(lambda lib: _init(lib).xavier_uniform_(lib.empty(3, 4)).dtype)
    run_both(lambda lib: _init(lib).orthogonal_(lib.empty(3, 4)).dtype)
