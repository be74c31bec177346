"""Edge cases of the statistics family against PyTorch (ops-reduce): dtype= and integer
inputs, keepdim without dim, 0-d inputs, degenerate cov, p=0 dist, infinities."""
from __future__ import annotations

import pytest

from tests.conftest import run_both

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("case", [
    "nansum dtype", "nansum int", "nansum keepdim", "nansum empty dims", "nanmean keepdim",
    "nanmean all nan", "aminmax keepdim", "aminmax 0-d dim", "kthvalue 0-d", "mode 0-d",
    "mode int", "quantile 0-d q tensor", "quantile keepdim 0-d", "quantile dim -1 q 1-d",
    "nanquantile all nan", "logcumsumexp -inf", "diff int", "diff bool n2", "cov one obs",
    "cov int", "corrcoef constant", "trapezoid 1-d", "trapezoid int dx", "cumtrapz x 1-d",
    "dist p0", "dist inf", "histogram weights out", "renorm complex"])
def test_edge_case_as_pytorch(case):
    def prog(lib):
        x = lib.tensor([[1., NAN, 3.], [4., 5., -7.]])
        y = lib.tensor([[1., 2., 3.], [4., 5., -7.]], requires_grad=True)
        f = {
            "nansum dtype": lambda: lib.nansum(x.float(), 1, dtype=lib.float64),
            "nansum int": lambda: lib.nansum(lib.tensor([[1, 2], [3, 4]]), 0),
            "nansum keepdim": lambda: lib.nansum(x, keepdim=True),
            "nansum empty dims": lambda: lib.nansum(x, ()),
            "nanmean keepdim": lambda: lib.nanmean(x, keepdim=True),
            "nanmean all nan": lambda: lib.nanmean(lib.tensor([NAN, NAN])),
            "aminmax keepdim": lambda: lib.aminmax(y, keepdim=True),
            "aminmax 0-d dim": lambda: lib.aminmax(lib.tensor(2.), dim=0, keepdim=True),
            "kthvalue 0-d": lambda: lib.kthvalue(lib.tensor(3.), 1),
            "mode 0-d": lambda: lib.mode(lib.tensor(3.)),
            "mode int": lambda: lib.mode(lib.tensor([[1, 2, 2], [3, 3, 1]]), 0),
            "quantile 0-d q tensor": lambda: lib.quantile(y, lib.tensor(0.3), 1),
            "quantile keepdim 0-d": lambda: lib.quantile(lib.tensor(2.), 0.5, keepdim=True),
            "quantile dim -1 q 1-d": lambda: lib.quantile(y, lib.tensor([0., 1.]), -1, True,
                                                          interpolation="nearest"),
            "nanquantile all nan": lambda: lib.nanquantile(lib.tensor([[NAN, NAN], [1., 2.]]),
                                                           0.5, 1),
            "logcumsumexp -inf": lambda: lib.logcumsumexp(lib.tensor([-INF, 0., -INF, 1.]), 0),
            "diff int": lambda: lib.diff(lib.tensor([1, 4, 9, 16]), 2),
            "diff bool n2": lambda: lib.diff(lib.tensor([True, False, False, True]), 2),
            "cov one obs": lambda: lib.cov(lib.tensor([[1.], [2.]])),
            "cov int": lambda: lib.cov(lib.tensor([[1, 2, 4], [2, 2, 1]])),
            "corrcoef constant": lambda: lib.corrcoef(lib.tensor([[1., 1., 1.], [1., 2., 4.]])),
            "trapezoid 1-d": lambda: lib.trapezoid(y[0], lib.tensor([0., 0.5, 2.])),
            "trapezoid int dx": lambda: lib.trapezoid(lib.tensor([1, 4, 9]), dx=2),
            "cumtrapz x 1-d": lambda: lib.cumulative_trapezoid(y, lib.tensor([0., 0.5, 2.])),
            "dist p0": lambda: lib.dist(y, lib.ones(2, 3), 0),
            "dist inf": lambda: lib.dist(y, lib.ones(2, 3), INF),
            "histogram weights out": lambda: lib.histogram(
                lib.tensor([1., 2, 1, 4]), lib.tensor([0., 2., 5.]),
                weight=lib.tensor([.5, 1., 2., 3.]),
                out=(lib.empty(0), lib.empty(0))),
            "renorm complex": lambda: lib.renorm(lib.tensor([[1 + 1j, 2j], [3., 4.]]), 2, 0, 1.),
        }[case]
        r = f()
        grads = None
        outs = [t for t in (r if isinstance(r, tuple) else (r,))]
        if outs[0].requires_grad:
            grads = lib.autograd.grad(sum(o.sum() for o in outs if o.requires_grad), y,
                                      allow_unused=True)
        return r, grads
    run_both(prog)



_MORE = {
    "bincount bool": lambda lib: lib.bincount(lib.tensor([True, False, True])),
    "bincount uint8": lambda lib: lib.bincount(lib.tensor([1, 2, 2], dtype=lib.uint8)),
    "ss int seq float v": lambda lib: lib.searchsorted(lib.tensor([1, 3, 5]),
                                                       lib.tensor([2.5, 3.0])),
    "ss float seq int v": lambda lib: lib.searchsorted(lib.tensor([1., 3, 5]),
                                                       lib.tensor([2, 3])),
    "bucketize float int": lambda lib: lib.bucketize(lib.tensor([2.5, 3.0]),
                                                     lib.tensor([1, 3, 5])),
    "ss scalar float on int": lambda lib: lib.searchsorted(lib.tensor([1, 3, 5]), 2.5),
    "ss nan": lambda lib: lib.searchsorted(lib.tensor([1., 3, 5]), lib.tensor([NAN, 7.])),
    "count_nonzero nan": lambda lib: lib.count_nonzero(lib.tensor([NAN, 0.])),
    "histc nan": lambda lib: lib.histc(lib.tensor([1., NAN, 2.]), bins=2),
    "unique int32": lambda lib: lib.unique(lib.tensor([3, 1, 3], dtype=lib.int32),
                                           return_counts=True),
    "unique_consecutive empty": lambda lib: lib.unique_consecutive(
        lib.tensor([]), return_counts=True, return_inverse=True),
    "kthvalue keepdim 1-d": lambda lib: lib.kthvalue(lib.tensor([3., 1., 2.]), 2, 0, True),
    "quantile out": lambda lib: lib.quantile(lib.tensor([1., 2., 3.]), 0.5, out=lib.empty(0)),
    "nanmean dtype": lambda lib: lib.nanmean(lib.tensor([1., 2.]), dtype=lib.float64),
    "cov complex": lambda lib: lib.cov(lib.tensor([[1 + 1j, 2, 3j], [1, 0, 1j]],
                                                  dtype=lib.complex128)),
    "logcumsumexp complex": lambda lib: lib.logcumsumexp(lib.tensor([1 + 1j, 2, 3j]), 0),
    "aminmax int": lambda lib: lib.aminmax(lib.tensor([[3, 1], [2, 5]]), dim=0),
    "aminmax bool dim": lambda lib: lib.aminmax(lib.tensor([[True, False]]), dim=1),
    "mode bool": lambda lib: lib.mode(lib.tensor([True, False, True])),
    "nansum bool": lambda lib: lib.nansum(lib.tensor([True, True])),
    "histogram int bins": lambda lib: lib.histogram(lib.tensor([1., 2.]), lib.tensor([0, 1, 3])),
    "histogram weight dtype": lambda lib: lib.histogram(
        lib.tensor([1., 2.]), 2, weight=lib.tensor([1., 2.], dtype=lib.float64)),
    "histogramdd int bins": lambda lib: lib.histogramdd(
        lib.tensor([[1., 2.]]), [lib.tensor([0, 1, 3]), lib.tensor([0., 1])]),
    "trapezoid complex": lambda lib: lib.trapezoid(lib.tensor([1 + 1j, 2, 3j])),
    "renorm 0 maxnorm": lambda lib: lib.renorm(lib.tensor([[1., 2.], [3., 4.]]), 2, 0, 0.),
    "dist int": lambda lib: lib.dist(lib.tensor([1, 2]), lib.tensor([3, 4])),
    "dist mixed": lambda lib: lib.dist(lib.tensor([1., 2.]),
                                       lib.tensor([3., 4.], dtype=lib.float64)),
}


@pytest.mark.parametrize("case", sorted(_MORE))
def test_dtypes_and_special_values_as_pytorch(case):
    run_both(_MORE[case])


@pytest.mark.parametrize("fn", ["nansum", "count_nonzero", "quantile", "kthvalue", "diff",
                                "logcumsumexp", "aminmax", "unique", "unique_consecutive",
                                "Tensor.unique", "gradient"])
def test_numpy_argument_names_as_pytorch(fn):
    """``axis=`` / ``keepdims=`` where PyTorch's argument parser takes them; torch.functional's
    Python-level unique / unique_consecutive do not."""
    def prog(lib):
        x = lib.tensor([[1., 2., 3.], [1., 2., 3.]])
        return {"nansum": lambda: lib.nansum(x, axis=1, keepdims=True),
                "count_nonzero": lambda: lib.count_nonzero(x, axis=0),
                "quantile": lambda: lib.quantile(x, .5, axis=0),
                "kthvalue": lambda: lib.kthvalue(x, 1, axis=0),
                "diff": lambda: lib.diff(x, axis=0),
                "logcumsumexp": lambda: lib.logcumsumexp(x, axis=0),
                "aminmax": lambda: lib.aminmax(x, axis=0),
                "unique": lambda: lib.unique(x, axis=0),
                "unique_consecutive": lambda: lib.unique_consecutive(x, axis=0),
                "Tensor.unique": lambda: x.unique(axis=0),
                "gradient": lambda: lib.gradient(x, axis=0)}[fn]()
    run_both(prog)
