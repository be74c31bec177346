"""OpInfos of the reductions family (see tests/ops/opinfo.py).

sum/mean's basic entries are in core.py; these add dtype= and edge cases.
Samples keep values away from ties and kinks unless the entry is about
PyTorch's tie-breaking (``*_ties``), which skips the finite-difference checks.
"""
from __future__ import annotations

import math

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401


def _with_dtype(fn_name):
    """Call ``lib.<fn_name>`` with ``dtype=`` given by name (so samples stay library-free)."""
    def call(lib, *args, dtype=None, **kw):
        if dtype is not None:
            kw["dtype"] = getattr(lib, dtype)
        from tests.ops.opinfo import resolve
        return resolve(lib, fn_name)(*args, **kw)
    return call


def _distinct(rng, *shape):
    """Values with well separated entries (no ties, no zeros): safe for max/sort/topk."""
    n = int(np.prod(shape)) if shape else 1
    v = (rng.permutation(n) - n / 2 + 0.5) * 0.7 + rng.uniform(-0.05, 0.05, n)
    return v.reshape(shape)


def _nonzero(rng, *shape):
    x = randn(rng, *shape)
    return np.sign(x) * (np.abs(x) + 0.3)


def _with_zeros(rng, shape, zeros):
    x = _nonzero(rng, *shape).reshape(-1)
    for z in zeros:
        x[z] = 0.0
    return x.reshape(shape)


# ------------------------------------------------------------------ sum / mean
def _sum_dtype_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)),), {"dtype": "float64"}, name="whole"),
        Sample((A(randn(rng, 3, 4)), 1), {"dtype": "float64"}, name="dim"),
        Sample((A(randn(rng, 2, 3, 4)), (0, 2), True), {"dtype": "float64"}, name="dims keepdim"),
        Sample((A(randn(rng)),), {"dtype": "float64"}, name="0-d"),
    ]


def _sum_edge_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), ()), name="empty dims = all"),
        Sample((A(randn(rng, 3, 4)), []), name="empty list = all"),
        Sample((A(randn(rng, 3, 4)), (), True), name="empty dims keepdim"),
        Sample((A(randn(rng, 2, 3, 4)), (-1, 0)), name="negative unsorted dims"),
        Sample((A(randn(rng, 1, 4, 1)), (0, 2)), name="size-1 dims"),
        Sample((A(randn(rng, 3, 1)), 1, True), name="keepdim size-1"),
        Sample((A(randn(rng)), 0), name="0-d dim 0"),
        Sample((A(randn(rng)), -1, True), name="0-d keepdim"),
        Sample((A(randn(rng, 0, 3)), 0), name="empty input"),
    ]


# ------------------------------------------------------------------ prod
def _prod_samples(rng):
    return [
        Sample((A(_nonzero(rng, 3, 4)),), name="whole"),
        Sample((A(_nonzero(rng, 3, 4)), 1), name="dim"),
        Sample((A(_nonzero(rng, 2, 3, 4)), -2, True), name="dim keepdim"),
        Sample((A(_nonzero(rng)),), name="0-d"),
        Sample((A(_nonzero(rng)), 0), name="0-d dim"),
        Sample((A(_nonzero(rng, 3, 1)), 1), name="size-1 dim"),
    ]


def _prod_zero_samples(rng):
    return [
        Sample((A(_with_zeros(rng, (2, 3), [4])),), name="whole, one zero"),
        Sample((A(_with_zeros(rng, (2, 3), [1, 4])),), name="whole, two zeros"),
        Sample((A(_with_zeros(rng, (3, 4), [1, 6, 7])), 1), name="dim: rows with 0, 1, 2 zeros"),
        Sample((A(_with_zeros(rng, (3, 4), [0, 5])), 0, True), name="dim 0 keepdim"),
    ]


# ------------------------------------------------------------------ max / min family
def _max_samples(rng):
    return [
        Sample((A(_distinct(rng, 3, 4)),), name="whole"),
        Sample((A(_distinct(rng, 3, 4)), 1), name="dim"),
        Sample((A(_distinct(rng, 2, 3, 4)), -1, True), name="dim keepdim"),
        Sample((A(_distinct(rng, 3, 4)),), {"dim": 0}, name="dim kw"),
        Sample((A(_distinct(rng)),), name="0-d"),
        Sample((A(_distinct(rng)), 0), name="0-d dim"),
        Sample((A(_distinct(rng, 1, 4)), 0), name="size-1 dim"),
    ]


def _max_ties_samples(rng):
    x = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 3.0, 0.5, 2.0], [3.0, -1.0, 2.5, 0.0]])
    return [
        Sample((A(x),), name="whole: 4 tied maxima share the gradient"),
        Sample((A(x), 1), name="dim: gradient to the first tied index"),
        Sample((A(-x), 1, True), name="dim keepdim"),
    ]


def _amax_samples(rng):
    return [
        Sample((A(_distinct(rng, 3, 4)),), name="all dims"),
        Sample((A(_distinct(rng, 3, 4)), 1), name="dim"),
        Sample((A(_distinct(rng, 2, 3, 4)), (0, 2), True), name="dims keepdim"),
        Sample((A(_distinct(rng, 2, 3, 4)), (-1,)), name="negative dim tuple"),
        Sample((A(_distinct(rng)),), name="0-d"),
    ]


def _amax_ties_samples(rng):
    x = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 3.0, 0.5, 2.0], [3.0, -1.0, 2.5, 0.0]])
    return [
        Sample((A(x),), name="all dims: 4-way tie"),
        Sample((A(x), 1), name="dim: rows with a 2-way tie"),
        Sample((A(-x), (0, 1), True), name="amin-side ties keepdim"),
        Sample((A(np.array([[0.5, 0.5], [-1.0, 2.0]])), 0), name="column ties"),
    ]


def _arg_samples(rng):
    ties = np.array([[1.0, 3.0, 3.0], [2.0, -1.0, -1.0]])
    return [
        Sample((A(_distinct(rng, 3, 4)),), name="flattened"),
        Sample((A(_distinct(rng, 3, 4)), 1)),
        Sample((A(_distinct(rng, 3, 4)), 0, True), name="keepdim"),
        Sample((A(_distinct(rng, 3, 4)), None, True), name="dim None keepdim"),
        Sample((A(ties), 1), name="ties: first index"),
        Sample((A(-ties),), name="ties flattened"),
        Sample((A(_distinct(rng)),), name="0-d"),
        Sample((A(_distinct(rng)), 0), name="0-d dim"),
    ]


# ------------------------------------------------------------------ logsumexp
def _logsumexp_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), (0, 2), True), name="dims keepdim"),
        Sample((A(randn(rng, 3, 4)), -1, True), name="keepdim"),
        Sample((A(randn(rng, 3, 4) + 800.0), 1), name="large values (no overflow)"),
        Sample((A(randn(rng, 3, 4) - 800.0), 0), name="very negative values (no underflow)"),
        Sample((A(randn(rng)), 0), name="0-d"),
        Sample((A(randn(rng, 1, 4)), 0), name="size-1 dim"),
    ]


# ------------------------------------------------------------------ norms
def _norm_samples(rng):
    return [
        Sample((A(_nonzero(rng, 3, 4)),), name="default fro"),
        Sample((A(_nonzero(rng, 3, 4)), 2, 1), name="p=2 dim"),
        Sample((A(_nonzero(rng, 3, 4)), "fro", (0, 1), True), name="fro dims keepdim"),
        Sample((A(_nonzero(rng, 3, 4)), 1, 0), name="p=1"),
        Sample((A(_nonzero(rng, 3, 4)), 3), name="p=3"),
        Sample((A(_nonzero(rng, 3, 4)), 1.5, -1), name="p=1.5"),
        Sample((A(_nonzero(rng, 3, 4)), 0.5, 1), name="p=0.5"),
        Sample((A(_nonzero(rng, 3, 4)), -1, 1), name="p=-1"),
        Sample((A(_distinct(rng, 3, 4)), math.inf, 1), name="p=inf"),
        Sample((A(_distinct(rng, 3, 4)), -math.inf), name="p=-inf"),
        Sample((A(_nonzero(rng, 3, 4)), 0, 1), name="p=0 (count: no gradient)"),
        Sample((A(_nonzero(rng)),), name="0-d"),
        Sample((A(_nonzero(rng, 2, 3)),), {"p": 2, "dim": 1, "keepdim": True}, name="kwargs"),
    ]


def _norm_zero_samples(rng):
    z = np.array([[0.0, 0.0, 0.0], [1.5, -2.0, 0.5], [0.0, 0.7, 0.0]])
    return [
        Sample((A(np.zeros(3)),), name="p=2 at the zero vector"),
        Sample((A(z), 2, 1), name="p=2 rows, one all zero"),
        Sample((A(z), 1, 1), name="p=1 with zeros"),
        Sample((A(z), 3, 1), name="p=3 with zeros"),
        Sample((A(z), 0.5, 1), name="p=0.5 with zeros"),
        Sample((A(z), -1, 1), name="p=-1 with zeros"),
        Sample((A(z), math.inf, 1), name="p=inf with zeros"),
    ]


def _vector_norm_samples(rng):
    return [
        Sample((A(_nonzero(rng, 3, 4)),)),
        Sample((A(_nonzero(rng, 3, 4)), 3.5, 1, True), name="ord dim keepdim"),
        Sample((A(_nonzero(rng, 2, 3, 4)),), {"ord": 1, "dim": (0, 2)}, name="dims"),
        Sample((A(_nonzero(rng, 3, 4)),), {"ord": 2, "dim": -1}, name="ord 2 dim"),
        Sample((A(_distinct(rng, 3, 4)),), {"ord": math.inf, "dim": 0}, name="inf"),
        Sample((A(_nonzero(rng, 3, 4)),), {"ord": 2, "dim": 1, "dtype": "float64"},
               name="dtype"),
        Sample((A(_nonzero(rng)),), {"ord": 3}, name="0-d"),
    ]


# ------------------------------------------------------------------ var / std
def _var_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)),), name="whole"),
        Sample((A(randn(rng, 3, 4)), 1), name="dim"),
        Sample((A(randn(rng, 2, 3, 4)), (0, 2)), {"keepdim": True}, name="dims keepdim"),
        Sample((A(randn(rng, 3, 4)), 1), {"correction": 0}, name="correction=0"),
        Sample((A(randn(rng, 3, 5)),), {"dim": -1, "correction": 2, "keepdim": True},
               name="correction=2"),
        Sample((A(randn(rng, 3, 4)), 0), {"correction": 0.5}, name="fractional correction"),
        Sample((A(randn(rng, 3, 4)), False), name="legacy unbiased=False"),
        Sample((A(randn(rng, 3, 4)), 1, False, True), name="legacy dim unbiased keepdim"),
        Sample((A(randn(rng, 3, 4)),), {"dim": 1, "unbiased": True}, name="unbiased kw"),
    ]


_TORCH_EMPTY_DIMS = "PyTorch's var/std backward treats dim=() as 'no reduction' (dof 0: inf/NaN)"


# ------------------------------------------------------------------ scans
def _cumsum_samples(rng):
    return [
        Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), 0)),
        Sample((A(randn(rng, 2, 3, 4)), -2), name="negative dim"),
        Sample((A(randn(rng, 5)), 0), name="1-d"),
        Sample((A(randn(rng)), 0), name="0-d"),
        Sample((A(randn(rng, 3, 1)), 1), name="size-1 dim"),
    ]


def _cumprod_zero_samples(rng):
    return [
        Sample((A(_with_zeros(rng, (5,), [1])), 0), name="one zero"),
        Sample((A(_with_zeros(rng, (5,), [1, 3])), 0), name="two zeros"),
        Sample((A(_with_zeros(rng, (3, 4), [0, 6, 9, 11])), 1), name="rows with 0/1/2 zeros"),
        Sample((A(_with_zeros(rng, (3, 4), [5])), 0), name="dim 0"),
    ]


def _cumext_samples(rng):
    return [
        Sample((A(randn(rng, 3, 5)), 1)),
        Sample((A(randn(rng, 4, 3)), 0)),
        Sample((A(randn(rng, 2, 3, 4)), -1), name="negative dim"),
        Sample((A(randn(rng)), 0), name="0-d"),
    ]


def _cumext_ties_samples(rng):
    return [
        Sample((A(np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [2.0, 1.0, 2.0, 0.0, 5.0]])), 1),
               name="ties: the last equal index wins"),
    ]


# ------------------------------------------------------------------ sorting
def _sort_samples(rng):
    return [
        Sample((A(_distinct(rng, 3, 5)),), name="last dim"),
        Sample((A(_distinct(rng, 3, 5)), 0), name="dim 0"),
        Sample((A(_distinct(rng, 2, 3, 4)), 1, True), name="descending"),
        Sample((A(_distinct(rng, 3, 5)),), {"dim": -1, "descending": True, "stable": True},
               name="kwargs"),
        Sample((A(_distinct(rng)),), name="0-d"),
    ]


def _sort_ties_samples(rng):
    return [
        Sample((A(np.array([[1.0, 3.0, 3.0, -1.0, 3.0]])),), {"stable": True},
               name="stable ties"),
        Sample((A(np.array([[1.0, 3.0, 3.0, -1.0, 3.0]])),),
               {"stable": True, "descending": True}, name="stable descending ties"),
        Sample((A(np.array([[2.0, 1.0], [2.0, 2.0], [0.0, 1.0]])),), {"dim": 0, "stable": True},
               name="stable ties dim 0"),
    ]


def _argsort_samples(rng):
    return [
        Sample((A(_distinct(rng, 3, 5)),)),
        Sample((A(_distinct(rng, 3, 5)), 0, True), name="dim 0 descending"),
        Sample((A(np.array([2.0, 1.0, 2.0, 0.0, 1.0])),), {"stable": True}, name="stable ties"),
        Sample((A(np.array([2.0, 1.0, 2.0, 0.0, 1.0])),), {"stable": True, "descending": True},
               name="stable descending ties"),
        Sample((A(_distinct(rng)),), name="0-d"),
    ]


def _topk_samples(rng):
    return [
        Sample((A(_distinct(rng, 3, 5)), 2)),
        Sample((A(_distinct(rng, 3, 5)), 3, 0), name="dim 0"),
        Sample((A(_distinct(rng, 2, 3, 4)), 2, -2, False), name="smallest"),
        Sample((A(_distinct(rng, 6)), 6), name="k = n"),
        Sample((A(_distinct(rng, 6)), 0), name="k = 0"),
        Sample((A(_distinct(rng, 3, 5)),), {"k": 1, "dim": 1, "largest": True, "sorted": True},
               name="kwargs"),
        Sample((A(_distinct(rng)), 1), name="0-d"),
    ]


# ------------------------------------------------------------------ all / any
def _logical_samples(rng):
    b = rng.standard_normal((3, 4)) > 0
    b[0] = True
    return [
        Sample((I(b),), name="bool"),
        Sample((I(b), 1), name="dim"),
        Sample((I(b), (0, 1), True), name="dims keepdim"),
        Sample((I(b), ()), name="empty dims: no reduction"),
        Sample((I(b),), {"dim": 0, "keepdim": True}, name="kwargs"),
        Sample((A(np.where(b, randn(rng, 3, 4), 0.0)), 0), name="float with zeros"),
        Sample((I(np.array([1, 0, 2], dtype=np.uint8)),), name="uint8 keeps uint8"),
        Sample((I(np.array([3, 0, 7])), 0), name="int64"),
        Sample((I(np.array(True)),), name="0-d"),
    ]


_TIES = {"fd": "the op is not differentiable at ties; finite differences do not apply"}

OPS = [
    OpInfo("sum_dtype", _sum_dtype_samples, fn=_with_dtype("sum")),
    OpInfo("sum_edge", _sum_edge_samples, fn=lambda lib, *a, **k: lib.sum(*a, **k), complex=True),
    OpInfo("Tensor.sum", lambda rng: [Sample((A(randn(rng, 3, 4)), 1, True)),
                                      Sample((A(randn(rng, 3, 4)),), {"dtype": "float64"})],
           fn=lambda lib, x, *a, dtype=None, **k: x.sum(
               *a, **k, **({"dtype": getattr(lib, dtype)} if dtype else {}))),
    OpInfo("mean_dtype", lambda rng: [s for s in _sum_dtype_samples(rng)],
           fn=_with_dtype("mean")),
    OpInfo("mean_edge", lambda rng: _sum_edge_samples(rng)[:-1],
           fn=lambda lib, *a, **k: lib.mean(*a, **k), complex=True),
    OpInfo("prod", _prod_samples, complex=True),
    OpInfo("prod_zeros", _prod_zero_samples, fn=lambda lib, *a, **k: lib.prod(*a, **k)),
    OpInfo("prod_dtype", lambda rng: [Sample((A(_nonzero(rng, 3, 4)),), {"dtype": "float64"}),
                                      Sample((A(_nonzero(rng, 3, 4)), 1),
                                             {"dtype": "float64"})],
           fn=_with_dtype("prod")),
    OpInfo("max", _max_samples),
    OpInfo("max_ties", _max_ties_samples, fn=lambda lib, *a, **k: lib.max(*a, **k), skips=_TIES),
    OpInfo("max_binary", lambda rng: [Sample((A(_distinct(rng, 3, 4)), A(_distinct(rng, 3, 4)))),
                                      Sample((A(_distinct(rng, 3, 4)), A(_distinct(rng, 4))),
                                             name="broadcast")],
           fn=lambda lib, x, y: lib.max(x, y)),
    OpInfo("min", _max_samples),
    OpInfo("min_ties", _max_ties_samples, fn=lambda lib, *a, **k: lib.min(*a, **k), skips=_TIES),
    OpInfo("min_binary", lambda rng: [Sample((A(_distinct(rng, 3, 4)), A(_distinct(rng, 4))))],
           fn=lambda lib, x, y: lib.min(x, other=y)),
    OpInfo("Tensor.max", lambda rng: [Sample((A(_distinct(rng, 3, 4)), 1))]),
    OpInfo("amax", _amax_samples),
    OpInfo("amax_ties", _amax_ties_samples, fn=lambda lib, *a, **k: lib.amax(*a, **k),
           skips=_TIES),
    OpInfo("amin", _amax_samples),
    OpInfo("amin_ties", _amax_ties_samples, fn=lambda lib, *a, **k: lib.amin(*a, **k),
           skips=_TIES),
    OpInfo("argmax", _arg_samples, grad=False),
    OpInfo("argmin", _arg_samples, grad=False),
    OpInfo("logsumexp", _logsumexp_samples, complex=True),
    OpInfo("norm", _norm_samples, complex=True),
    OpInfo("norm_zeros", _norm_zero_samples, fn=lambda lib, *a, **k: lib.norm(*a, **k),
           gradgrad=False, fd=False,
           skips={"gradgrad": "second derivatives of norms at 0 are infinite (NaN in PyTorch)"}),
    OpInfo("linalg.vector_norm", lambda rng: _vector_norm_samples(rng)[:5] +
           _vector_norm_samples(rng)[6:], complex=True),
    OpInfo("linalg.vector_norm_dtype",
           lambda rng: [Sample((A(_nonzero(rng, 3, 4)),), {"ord": 2, "dim": 1,
                                                            "dtype": "float64"}),
                        Sample((A(_nonzero(rng, 3, 4)),), {"ord": 3, "dtype": "float64"})],
           fn=_with_dtype("linalg.vector_norm")),
    OpInfo("var", _var_samples, complex=True),
    OpInfo("std", _var_samples, complex=True),
    OpInfo("var_empty_dims", lambda rng: [Sample((A(randn(rng, 3, 4)), ())),
                                          Sample((A(randn(rng, 3, 4)), (), True))],
           fn=lambda lib, *a: lib.var(*a), complex=True,
           skips={"vjp": _TORCH_EMPTY_DIMS, "gradgrad": _TORCH_EMPTY_DIMS,
                  "jvp": _TORCH_EMPTY_DIMS}),
    OpInfo("std_empty_dims", lambda rng: [Sample((A(randn(rng, 3, 4)), ()))],
           fn=lambda lib, *a: lib.std(*a), complex=True,
           skips={"vjp": _TORCH_EMPTY_DIMS, "gradgrad": _TORCH_EMPTY_DIMS,
                  "jvp": _TORCH_EMPTY_DIMS}),
    OpInfo("std_constant", lambda rng: [Sample((A(np.full((2, 3), 1.5)), 1))],
           fn=lambda lib, x, d: lib.std(x, d), gradgrad=False, fd=False,
           skips={"jvp": "PyTorch's std JVP is NaN where the result is 0 (graphgrad gives 0)",
                  "gradgrad": "the second derivative of std at a constant input is infinite"}),
    OpInfo("cumsum", _cumsum_samples, complex=True, inplace="cumsum_"),
    OpInfo("cumsum_dtype", lambda rng: [Sample((A(randn(rng, 3, 4)), 1), {"dtype": "float64"})],
           fn=_with_dtype("cumsum")),
    OpInfo("cumprod", lambda rng: [Sample((A(_nonzero(rng, *s.args[0].arr.shape)),
                                           *s.args[1:]), name=s.name)
                                   for s in _cumsum_samples(rng)],
           complex=True, inplace="cumprod_"),
    OpInfo("cumprod_zeros", _cumprod_zero_samples, fn=lambda lib, *a, **k: lib.cumprod(*a, **k)),
    OpInfo("cummax", _cumext_samples, nondiff_outputs=(1,)),
    OpInfo("cummin", _cumext_samples, nondiff_outputs=(1,)),
    OpInfo("cummax_ties", _cumext_ties_samples, fn=lambda lib, *a: lib.cummax(*a),
           nondiff_outputs=(1,), skips=_TIES),
    OpInfo("cummin_ties", lambda rng: [Sample((A(-s.args[0].arr), *s.args[1:]))
                                       for s in _cumext_ties_samples(rng)],
           fn=lambda lib, *a: lib.cummin(*a), nondiff_outputs=(1,), skips=_TIES),
    OpInfo("sort", _sort_samples, nondiff_outputs=(1,)),
    OpInfo("sort_ties", _sort_ties_samples, fn=lambda lib, *a, **k: lib.sort(*a, **k),
           nondiff_outputs=(1,), skips=_TIES),
    OpInfo("msort", lambda rng: [Sample((A(_distinct(rng, 4, 3)),))]),
    OpInfo("topk", _topk_samples, nondiff_outputs=(1,)),
    OpInfo("argsort", _argsort_samples, grad=False),
    OpInfo("all", _logical_samples, grad=False),
    OpInfo("any", _logical_samples, grad=False),
]

# the max/min/sort/topk entries of api.md are covered by the entries above
for _op in OPS:
    if _op.name in ("max", "min", "sort", "topk"):
        _op.nondiff_outputs = (1,)
