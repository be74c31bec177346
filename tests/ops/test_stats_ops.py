"""The statistics family beyond the op table (ops-reduce): unique / unique_consecutive,
bincount, searchsorted / bucketize, count_nonzero, histc / histogram (values, int64 /
int32 dtypes, shapes), tie-breaking of kthvalue and mode, bad input with PyTorch's exception
types, vmap, and the exact JVP of logcumsumexp where PyTorch's loses early terms."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both

NAN = float("nan")


def _vals(rng, *shape, k=4):
    return rng.integers(0, k, shape).astype(np.float64)


# ------------------------------------------------------------------ unique family
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("case", ["1-d", "2-d", "nan", "int", "bool", "empty", "0-d"])
def test_unique_as_pytorch(case, inverse, counts):
    data = {"1-d": [3., 1., 2., 3., 1., 5.], "2-d": [[3., 1.], [1., 0.], [2., 3.]],
            "nan": [NAN, 1., NAN, 0., 1.], "int": [[4, 1, 4], [0, 1, 7]],
            "bool": [True, False, True], "empty": [], "0-d": 2.5}[case]

    def prog(lib):
        x = lib.tensor(data)
        return lib.unique(x, return_inverse=inverse, return_counts=counts)
    run_both(prog)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim_as_pytorch(dim):
    a = np.array([[1, 2, 1, 2], [0, 5, 0, 1], [1, 2, 1, 2]])

    def prog(lib):
        return lib.unique(lib.tensor(a), dim=dim, return_inverse=True, return_counts=True), \
            lib.tensor(a).unique(sorted=True, dim=dim)
    run_both(prog)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive_as_pytorch(dim):
    a = np.array([[1, 1, 2, 2], [1, 1, 2, 3], [1, 1, 2, 3], [0, 0, 0, 0]])

    def prog(lib):
        x = lib.tensor(a)
        return (lib.unique_consecutive(x, return_inverse=True, return_counts=True, dim=dim),
                x.unique_consecutive(dim=dim),
                lib.unique_consecutive(lib.tensor([1, 1, 2, 2, 3, 1, 1, 2])))
    run_both(prog)


@pytest.mark.parametrize("fn", ["unique", "unique_dim", "unique_consecutive"])
def test_unique_has_no_derivative(fn):
    def prog(lib):
        x = lib.tensor([3., 1., 3.], requires_grad=True)
        y = {"unique": lambda: lib.unique(x),
             "unique_dim": lambda: lib.unique(x, dim=0),
             "unique_consecutive": lambda: lib.unique_consecutive(x)}[fn]()
        out = [y.grad_fn.name(), y.requires_grad]
        try:
            y.sum().backward()
        except NotImplementedError as exc:
            out.append(type(exc).__name__)
        return out
    run_both(prog)


def test_unique_under_vmap_raises():
    with pytest.raises(RuntimeError, match="dynamic"):
        gg.func.vmap(gg.unique)(gg.tensor([[1., 1.], [1., 2.]]))


# ------------------------------------------------------------------ bincount
@pytest.mark.parametrize("weights", [None, "float32", "float64", "int64"])
@pytest.mark.parametrize("minlength", [0, 9])
def test_bincount_as_pytorch(weights, minlength):
    def prog(lib):
        x = lib.tensor([1, 3, 1, 0, 7])
        w = None if weights is None else lib.tensor([.5, 1., 2., 3., 4.]).to(
            getattr(lib, weights))
        return lib.bincount(x, w, minlength), x.bincount(minlength=minlength), \
            lib.bincount(lib.tensor([], dtype=lib.int64), minlength=minlength)
    run_both(prog)


@pytest.mark.parametrize("bad", ["negative", "float", "2-d", "minlength", "weights"])
def test_bincount_bad_input_as_pytorch(bad):
    def prog(lib):
        return {"negative": lambda: lib.bincount(lib.tensor([-1, 2])),
                "float": lambda: lib.bincount(lib.tensor([1., 2.])),
                "2-d": lambda: lib.bincount(lib.tensor([[1, 2]])),
                "minlength": lambda: lib.bincount(lib.tensor([1, 2]), minlength=-1),
                "weights": lambda: lib.bincount(lib.tensor([1, 2]), lib.tensor([1.]))}[bad]()
    run_both(prog)


# ------------------------------------------------------------------ searchsorted / bucketize
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_searchsorted_as_pytorch(right, out_int32):
    def prog(lib):
        s = lib.tensor([[1., 3, 5, 7], [2, 4, 6, 8]])
        v = lib.tensor([[3., 6, 9], [3, 6, 0]])
        return (lib.searchsorted(s, v, right=right, out_int32=out_int32),
                lib.searchsorted(s[0], v, right=right, out_int32=out_int32),
                lib.searchsorted(lib.tensor([1, 3, 5]), 3, right=right),
                lib.searchsorted(s[0], v, side="right" if right else "left"),
                lib.searchsorted(lib.tensor([5., 1, 3, 3]), lib.tensor([3., 0., 6.]),
                                 right=right, sorter=lib.tensor([1, 2, 3, 0])))
    run_both(prog)


@pytest.mark.parametrize("bad", ["shape", "side", "opposite", "sorter dtype", "sorter shape"])
def test_searchsorted_bad_input_as_pytorch(bad):
    def prog(lib):
        s = lib.tensor([[1., 3, 5, 7], [2, 4, 6, 8]])
        return {"shape": lambda: lib.searchsorted(s, lib.tensor([3.])),
                "side": lambda: lib.searchsorted(s[0], lib.tensor([3.]), side="up"),
                "opposite": lambda: lib.searchsorted(s[0], lib.tensor([3.]), side="left",
                                                     right=True),
                "sorter dtype": lambda: lib.searchsorted(s[0], lib.tensor([3.]),
                                                         sorter=lib.tensor([0, 1, 2, 3]).int()),
                "sorter shape": lambda: lib.searchsorted(s[0], lib.tensor([3.]),
                                                         sorter=lib.tensor([0, 1]))}[bad]()
    run_both(prog)


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_as_pytorch(right):
    def prog(lib):
        b = lib.tensor([1, 3, 5, 7, 9])
        return (lib.bucketize(lib.tensor([[3, 6, 9], [3, 6, 10]]), b, right=right),
                lib.bucketize(lib.tensor([0.5, 3.]), b, right=right, out_int32=True),
                lib.bucketize(3, b, right=right))
    run_both(prog)


# ------------------------------------------------------------------ count_nonzero
def test_count_nonzero_as_pytorch():
    def prog(lib):
        x = lib.tensor([[0, 1., 3.], [2, 0, 0]])
        return (lib.count_nonzero(x), lib.count_nonzero(x, 1), x.count_nonzero(dim=(0, 1)),
                lib.count_nonzero(x, dim=-2), lib.count_nonzero(lib.tensor([True, False])))
    run_both(prog)


# ------------------------------------------------------------------ histc / histogram
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_as_pytorch(dtype):
    def prog(lib):
        x = lib.tensor([1., 2, 1, 4, -3, 2.5]).to(getattr(lib, dtype))
        return (lib.histc(x, bins=4, min=0, max=3), lib.histc(x, bins=3), x.histc(7),
                lib.histc(lib.tensor([2., 2.]), bins=2), lib.histc(lib.tensor([]), bins=2))
    run_both(prog)


def test_histogram_as_pytorch():
    def prog(lib):
        x = lib.tensor([1., 2, 1, 4, 2.5])
        return (lib.histogram(x, bins=4, range=(0., 3.)),
                lib.histogram(x, lib.tensor([0., 1, 2, 3])),
                lib.histogram(x, 3, weight=lib.tensor([1., 2, 4, 1, 1]), density=True),
                x.histogram(5),
                lib.histogram(lib.tensor([2., 2.]), bins=2))
    run_both(prog)


@pytest.mark.parametrize("bad", ["int histc", "bins", "int histogram"])
def test_histc_bad_input_as_pytorch(bad):
    def prog(lib):
        return {"int histc": lambda: lib.histc(lib.tensor([1, 2])),
                "bins": lambda: lib.histc(lib.tensor([1., 2]), bins=0),
                "int histogram": lambda: lib.histogram(lib.tensor([1, 2]), 3)}[bad]()
    run_both(prog)


# ------------------------------------------------------------------ tie-breaking
def test_kthvalue_picks_among_ties_as_pytorch():
    """PyTorch's CPU kthvalue returns the index its quickselect leaves at k among tied
    values (NaN counted largest); random rows with many ties and NaNs."""
    rng = np.random.default_rng(1)
    for t in range(150):
        n = int(rng.integers(1, 40))
        a = _vals(rng, 3, n, k=int(rng.integers(1, 6)))
        if t % 3 == 0:
            a[rng.random(a.shape) < 0.1] = NAN
        k = int(rng.integers(1, n + 1))

        def prog(lib):
            return lib.kthvalue(lib.tensor(a), k, 1)
        run_both(prog)


def test_mode_picks_values_and_indices_as_pytorch():
    """The smallest most frequent value; its index is the last occurrence for rows of up to
    16 elements and, for longer rows (and rows with NaNs), the one std::sort's order puts
    last in its run, as PyTorch's."""
    rng = np.random.default_rng(2)
    for t in range(120):
        n = int(rng.integers(1, 17 if t < 40 else 90))
        a = _vals(rng, 3, n, k=int(rng.integers(1, 8)))
        if t % 3 == 0:
            a[rng.random(a.shape) < 0.15] = NAN

        def prog(lib):
            return lib.mode(lib.tensor(a), 1), lib.mode(lib.tensor(a.T.copy()), 0)
        run_both(prog)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad", [
    "kthvalue k", "kthvalue k0", "aminmax empty", "mode empty", "renorm p", "renorm maxnorm",
    "renorm 1-d", "nansum complex", "logcumsumexp int", "quantile q range", "quantile q dtype",
    "quantile int", "quantile empty", "quantile q 2-d", "quantile interpolation",
    "nanmean int", "diff 0-d", "diff order", "cov 3-d", "cov fweights float",
    "cov aweights int", "cov negative", "corrcoef 3-d", "trapezoid x size", "trapezoid bool",
    "dist shapes", "gradient edge_order", "gradient short dim", "gradient spacing list",
    "gradient spacing dims"])
def test_bad_input_as_pytorch(bad):
    def prog(lib):
        x = lib.tensor([[1., 2., 3.], [4., 5., 7.]])
        return {
            "kthvalue k": lambda: lib.kthvalue(x, 4, 1),
            "kthvalue k0": lambda: lib.kthvalue(x, 0),
            "aminmax empty": lambda: lib.aminmax(lib.zeros(0, 3)),
            "mode empty": lambda: lib.mode(lib.zeros(3, 0), 1),
            "renorm p": lambda: lib.renorm(x, -1, 0, 1.),
            "renorm maxnorm": lambda: lib.renorm(x, 2, 0, -1.),
            "renorm 1-d": lambda: lib.renorm(x[0], 2, 0, 1.),
            "nansum complex": lambda: lib.nansum(x.to(lib.complex64)),
            "logcumsumexp int": lambda: lib.logcumsumexp(x.long(), 0),
            "quantile q range": lambda: lib.quantile(x, 1.5),
            "quantile q dtype": lambda: lib.quantile(x, lib.tensor([0.5], dtype=lib.float64)),
            "quantile int": lambda: lib.quantile(x.long(), 0.5),
            "quantile empty": lambda: lib.quantile(lib.zeros(0), 0.5),
            "quantile q 2-d": lambda: lib.quantile(x, lib.tensor([[0.5]])),
            "quantile interpolation": lambda: lib.quantile(x, 0.5, interpolation="cubic"),
            "nanmean int": lambda: lib.nanmean(x.long()),
            "diff 0-d": lambda: lib.diff(lib.tensor(1.)),
            "diff order": lambda: lib.diff(x, -1),
            "cov 3-d": lambda: lib.cov(lib.zeros(2, 2, 2)),
            "cov fweights float": lambda: lib.cov(x, fweights=lib.tensor([1., 2., 1.])),
            "cov aweights int": lambda: lib.cov(x, aweights=lib.tensor([1, 2, 1])),
            "cov negative": lambda: lib.cov(x, fweights=lib.tensor([1, -2, 1])),
            "corrcoef 3-d": lambda: lib.corrcoef(lib.zeros(2, 2, 2)),
            "trapezoid x size": lambda: lib.trapezoid(x, lib.tensor([1., 2.])),
            "trapezoid bool": lambda: lib.trapezoid(x > 2),
            "dist shapes": lambda: lib.dist(x, lib.zeros(3, 2)),
            "gradient edge_order": lambda: lib.gradient(x, edge_order=3),
            "gradient short dim": lambda: lib.gradient(x, edge_order=2),
            "gradient spacing list": lambda: lib.gradient(x, spacing=[1., 2., 3.]),
            "gradient spacing dims": lambda: lib.gradient(x, spacing=[1., 2.], dim=0),
        }[bad]()
    run_both(prog)


def test_errors_name_the_op():
    x = gg.tensor([[1., 2., 3.], [4., 5., 7.]])
    with pytest.raises(RuntimeError, match="kthvalue.*k out of range"):
        gg.kthvalue(x, 4, 1)
    with pytest.raises(RuntimeError, match=r"quantile\(\) q values must be in the range"):
        gg.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match=r"cov\(\): expected fweights to have integral"):
        gg.cov(x, fweights=gg.tensor([1., 2., 1.]))


# ------------------------------------------------------------------ methods, out=, vmap
def test_methods_and_inplace_variants_as_pytorch():
    def prog(lib):
        x = lib.tensor([[1., 2., 3.], [4., 5., 7.]])
        y = x.clone()
        y.renorm_(2, 0, 1.)
        return (x.nansum(1), x.nanmean(), x.quantile(0.3), x.nanquantile(0.3, 1),
                x.aminmax(dim=0), x.kthvalue(2), x.mode(), x.logcumsumexp(1), x.dist(x * 2),
                x.renorm(1, 1, 2.), y, x.diff(), x.cov(), x.corrcoef(), x.count_nonzero(),
                x.histc(3))
    run_both(prog)


def test_out_arguments_as_pytorch():
    def prog(lib):
        x = lib.tensor([[1., 2., 3.], [4., 5., 7.]])
        o = lib.empty(0)
        lib.nansum(x, 1, out=o)
        v, i = lib.empty(0), lib.empty(0, dtype=lib.int64)
        lib.kthvalue(x, 2, 1, out=(v, i))
        return o, v, i
    run_both(prog)


@pytest.mark.parametrize("fn", ["nansum", "aminmax", "kthvalue", "mode", "logcumsumexp", "dist",
                                "renorm", "quantile", "diff", "cov", "trapezoid"])
def test_vmap_matches_a_loop(fn):
    f = {"nansum": lambda x: gg.nansum(x, 0), "aminmax": lambda x: gg.aminmax(x, dim=1)[1],
         "kthvalue": lambda x: gg.kthvalue(x, 2, 0)[0], "mode": lambda x: gg.mode(x, 1)[0],
         "logcumsumexp": lambda x: gg.logcumsumexp(x, 0),
         "dist": lambda x: gg.dist(x, gg.ones(3, 4), 3),
         "renorm": lambda x: gg.renorm(x, 2, 1, 1.0), "quantile": lambda x: gg.quantile(x, 0.3),
         "diff": lambda x: gg.diff(x, 1, 0), "cov": gg.cov,
         "trapezoid": lambda x: gg.trapezoid(x)}[fn]
    x = gg.tensor(np.random.default_rng(0).standard_normal((5, 3, 4)))
    got = gg.func.vmap(f)(x)
    want = gg.stack([f(x[i]) for i in range(5)])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_logcumsumexp_tangent_is_exact_for_wide_ranges():
    """PyTorch's tangent divides by cumsum(exp(x - max)) + 1e-13 and so loses the early
    elements' terms when exp(x_i - max) < ~1e-13; graphgrad's is exact (finite differences)."""
    x = np.array([-40., -35., 0., 2.])
    t = np.array([1., -2., 0.5, 0.25])
    fa = gg.autograd.forward_ad
    with fa.dual_level():
        y = gg.logcumsumexp(fa.make_dual(gg.tensor(x), gg.tensor(t)), 0)
        got = fa.unpack_dual(y).tangent.numpy()
    h = 1e-6
    fd = (np.logaddexp.accumulate(x + h * t) - np.logaddexp.accumulate(x - h * t)) / (2 * h)
    np.testing.assert_allclose(got, fd, rtol=1e-7, atol=1e-12)


def test_inplace_views_under_vmap_keep_the_batch():
    """squeeze_ / unsqueeze_ / transpose_ on a batched tensor (quantile's last steps) change
    every example's shape, not only the logical one."""
    def f(x):
        r = x[:2].clone()
        r.unsqueeze_(0).transpose_(0, -1)
        return r.squeeze_(-1)
    x = gg.tensor(np.arange(15.).reshape(5, 3))
    got = gg.func.vmap(f)(x)
    assert tuple(got.shape) == (5, 2)
    np.testing.assert_array_equal(got.numpy(), x.numpy()[:, :2])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd_as_pytorch(dtype):
    def prog(lib):
        x = lib.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.], [0.5, 1.5]]).to(
            getattr(lib, dtype))
        return (lib.histogramdd(x, bins=[3, 3], weight=lib.tensor([1., 2., 4., 8., 1.]).to(
                    getattr(lib, dtype))),
                lib.histogramdd(x, bins=2, range=[0., 1., 0., 1.], density=True),
                lib.histogramdd(x, bins=[lib.tensor([0., 1, 2]).to(getattr(lib, dtype)),
                                         lib.tensor([0., 2.]).to(getattr(lib, dtype))]),
                lib.histogramdd(x.reshape(5, 1, 2), bins=4).hist)
    run_both(prog)


def test_pdist_has_no_double_backward_and_no_forward_derivative_as_pytorch():
    def prog(lib):
        x = lib.tensor([[0., 1., 2.], [1., 3., -1.], [2., 2., 2.]], requires_grad=True)
        y = lib.nn.functional.pdist(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        out = [y.grad_fn.name(), g.grad_fn.name()]
        try:
            lib.autograd.grad(g.sum(), x)
        except NotImplementedError as exc:
            out.append(type(exc).__name__)
        fa = lib.autograd.forward_ad
        with fa.dual_level():
            try:
                lib.pdist(fa.make_dual(x.detach(), lib.ones(3, 3)))
            except NotImplementedError as exc:
                out.append(type(exc).__name__)
        return out
    run_both(prog)


@pytest.mark.parametrize("bad", ["1-d", "negative p", "int"])
def test_pdist_bad_input_as_pytorch(bad):
    def prog(lib):
        return {"1-d": lambda: lib.pdist(lib.ones(3)),
                "negative p": lambda: lib.pdist(lib.ones(3, 2), -1),
                "int": lambda: lib.pdist(lib.ones(3, 2, dtype=lib.int64))}[bad]()
    run_both(prog)
