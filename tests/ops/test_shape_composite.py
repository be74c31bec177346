"""The composite shape functions (ops/api/shape_composite.py) against PyTorch: the index
helpers' values and dtypes, broadcast_shapes, meshgrid's warning, node chains, and bad input
with PyTorch's exception types."""
import warnings

import numpy as np

import pytest

from tests.conftest import Raised, run_both


def _try(fn):
    try:
        r = fn()
    except (RuntimeError, ValueError, TypeError, IndexError) as exc:
        return Raised(exc)
    if isinstance(r, tuple) and not hasattr(r, "dim"):
        return [x.tolist() if hasattr(x, "tolist") else x for x in r]
    if hasattr(r, "tolist"):
        return [r.tolist(), str(r.dtype).split(".")[-1], list(r.shape)]
    return r


@pytest.mark.parametrize("case", [
    lambda L: L.tril_indices(3, 4), lambda L: L.triu_indices(4, 3, 1),
    lambda L: L.tril_indices(3, 3, -1, dtype=L.int32), lambda L: L.triu_indices(0, 3),
    lambda L: L.triu_indices(3, 5, -2),
    lambda L: L.unravel_index(L.tensor([4, 1, 11]), (3, 4)),
    lambda L: L.unravel_index(L.tensor(5), (2, 3)),
    lambda L: L.unravel_index(L.tensor([-1]), (2, 3)),
    lambda L: L.unravel_index(L.tensor([6, -7]), (2, 3)),
    lambda L: L.unravel_index(L.tensor([1.0]), (2, 3)),
    lambda L: L.unravel_index(L.tensor([1]), 4),
    lambda L: tuple(L.broadcast_shapes((2, 1), (3,), 1)),
    lambda L: tuple(L.broadcast_shapes()),
    lambda L: L.broadcast_shapes((2,), (3,)),
    lambda L: L.broadcast_shapes((-1,), (3,)),
    lambda L: L.repeat_interleave(L.tensor([1, 0, 3])),
    lambda L: L.repeat_interleave(L.tensor([[1, 2]])),
    lambda L: L.ones(3).repeat_interleave(L.tensor([1, 2])),
    lambda L: L.ones(3).repeat_interleave(L.tensor([1, -2, 1])),
    lambda L: L.ones(2, 3).repeat_interleave(L.tensor([1.0, 2.0]), dim=0),
    lambda L: L.arange(6).reshape(2, 3).repeat_interleave(2, dim=1),
    lambda L: L.ones(3).sum_to_size(2, 3),
    lambda L: L.ones(2, 3).sum_to_size(4),
    lambda L: L.meshgrid(L.ones(2, 2), indexing="ij"),
    lambda L: L.meshgrid(L.ones(2), L.ones(3, dtype=L.int64), indexing="ij"),
    lambda L: L.meshgrid(L.ones(2), indexing="foo"),
    lambda L: L.meshgrid(indexing="ij"),
    lambda L: L.meshgrid([L.arange(2), L.arange(3)], indexing="xy"),
    lambda L: L.broadcast_tensors(L.ones(2), L.ones(3)),
    lambda L: [str(t.dtype).split('.')[-1]
               for t in L.broadcast_tensors(L.ones(2), L.ones(3, 1, dtype=L.int64))],
    lambda L: L.tensor_split(L.ones(3, 4), 0, 1),
    lambda L: L.tensor_split(L.tensor(1.0), 2),
    lambda L: L.tensor_split(L.ones(3, 4), L.tensor([[1, 2]]), 1),
    lambda L: L.tensor_split(L.ones(3, 4), L.tensor([1.0, 2.0]), 1),
    lambda L: L.hsplit(L.ones(3, 4), 3), lambda L: L.hsplit(L.tensor(1.0), 3),
    lambda L: L.vsplit(L.ones(3), 3), lambda L: L.dsplit(L.ones(3, 4), 3),
    lambda L: L.vsplit(L.ones(3, 4), 2),
    lambda L: L.column_stack([]),
    lambda L: L.column_stack([L.ones(3), L.ones(2)]),
    lambda L: L.cartesian_prod(L.ones(2, 2)),
    lambda L: L.cartesian_prod(L.arange(2), L.arange(3)),
    lambda L: L.combinations(L.arange(4), 0),
    lambda L: L.combinations(L.arange(3), 4),
    lambda L: L.combinations(L.ones(2, 2)),
    lambda L: L.combinations(L.arange(4), 3, with_replacement=True),
    lambda L: L.diagflat(L.arange(4).reshape(2, 2), -1),
])
def test_values_and_errors_as_pytorch(case):
    run_both(lambda L: _try(lambda: case(L)))


def test_meshgrid_without_indexing_warns_and_is_ij(lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = lib.meshgrid(lib.arange(2), lib.arange(3))
    assert any("indexing argument" in str(x.message) for x in w)
    assert tuple(g[0].shape) == (2, 3)


def test_error_messages_name_the_op_and_shapes():
    import graphgrad as gg
    with pytest.raises(RuntimeError, match=r"meshgrid.*\[2, 2\]"):
        gg.meshgrid(gg.ones(2, 2), indexing="ij")
    with pytest.raises(RuntimeError, match="hsplit.*divisible"):
        gg.hsplit(gg.ones(3, 4), 3)
    with pytest.raises(RuntimeError, match=r"broadcast_tensors of shapes \[\[2\], \[3\]\]"):
        gg.broadcast_tensors(gg.ones(2), gg.ones(3))


def test_node_chains_as_pytorch():
    def chain(fn, d=0):
        if fn is None or d > 4:
            return None
        return (fn.name(), tuple(chain(n, d + 1) for n, _ in fn.next_functions
                                 if n is not None and "AccumulateGrad" not in n.name()))

    def prog(L):
        x = L.arange(12.0).reshape(3, 4).requires_grad_()
        y = L.arange(4.0).requires_grad_()
        outs = [L.meshgrid(y, y[:2], indexing="xy")[1], L.column_stack([y, x.t()]),
                x.repeat_interleave(2, dim=0), x.repeat_interleave(2),
                L.cartesian_prod(y, y), L.combinations(y, 2), L.diagflat(x, 1),
                x.sum_to_size(1, 4), x.sum_to_size(4)]
        return [chain(o.grad_fn) for o in outs]
    run_both(prog)


def test_layout_facts_as_pytorch():
    def prog(L):
        x = L.arange(24.0).reshape(2, 3, 4)
        views = [x, x[1], x[:, 1:], x[..., 2], x.t() if x.dim() == 2 else x.transpose(0, 2)[1],
                 x.narrow(2, 1, 2), L.ones(3, dtype=L.int16), x.expand(3, 2, 3, 4)]
        return [(v.storage_offset(), v.nbytes, v.itemsize, v.is_cpu) for v in views]
    run_both(prog)


def test_keyword_argument_names_as_pytorch():
    def prog(L):
        x = L.arange(24.0).reshape(6, 4)
        one = [L.tensor_split(x, sections=4), L.tensor_split(x, indices=[1, 3]),
               x.tensor_split(indices=(1, 3), dim=0),
               L.tensor_split(x, tensor_indices_or_sections=L.tensor(2)),
               L.hsplit(x, indices=[1]), L.hsplit(x, sections=2), L.vsplit(x, sections=3)]
        two = [L.repeat_interleave(x, repeats=2, dim=0), L.rot90(x, k=1, dims=[1, 0]),
               L.diagflat(x[0], offset=1), L.take(x, index=L.tensor([1])),
               x.index_fill(dim=0, index=L.tensor([1]), value=2.0),
               x.index_copy(dim=0, index=L.tensor([1]), source=L.ones(1, 4)),
               x.put(index=L.tensor([1]), source=L.ones(1), accumulate=True),
               x.masked_scatter(mask=x > 3, source=-L.arange(24.0)),
               L.select_scatter(x, src=L.ones(4), dim=0, index=1),
               L.slice_scatter(x, src=x[:2], dim=0, end=2),
               L.diagonal_scatter(x, src=L.ones(4), offset=0, dim1=0, dim2=1),
               L.narrow_copy(x, dim=0, start=1, length=2), x.sum_to_size(size=(1, 4))]
        return [[t.tolist() for t in ts] for ts in one] + [t.tolist() for t in two]
    run_both(prog)


@pytest.mark.parametrize("case", [
    lambda L: L.repeat_interleave(L.ones(3), [1, 2, 0]),
    lambda L: L.repeat_interleave(L.ones(3), np.int64(2)),
    lambda L: L.take(L.ones(3), [0]),
    lambda L: L.rot90(L.ones(2, 3), 1.0), lambda L: L.rot90(L.ones(2, 2), True),
    lambda L: L.rot90(L.ones(2, 2), L.tensor(1)),
    lambda L: L.tensor_split(L.ones(4), (1, 2)), lambda L: L.tensor_split(L.ones(4), 2.0),
    lambda L: L.meshgrid((L.ones(2), L.ones(3)), indexing="ij"),
    lambda L: L.broadcast_tensors([L.ones(2), L.ones(3, 1)]),
    lambda L: L.broadcast_tensors(L.ones(2), 3),
    lambda L: L.cartesian_prod([L.ones(2), L.ones(3)]),
    lambda L: L.block_diag([L.ones(2)]), lambda L: L.column_stack(L.ones(2, 2)),
    lambda L: L.diagflat(L.ones(2), 1.5), lambda L: L.diagflat(L.ones(2), True),
    lambda L: L.ones(2, 3).sum_to_size([3]), lambda L: L.ones(2, 3).sum_to_size(L.Size([1, 3])),
    lambda L: L.select_scatter(L.ones(2, 3), L.ones(3), 0, L.tensor(1)),
    lambda L: L.narrow_copy(L.ones(2, 3), 1, L.tensor(1), 2),
    lambda L: L.tril_indices(3, 3, dtype=L.float32), lambda L: L.tril_indices(3, 3, dtype=L.int8),
    lambda L: L.triu_indices(3, 3, dtype=L.int32), lambda L: L.triu_indices(-1, 3),
    lambda L: L.triu_indices(3, -2),
    lambda L: L.unravel_index(L.tensor([[1, 2]]), L.Size([2, 2])),
    lambda L: L.unravel_index(L.tensor(3), ()),
    lambda L: L.broadcast_shapes(L.Size([2, 1]), [3]),
    lambda L: L.combinations(L.ones(3), r=-1),
    lambda L: L.hsplit(L.ones(2, 4), L.tensor([1])),
])
def test_argument_types_as_pytorch(case):
    def prog(L):
        try:
            r = case(L)
        except (TypeError, RuntimeError, ValueError, IndexError, NotImplementedError) as e:
            return Raised(e)
        if isinstance(r, tuple):
            return [x.tolist() for x in r]
        return [r.tolist(), str(r.dtype).split(".")[-1]]
    run_both(prog)
