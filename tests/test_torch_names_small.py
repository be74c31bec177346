"""Small torch.* / Tensor.* names (graphgrad/_torch_names.py, ops/api/linalg_legacy.py)
against PyTorch: values, dtypes, node names, gradients, warnings and exception types."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphgrad as gg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
W = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 2))


def _np(t):
    return t.detach().resolve_conj().numpy() if hasattr(t, "resolve_conj") else t.detach().numpy()


def _name(t):
    return None if t.grad_fn is None else t.grad_fn.name().replace("torch::autograd::", "")


def _both(fn, *arrays, grad=True):
    """fn(lib, *tensors) on both libraries: outputs (flattened), node names, and the gradients
    of the sum of every float output's entries times fixed weights."""
    res = []
    for lib in (gg, torch):
        ts = [lib.tensor(a, requires_grad=grad) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(lib, *ts)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        names = [_name(o) for o in outs]
        vals = [_np(o) for o in outs]
        grads = None
        if grad:
            diff = [o for o in outs if o.requires_grad]
            if diff:
                w = [lib.tensor(np.cos(np.arange(o.numel()) + 0.5).reshape(tuple(o.shape)))
                     .to(o.dtype) for o in diff]
                grads = [None if g is None else _np(g) for g in
                         lib.autograd.grad(diff, ts, w, allow_unused=True)]
        res.append((names, vals, grads))
    return res


def _assert_same(res, names=True, tol=1e-10):
    (gn, gv, gd), (tn, tv, td) = res
    if names:
        assert gn == tn
    assert len(gv) == len(tv)
    for a, b in zip(gv, tv):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    if td is not None:
        for a, b in zip(gd, td):
            if a is None or b is None:
                assert (a is None or not a.any()) and (b is None or not b.any())
                continue
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---------------------------------------------------------------- linalg (deprecated forms)
@pytest.mark.parametrize("some", [True, False])
def test_qr(some):
    _assert_same(_both(lambda L, a: L.qr(a, some=some), W.T if some else W))
    _assert_same(_both(lambda L, a: a.qr(some), W.T if some else W))


@pytest.mark.parametrize("kw", [{}, {"some": False}, {"compute_uv": False}])
def test_svd(kw):
    # (a tall matrix; the signs of singular vectors are LAPACK's in both libraries)
    a = W.T
    res = _both(lambda L, a: L.svd(a, **kw), a, grad=False)
    (gn, gv, _), (tn, tv, _) = res
    assert gn == tn and [v.shape for v in gv] == [v.shape for v in tv]
    np.testing.assert_allclose(gv[1], tv[1], atol=1e-12)
    if kw.get("compute_uv", True):
        U, S, V = gv
        np.testing.assert_allclose((U[:, :3] * S) @ V.T, a, atol=1e-12)
        _assert_same(_both(lambda L, a: (lambda r: r.U @ L.diag_embed(r.S) @ r.V.mT)(
            L.svd(a, **kw)) if kw.get("some", True) else L.svd(a, **kw).S, a), names=False)
    else:
        assert not gv[0].any() and not gv[2].any()
        _assert_same(_both(lambda L, a: L.svd(a, **kw).S, a))


def test_svd_is_a_namedtuple_with_V():
    r = gg.svd(gg.tensor(W))
    assert type(r).__name__ == "svd" and r._fields == ("U", "S", "V")


@pytest.mark.parametrize("get_infos", [False, True])
def test_lu_and_lu_solve_and_lu_unpack(get_infos):
    _assert_same(_both(lambda L, a: L.lu(a, get_infos=get_infos), M))
    _assert_same(_both(lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a)), M, B))
    _assert_same(_both(lambda L, a: a.lu(), M))
    # lu_unpack: values and gradients (PyTorch's node is LuUnpackBackward0: documented)
    for a in (M, W, W.T):
        _assert_same(_both(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)), a), names=False)
    res = _both(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a), unpack_data=False), M,
                grad=False)
    assert [v.shape for v in res[0][1]] == [v.shape for v in res[1][1]]
    res = _both(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a), unpack_pivots=False), M,
                grad=False)
    assert [v.shape for v in res[0][1]] == [v.shape for v in res[1][1]]


def test_lu_of_a_singular_matrix():
    s = np.ones((3, 3))
    for lib in (gg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert len(lib.lu(lib.tensor(s))) == 2     # (no error, as PyTorch's)
            assert int(lib.lu(lib.tensor(s), get_infos=True)[2]) > 0


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve(upper, transpose, unitriangular):
    A = np.triu(M) if upper else np.tril(M)
    _assert_same(_both(lambda L, b, a: L.triangular_solve(b, a, upper, transpose,
                                                          unitriangular), B, A), names=False)
    _assert_same(_both(lambda L, b, a: b.triangular_solve(a, upper=upper), B, A),
                 names=False)
    # a batch of b with one A: the cloned coefficient is A broadcast to the batch
    _assert_same(_both(lambda L, b, a: L.triangular_solve(b, a, upper, transpose,
                                                          unitriangular),
                       RNG.standard_normal((2, 3, 2)), A), names=False)


def test_nuclear_and_frobenius_norm():
    _assert_same(_both(lambda L, a: L.nuclear_norm(a), W))
    _assert_same(_both(lambda L, a: L.nuclear_norm(a, keepdim=True), W))
    _assert_same(_both(lambda L, a: L.nuclear_norm(a, (0, 1)), W))
    _assert_same(_both(lambda L, a: L.nuclear_norm(a.reshape(2, 2, 3), (1, 2)),
                       RNG.standard_normal(12)))
    _assert_same(_both(lambda L, a: L.frobenius_norm(a, (0, 1)), W), names=False)
    _assert_same(_both(lambda L, a: L.frobenius_norm(a, 1, keepdim=True), W), names=False)
    with pytest.warns(UserWarning, match="deprecated"):   # (PyTorch's: once per process)
        gg.frobenius_norm(gg.tensor(W), (0, 1))
    for lib in (gg, torch):
        with pytest.raises(RuntimeError):
            lib.frobenius_norm(lib.tensor(W), (0, 1, 1))


# ---------------------------------------------------------------- torch.* names
def test_detach_dropout_embedding():
    _assert_same(_both(lambda L, a: L.detach(a), W, grad=True))
    _assert_same(_both(lambda L, a: L.dropout(a, 0.0, True), W))
    _assert_same(_both(lambda L, a: L.dropout(a, 0.5, False), W))
    for lib in (gg, torch):
        y = lib.dropout(lib.tensor(W, requires_grad=True), 0.5, True)
        assert _name(y) == "MulBackward0"
        with pytest.raises(RuntimeError):
            lib.dropout(lib.tensor(W), 1.5, True)
    idx = np.array([[0, 2], [1, 1]])
    for pad in (-1, 1):
        res = []
        for lib in (gg, torch):
            w = lib.tensor(W, requires_grad=True)
            e = lib.embedding(w, lib.tensor(idx), pad)
            (g,) = lib.autograd.grad(e, w, lib.ones_like(e))
            res.append((_name(e), _np(e), _np(g)))
        assert res[0][0] == res[1][0]
        np.testing.assert_allclose(res[0][1], res[1][1])
        np.testing.assert_allclose(res[0][2], res[1][2])


@pytest.mark.parametrize("call", [
    lambda L: L.logspace(0, 2, 5), lambda L: L.logspace(0, 2, 5, base=2.0, dtype=L.float64),
    lambda L: L.logspace(-1, 1, 1), lambda L: L.logspace(0, 3, 4, dtype=L.int64),
    lambda L: L.range(1, 4), lambda L: L.range(0, 1, 0.25), lambda L: L.range(1, 4, dtype=L.int64),
    lambda L: L.range(5, 1, -2), lambda L: L.scalar_tensor(3),
    lambda L: L.scalar_tensor(3, dtype=L.int64), lambda L: L.scalar_tensor(True),
    lambda L: L.asarray([1, 2]), lambda L: L.asarray(3.0), lambda L: L.asarray([1.5], dtype=L.float64),
    lambda L: L.hann_window(4),
])
def test_factories(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = call(gg), call(torch)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_range_warns_like_torch():
    msgs = []
    for lib in (gg, torch):
        with pytest.warns(UserWarning) as w:
            lib.range(1, 3)
        msgs.append(str(w[0].message))
    assert msgs[0] == msgs[1]


def test_asarray_shares_memory_and_copies():
    x = gg.tensor([1.0, 2.0])
    assert gg.asarray(x) is x
    assert gg.asarray(x, copy=True) is not x
    arr = np.array([1.0, 2.0])
    t = gg.asarray(arr)
    arr[0] = 5.0
    assert t[0].item() == 5.0
    assert gg.asarray(arr, dtype=gg.float32).dtype is gg.float32
    r = gg.asarray([1.0], requires_grad=True)
    assert r.requires_grad and r.is_leaf
    for lib in (gg, torch):
        with pytest.raises((ValueError, RuntimeError)):
            lib.asarray(lib.tensor([1.0]), dtype=lib.float64, copy=False)


@pytest.mark.parametrize("values,dtype", [([0.0], "float32"), ([], "float32"), ([1, 2], "int64"),
                                          (2, "int64"), (True, "bool"), (0j, "complex64")])
def test_is_nonzero(values, dtype):
    out = []
    for lib in (gg, torch):
        t = lib.tensor(values, dtype=getattr(lib, dtype))
        try:
            out.append((lib.is_nonzero(t), t.is_nonzero()))
        except Exception as e:  # noqa: BLE001
            out.append(type(e))
    assert out[0] == out[1]


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool", "complex64", "int8"])
def test_is_signed_is_same_size(dtype):
    for lib in (gg, torch):
        t = lib.zeros(2, dtype=getattr(lib, dtype))
        assert lib.is_signed(t) == t.is_signed() == (dtype not in ("uint8", "bool"))
        assert lib.is_same_size(t, lib.zeros(2)) and not t.is_same_size(lib.zeros(3))


def test_newaxis_threads_determinism():
    assert gg.newaxis is None and torch.newaxis is None
    assert gg.zeros(3)[gg.newaxis].shape == (1, 3)
    n = gg.get_num_threads()
    assert isinstance(n, int) and n >= 1
    gg.set_num_threads(2)
    assert gg.get_num_threads() == 2
    gg.set_num_threads(n)
    assert gg.get_num_interop_threads() >= 1
    for lib in (gg, torch):
        with pytest.raises(RuntimeError):
            lib.set_num_threads(0)
        assert lib.are_deterministic_algorithms_enabled() is False
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled() is True
        assert lib.is_deterministic_algorithms_warn_only_enabled() is True
        lib.use_deterministic_algorithms(False)
        assert lib.is_deterministic_algorithms_warn_only_enabled() is False


def test_new_empty_strided():
    for lib in (gg, torch):
        t = lib.zeros(2, 3, dtype=lib.float64).new_empty_strided((2, 3), (1, 2))
        assert t.shape == (2, 3) and t.dtype == lib.float64 and t.stride() == (1, 2)


# ---------------------------------------------------------------- in-place aliases
@pytest.mark.parametrize("alias,args", [
    ("divide_", (2.0,)), ("multiply_", (3.0,)), ("subtract_", (1.5,)), ("negative_", ()),
    ("greater_", (0.0,)), ("greater_equal_", (0.0,)), ("less_", (0.0,)), ("less_equal_", (0.0,)),
    ("not_equal_", (0.0,)), ("xlogy_", (2.0,)), ("sinc_", ()),
])
def test_inplace_aliases(alias, args):
    def fn(L, a):
        b = a * 1
        getattr(b, alias)(*args)
        return b
    # (the comparisons' in-place forms record CopyBackwards here, GtBackward0 & co. in
    # PyTorch: gt_'s own difference, which the aliases share)
    _assert_same(_both(fn, np.abs(W) + 0.5), names=alias.startswith(("greater", "less", "not"))
                 is False)


def test_torch_functions_of_inplace_ops():
    for name in ("negative_", "xlogy_", "sinc_"):
        a = gg.tensor(np.abs(W) + 0.5)
        b = torch.tensor(np.abs(W) + 0.5)
        args = (2.0,) if name == "xlogy_" else ()
        assert getattr(gg, name)(a, *args) is a
        getattr(torch, name)(b, *args)
        np.testing.assert_allclose(a.numpy(), b.numpy())


def test_addmm_():
    def fn(L, c, a, b):
        d = c * 1
        d.addmm_(a, b, beta=0.5, alpha=2.0)
        return d
    _assert_same(_both(fn, RNG.standard_normal((3, 4)), W.T[:3], W))
    for lib in (gg, torch):
        with pytest.raises(RuntimeError):
            lib.zeros(2, 2).addmm_(lib.zeros(2, 3), lib.zeros(2, 3))


@pytest.mark.parametrize("shape,wrap", [((3, 4), False), ((5, 3), True), ((7, 3), True),
                                        ((7, 3), False), ((2, 2, 2), False), ((4, 2), True)])
def test_fill_diagonal_(shape, wrap):
    def fn(L, a):
        b = a * 1
        b.fill_diagonal_(2.5, wrap=wrap)
        return b
    _assert_same(_both(fn, RNG.standard_normal(shape)), names=False)
    res = _both(fn, RNG.standard_normal(shape))
    assert res[0][0] == res[1][0] == ["CopySlices"]


@pytest.mark.parametrize("shape", [(2, 3, 2), (3,)])
def test_fill_diagonal_errors(shape):
    for lib in (gg, torch):
        with pytest.raises(RuntimeError):
            lib.zeros(shape).fill_diagonal_(1)


@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve_jvp_is_its_derivative(transpose):
    """graphgrad's tangent equals finite differences, also for the triangle the solve does
    not read (PyTorch's JVP takes the whole tangent of A) and with transpose=True (PyTorch's
    JVP is not its derivative there): docs/differences.md."""
    rng = np.random.default_rng(0)
    a, b = np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3), rng.standard_normal((3, 2))
    da, db = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))

    def f(bb, aa):
        return gg.triangular_solve(bb, aa, False, transpose)[0]
    fw = gg.autograd.forward_ad
    with fw.dual_level():
        t = fw.unpack_dual(f(fw.make_dual(gg.tensor(b), gg.tensor(db)),
                             fw.make_dual(gg.tensor(a), gg.tensor(da)))).tangent.numpy()
    e = 1e-6
    num = (f(gg.tensor(b + e * db), gg.tensor(a + e * da)).numpy()
           - f(gg.tensor(b - e * db), gg.tensor(a - e * da)).numpy()) / (2 * e)
    np.testing.assert_allclose(t, num, rtol=1e-6, atol=1e-8)
