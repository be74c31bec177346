"""The shape-scatter table ops (ops/api/shape_scatter.py) against PyTorch: bad input with
PyTorch's exception types, dtype rules, in-place variants, vmap, block_diag's promotion."""
import warnings

import pytest

from tests.conftest import Raised, run_both


def _try(fn):
    try:
        r = fn()
    except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError) as exc:
        return Raised(exc)
    if isinstance(r, str):
        return r
    return [r.tolist(), str(r.dtype).split(".")[-1], list(r.shape), r.is_contiguous()]


X = lambda L: L.arange(12.0).reshape(3, 4)  # noqa: E731


@pytest.mark.parametrize("case", [
    lambda L: L.select_scatter(X(L), L.ones(3), 0, 1),
    lambda L: L.select_scatter(X(L), L.ones(4, dtype=L.float64), 0, 1),
    lambda L: L.select_scatter(X(L), L.ones(4), 0, 5),
    lambda L: L.select_scatter(X(L), L.ones(4), 0, -1),
    lambda L: L.slice_scatter(X(L), L.ones(3, 3), 1),
    lambda L: L.slice_scatter(X(L), L.ones(3, 0), 1, 5, 10),
    lambda L: L.slice_scatter(X(L), L.ones(3, 2), 1, 0, 4, 0),
    lambda L: L.slice_scatter(X(L), L.ones(3, 2), dim=1, start=-2),
    lambda L: L.diagonal_scatter(X(L), L.ones(2)),
    lambda L: L.diagonal_scatter(X(L), L.ones(3), 1),
    lambda L: L.diagonal_scatter(X(L), L.ones(2), -1),
    lambda L: L.diagonal_scatter(X(L), L.ones(3), 0, 1, 1),
    lambda L: L.narrow_copy(X(L), 1, 3, 2), lambda L: L.narrow_copy(X(L), 1, -2, 2),
    lambda L: L.narrow_copy(L.tensor(1.0), 0, 0, 1),
    lambda L: L.rot90(X(L), 1, [0]), lambda L: L.rot90(L.ones(3), 1, [0, 1]),
    lambda L: L.rot90(X(L), 1, [0, 0]), lambda L: L.rot90(X(L), 1, [0, 2]),
    lambda L: L.rot90(X(L), -1, [1, 0]), lambda L: L.rot90(X(L), 6, (0, -1)),
    lambda L: L.take(X(L), L.tensor([12])), lambda L: L.take(X(L), L.tensor([-12, 3])),
    lambda L: L.take(X(L), L.tensor([1.0])), lambda L: L.take(X(L), L.tensor([1]).int()),
    lambda L: L.take(L.ones(0), L.tensor([0])),
    lambda L: L.take(L.tensor(2.0), L.tensor([[0, 0]])),
    lambda L: X(L).put(L.tensor([1, 2]), L.ones(3)),
    lambda L: X(L).put(L.tensor([1, 2]), L.ones(2, dtype=L.float64)),
    lambda L: X(L).put(L.tensor([13]), L.ones(1)),
    lambda L: X(L).put(L.tensor([-1, 0]), L.ones(2)),
    lambda L: X(L).put(L.tensor([1, 1]), L.ones(2), accumulate=True),
    lambda L: X(L).put_(L.tensor([[1], [5]]), L.tensor([7.0, 8.0])),
    lambda L: X(L).index_copy(1, L.tensor([0, 2]), L.ones(3, 3)),
    lambda L: X(L).index_copy(1, L.tensor([0, 5]), L.ones(3, 2)),
    lambda L: X(L).index_copy(1, L.tensor([0, 1]), L.ones(3, 2, dtype=L.float64)),
    lambda L: X(L).index_copy(1, L.tensor([0.0, 1.0]), L.ones(3, 2)),
    lambda L: X(L).index_copy(0, L.tensor(1), L.ones(4)),
    lambda L: X(L).index_copy_(0, L.tensor([-1]), L.ones(1, 4)),
    lambda L: L.tensor(1.0).index_copy(0, L.tensor([0]), L.tensor(3.0)),
    lambda L: L.index_copy(X(L), 1, L.tensor([3]), L.zeros(3, 1)),
    lambda L: X(L).index_fill(1, L.tensor([0, 5]), 1.0),
    lambda L: X(L).index_fill(1, L.tensor([0, -1]), 1.0),
    lambda L: X(L).index_fill(1, L.tensor([0, 1]), L.ones(2)),
    lambda L: X(L).index_fill(1, L.tensor([[0, 1]]), 1.0),
    lambda L: X(L).index_fill(1, L.tensor([0, 1]).int(), 2),
    lambda L: X(L).index_fill(1, L.tensor([0, 1]), L.tensor(2, dtype=L.int64)),
    lambda L: L.tensor(1.0).index_fill(0, L.tensor([0]), 3.0),
    lambda L: L.ones(3, dtype=L.int64).index_fill(0, L.tensor([0]), L.tensor(2.7)),
    lambda L: X(L).requires_grad_().index_fill(0, L.tensor([0]), L.tensor(2)).grad_fn.name(),
    lambda L: X(L).requires_grad_().index_fill(0, L.tensor([0]), 2).grad_fn.name(),
    lambda L: L.arange(6).reshape(2, 3).index_fill_(1, L.tensor([2]), -1),
    lambda L: X(L).masked_scatter(X(L) > 0, L.ones(2)),
    lambda L: X(L).masked_scatter((X(L) > 0).float(), L.ones(12)),
    lambda L: X(L).masked_scatter(L.tensor([True, False, True, False]), L.arange(12.0)),
    lambda L: L.ones(4).masked_scatter(L.ones(3, 4, dtype=L.bool), L.arange(12.0)),
    lambda L: X(L).masked_scatter(X(L) > 0, L.ones(12, dtype=L.float64)),
    lambda L: X(L).masked_scatter_(X(L) > 4, L.arange(20.0).reshape(4, 5)),
    lambda L: L.block_diag(),
    lambda L: L.block_diag(L.ones(2, 2, 2)),
    lambda L: L.block_diag(L.ones(2, 3), L.tensor(2.0), L.ones(2, dtype=L.int64)),
    lambda L: L.block_diag(L.ones(2, dtype=L.int32), L.ones(1, 1, dtype=L.int64)),
])
def test_values_and_errors_as_pytorch(case):
    run_both(lambda L: _try(lambda: case(L)))


@pytest.mark.parametrize("call", [
    lambda L, o: L.take(X(L), L.tensor([1, 5]), out=o),
    lambda L, o: L.index_copy(X(L), 0, L.tensor([2]), L.ones(1, 4), out=o),
    lambda L, o: L.slice_scatter(X(L), L.ones(3, 2), 1, 2, out=o),
    lambda L, o: L.narrow_copy(X(L), 1, 1, 2, out=o),
])
def test_out_argument_as_pytorch(call):
    def prog(L):
        o = L.empty(0)
        r = call(L, o)
        return [r is o, o.tolist(), list(o.shape)]
    run_both(prog)


@pytest.mark.parametrize("fn", ["select_scatter", "slice_scatter"])
def test_complex_autograd_refused_as_pytorch(fn):
    def prog(L):
        x = L.ones(2, 3, dtype=L.complex128, requires_grad=True)
        src = L.ones(3, dtype=L.complex128) if fn == "select_scatter" else L.ones(2, 3,
                                                                               dtype=L.complex128)
        try:
            getattr(L, fn)(x, src, 0, 0) if fn == "select_scatter" else getattr(L, fn)(x, src)
        except RuntimeError as exc:
            return Raised(exc)
        return "ok"
    run_both(prog)


def test_index_fill_value_gradient_counts_each_index_once():
    def prog(L):
        x = L.arange(12.0).reshape(3, 4).requires_grad_()
        v = L.tensor(2.0, requires_grad=True)
        y = x.index_fill(1, L.tensor([0, 3, 3, 0]), v)   # (PyTorch's backward fails for -1)
        g = L.autograd.grad((y * L.arange(12.0).reshape(3, 4)).sum(), (x, v))
        return [t.tolist() for t in g]
    run_both(prog)


def test_vmap_of_the_scatter_family_matches_a_loop():
    import graphgrad as gg
    x = gg.arange(24.0).reshape(2, 3, 4)
    cases = [
        (lambda a, s: gg.select_scatter(a, s, 0, 1), (x[0], gg.ones(2, 4)), (None, 0)),
        (lambda a, s: gg.diagonal_scatter(a, s), (x, gg.ones(2, 3)), (0, 0)),
        (lambda a, i, s: a.put(i, s, accumulate=True), (x, gg.tensor([0, 0]), gg.ones(2, 2)),
         (0, None, 0)),
        (lambda a, v: a.index_fill(1, gg.tensor([1]), v), (x[0], gg.ones(2)), (None, 0)),
        (lambda a, s: a.masked_scatter(x[0] > 5, s), (x, gg.arange(24.0).reshape(2, 12)), (0, 0)),
        (lambda a: gg.take(a, gg.tensor([[0, 5], [-1, 2]])), (x,), (0,)),
        (lambda a, i: gg.take(a, i), (x, gg.tensor([[0, -5], [-1, 2]])), (0, 0)),
        (lambda a, i: gg.take(a, i), (x[0], gg.tensor([[0, -5], [-1, 2]])), (None, 0)),
        (lambda *a: gg.block_diag(*a), (x, gg.ones(2, 3)), (0, 0)),
    ]
    for f, args, dims in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # (no per-example fallback)
            r = gg.vmap(f, in_dims=dims)(*args)
        ref = gg.stack([f(*[a[b] if d is not None else a for a, d in zip(args, dims)])
                        for b in range(2)])
        assert r.tolist() == ref.tolist()


def test_vmap_masked_scatter_with_a_batched_mask_matches_a_loop():
    import graphgrad as gg
    x = gg.arange(24.0).reshape(2, 3, 4)
    src = -gg.arange(24.0).reshape(2, 12)

    def f(a, s):
        return a.masked_scatter(a > 5, s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (no per-example fallback)
        r = gg.vmap(f)(x, src)
    assert r.tolist() == gg.stack([f(x[b], src[b]) for b in range(2)]).tolist()
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        gg.vmap(f)(x, src[:, :4])


@pytest.mark.parametrize("case", ["put", "put_acc", "index_copy", "index_fill", "index_fill_t"])
def test_vmap_with_a_batched_index_matches_a_loop(case):
    import graphgrad as gg
    x = gg.arange(24.0).reshape(2, 3, 4)
    idx = gg.tensor([[0, -1], [2, 1]])
    f = {"put": lambda a, i, s: a.put(i, s),
         "put_acc": lambda a, i, s: a.put(i % 12, s, accumulate=True),
         "index_copy": lambda a, i, s: a.index_copy(1, i % 4, s.reshape(1, 2).expand(3, 2)),
         "index_fill": lambda a, i, s: a.index_fill(1, i, -3.0),
         "index_fill_t": lambda a, i, s: a.index_fill(1, i, s[0])}[case]
    src = gg.tensor([[5.0, 6.0], [7.0, 8.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (no per-example fallback)
        r = gg.vmap(f)(x, idx, src)
    assert r.tolist() == gg.stack([f(x[b], idx[b], src[b]) for b in range(2)]).tolist()


def test_inplace_variants_through_views_as_pytorch():
    """index_fill_/index_copy_/put_/masked_scatter_ on a view of a non-leaf (CopySlices)."""
    def prog(L):
        x = L.arange(24.0).reshape(2, 3, 4).requires_grad_()
        s = L.arange(4.0).requires_grad_()
        out = []
        for k in range(4):
            b = x * 1
            v = b[1]
            if k == 0:
                v.index_fill_(1, L.tensor([0, 2]), 7.0)
            elif k == 1:
                v.index_copy_(0, L.tensor([2]), s.reshape(1, 4))
            elif k == 2:
                v.put_(L.tensor([0, 11]), s[:2], accumulate=True)
            else:
                v.masked_scatter_(v > 15, s.repeat(3))
            g = L.autograd.grad((b * b).sum(), (x, s), allow_unused=True)
            out.append([b.grad_fn.name(), v.grad_fn.name(), b.tolist()]
                       + [None if t is None else t.tolist() for t in g])
        return out
    run_both(prog)
