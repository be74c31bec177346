"""graphgrad.utils.data against torch.utils.data: datasets, samplers, collate, DataLoader.

Random samplers draw from graphgrad's generator (NumPy's PCG64), not PyTorch's mt19937, so
their orders are compared for being permutations, and batching order is compared given the
same sampler indices."""
from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import Raised, run_both

torch = pytest.importorskip("torch")

Point = collections.namedtuple("Point", ["x", "y"])


def shape_of(x):
    """The container structure of a result: type names all the way down."""
    if isinstance(x, Raised):
        return ("raised", type(x.exc).__name__)
    if isinstance(x, (graphgrad.Tensor, torch.Tensor)):
        return "Tensor"
    if isinstance(x, dict):
        return (type(x).__name__, {k: shape_of(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [shape_of(v) for v in x])
    return type(x).__name__


def run_same(prog):
    ours, theirs = run_both(prog)
    assert shape_of(ours) == shape_of(theirs)
    return ours, theirs


def data(lib):
    return lib.utils.data


# ------------------------------------------------------------------ datasets
class Squares:
    """A plain map-style dataset (not a Dataset subclass), as users often write."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i

    def __len__(self):
        return self.n


def test_reachable_after_import_graphgrad():
    import subprocess
    import sys
    code = ("import graphgrad; d = graphgrad.utils.data; print(d.DataLoader.__name__, "
            "d.TensorDataset.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["DataLoader", "TensorDataset"]


def test_tensor_dataset_items_and_len():
    def prog(lib):
        ds = data(lib).TensorDataset(lib.arange(12.).reshape(4, 3), lib.tensor([1, 0, 1, 1]))
        return len(ds), ds[2], ds[-1], ds[1:3]
    run_same(prog)


def test_tensor_dataset_size_mismatch():
    run_same(lambda lib: data(lib).TensorDataset(lib.zeros(3), lib.zeros(4)))


def test_concat_dataset_indexing_and_errors():
    def prog(lib):
        d = data(lib)
        ds = d.ConcatDataset([d.TensorDataset(lib.arange(3)), d.TensorDataset(lib.arange(10, 15))])
        return (len(ds), ds.cumulative_sizes, [ds[i] for i in range(len(ds))], ds[-1], ds[-8])
    run_same(prog)
    run_same(lambda lib: data(lib).ConcatDataset([data(lib).TensorDataset(lib.arange(3))])[-4])
    run_same(lambda lib: data(lib).ConcatDataset([]))


def test_concat_via_add_and_rejects_iterable():
    class It(graphgrad.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    class TIt(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    def prog(lib):
        d = data(lib)
        a = d.TensorDataset(lib.arange(2))
        both = a + a
        return type(both).__name__, len(both), both[3]
    run_same(prog)
    with pytest.raises(AssertionError):
        graphgrad.utils.data.ConcatDataset([It()])
    with pytest.raises(AssertionError):
        torch.utils.data.ConcatDataset([TIt()])
    assert list(It() + It()) == list(TIt() + TIt()) == [0, 1, 2, 0, 1, 2]


def test_subset_and_stack_dataset():
    def prog(lib):
        d = data(lib)
        base = d.TensorDataset(lib.arange(10.))
        sub = d.Subset(base, [7, 2, 5])
        st = d.StackDataset(a=d.TensorDataset(lib.arange(3)), b=d.TensorDataset(lib.arange(3.)))
        tup = d.StackDataset(d.TensorDataset(lib.arange(3)), Squares(3))
        return (len(sub), sub[0], sub[-1], sub.__getitems__([0, 2]), st[1],
                st.__getitems__([0, 2]), tup[2], tup.__getitems__([1]))
    run_same(prog)
    run_same(lambda lib: data(lib).StackDataset(Squares(2), Squares(3)))
    run_same(lambda lib: data(lib).StackDataset())


def test_random_split_lengths_fractions_and_errors():
    for lib in (graphgrad, torch):
        d = data(lib)
        parts = d.random_split(range(10), [3, 7], generator=lib.Generator().manual_seed(1))
        assert [len(p) for p in parts] == [3, 7]
        assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
        parts = d.random_split(range(11), [0.3, 0.3, 0.4])
        assert [len(p) for p in parts] == [4, 3, 4]  # floor 3, 3, 4; the remainder 1 goes first
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            parts = d.random_split(range(2), [0.5, 0.5, 0.0])
        assert [len(p) for p in parts] == [1, 1, 0] and "index 2 is 0" in str(w[0].message)
    run_same(lambda lib: data(lib).random_split(range(10), [3, 6]))
    run_same(lambda lib: data(lib).random_split(range(10), [1.2, -0.2]))


def test_random_split_same_generator_state_same_split():
    d = graphgrad.utils.data
    a = d.random_split(range(20), [5, 15], generator=graphgrad.Generator().manual_seed(3))
    b = d.random_split(range(20), [5, 15], generator=graphgrad.Generator().manual_seed(3))
    assert a[0].indices == b[0].indices


# ------------------------------------------------------------------ samplers
def test_sequential_and_batch_samplers():
    def prog(lib):
        d = data(lib)
        seq = d.SequentialSampler(range(10))
        return (list(seq), len(seq), list(d.BatchSampler(seq, 3, False)),
                list(d.BatchSampler(seq, 3, True)), len(d.BatchSampler(seq, 3, False)),
                len(d.BatchSampler(seq, 3, True)), list(d.BatchSampler([5, 1, 4], 2, False)))
    run_same(prog)


@pytest.mark.parametrize("args", [(0, False), (2.0, False), (True, False), (2, 1), (-1, True)])
def test_batch_sampler_bad_arguments(args):
    run_same(lambda lib: data(lib).BatchSampler(range(4), *args))


def test_random_sampler_permutations_and_generator():
    d = graphgrad.utils.data
    for lib in (graphgrad, torch):
        s = data(lib).RandomSampler(range(10))
        assert sorted(s) == list(range(10)) and len(s) == 10
        s = data(lib).RandomSampler(range(4), num_samples=10)
        out = list(s)
        assert len(out) == 10 and sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]
        s = data(lib).RandomSampler(range(5), replacement=True, num_samples=70)
        out = list(s)
        assert len(out) == 70 and set(out) <= set(range(5))
    g1, g2 = graphgrad.Generator().manual_seed(7), graphgrad.Generator().manual_seed(7)
    assert list(d.RandomSampler(range(50), generator=g1)) == \
        list(d.RandomSampler(range(50), generator=g2))
    run_same(lambda lib: data(lib).RandomSampler(range(3), replacement=1))
    run_same(lambda lib: data(lib).RandomSampler(range(3), num_samples=0))
    run_same(lambda lib: data(lib).RandomSampler([], num_samples=None))


def test_subset_random_and_weighted_samplers():
    for lib in (graphgrad, torch):
        d = data(lib)
        assert sorted(d.SubsetRandomSampler([3, 9, 4])) == [3, 4, 9]
        w = d.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 20)
        out = list(w)
        assert len(w) == 20 and set(out) <= {1, 3}
        w = d.WeightedRandomSampler([0.1, 0.0, 5.0], 2, replacement=False)
        assert sorted(w) == [0, 2]
        assert d.WeightedRandomSampler([1, 2], 3).weights.dtype == lib.float64
    run_same(lambda lib: data(lib).WeightedRandomSampler([1.0, 2.0], 0))
    run_same(lambda lib: data(lib).WeightedRandomSampler([1.0, 2.0], True))
    run_same(lambda lib: data(lib).WeightedRandomSampler([1.0, 2.0], 2, replacement=None))
    run_same(lambda lib: data(lib).WeightedRandomSampler([[1.0, 2.0]], 2))


# ------------------------------------------------------------------ collate
def test_default_collate_tensors_numbers_strings():
    def prog(lib):
        c = data(lib).default_collate
        return (c([lib.tensor([1., 2.]), lib.tensor([3., 4.])]), c([1, 2, 3]), c([1.5, 2.0]),
                c([True, False]), c(["a", "b"]), c([b"x", b"y"]),
                c([lib.tensor(1, dtype=lib.int8), lib.tensor(2, dtype=lib.int8)]))
    run_same(prog)


def test_default_collate_numpy():
    def prog(lib):
        c = data(lib).default_collate
        return (c([np.arange(3, dtype=np.float32), np.ones(3, np.float32)]),
                c([np.float32(1.5), np.float32(2)]), c([np.int16(3), np.int16(4)]),
                c([np.bool_(True), np.bool_(False)]), c([np.float64(1.0), np.float64(2.0)]),
                c([np.zeros((2, 2), np.int32)] * 3))
    run_same(prog)
    run_same(lambda lib: data(lib).default_collate([np.array(["a"]), np.array(["b"])]))


def test_default_collate_containers():
    def prog(lib):
        c = data(lib).default_collate
        t = lib.tensor
        return (c([(t([1.]), 2), (t([3.]), 4)]), c([[1, 2.5], [3, 4.5]]),
                c([{"x": t(1.), "y": "a"}, {"x": t(2.), "y": "b"}]),
                c([Point(1, t([2])), Point(3, t([4]))]),
                c([collections.OrderedDict(b=1, a=2.0)] * 2),
                c([[{"k": [1, 2]}], [{"k": [3, 4]}]]))
    ours, _ = run_same(prog)
    assert type(ours[3]) is Point and isinstance(ours[4], collections.OrderedDict)


def test_default_collate_errors():
    run_same(lambda lib: data(lib).default_collate([[1, 2], [3]]))
    run_same(lambda lib: data(lib).default_collate([object(), object()]))
    run_same(lambda lib: data(lib).default_collate([None, None]))
    run_same(lambda lib: data(lib).default_collate([lib.zeros(2), lib.zeros(3)]))


def test_default_convert():
    def prog(lib):
        cv = data(lib).default_convert
        return (cv(np.arange(3)), cv(np.float32(2)), cv(5), cv("s"),
                cv((np.ones(2), 1)), cv([np.zeros(1)]), cv({"a": np.int8(1)}),
                cv(Point(np.array(0), 2)), cv(lib.tensor([1.])))
    ours, _ = run_same(prog)
    assert isinstance(ours[2], int) and type(ours[7]) is Point
    arr = np.array(["a", "b"])
    assert graphgrad.utils.data.default_convert(arr) is arr


def test_collate_with_custom_fn_map():
    from graphgrad.utils.data._utils.collate import collate, default_collate_fn_map
    from torch.utils.data._utils.collate import collate as tcollate

    def prog(lib):
        fn_map = {float: lambda b, collate_fn_map: sum(b)}
        f = collate if lib is graphgrad else tcollate
        return f([(1.5, 2.5), (3.0, 4.0)], collate_fn_map=fn_map)
    run_same(prog)
    assert graphgrad.Tensor in default_collate_fn_map


# ------------------------------------------------------------------ DataLoader
def _ds(lib, n=10):
    return data(lib).TensorDataset(lib.arange(n * 2.).reshape(n, 2), lib.arange(n))


@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (10, False),
                                                  (4, True), (None, False)])
def test_loader_sequential_batches(batch_size, drop_last):
    def prog(lib):
        dl = data(lib).DataLoader(_ds(lib), batch_size=batch_size, drop_last=drop_last)
        return len(dl), list(dl)
    run_same(prog)


def test_loader_same_batches_given_same_sampler_indices():
    order = [7, 2, 9, 0, 4, 4, 1]

    def prog(lib):
        d = data(lib)
        by_sampler = list(d.DataLoader(_ds(lib), batch_size=3, sampler=order))
        by_batches = list(d.DataLoader(_ds(lib), batch_sampler=[[3, 1], [0], [9, 8, 7]]))
        no_batch = list(d.DataLoader(_ds(lib), batch_size=None, sampler=order[:2]))
        return by_sampler, by_batches, no_batch
    run_same(prog)


def test_loader_shuffle_is_a_permutation_and_reproducible():
    d = graphgrad.utils.data
    ds = _ds(graphgrad, 17)
    g = graphgrad.Generator().manual_seed(0)
    first = [b[1] for b in d.DataLoader(ds, batch_size=5, shuffle=True, generator=g)]
    assert [len(b) for b in first] == [5, 5, 5, 2]
    assert sorted(graphgrad.cat(first).tolist()) == list(range(17))
    g.manual_seed(0)
    again = [b[1] for b in d.DataLoader(ds, batch_size=5, shuffle=True, generator=g)]
    assert all(a.equal(b) for a, b in zip(first, again))
    graphgrad.manual_seed(3)
    x = [b[1].tolist() for b in d.DataLoader(ds, batch_size=4, shuffle=True)]
    graphgrad.manual_seed(3)
    assert x == [b[1].tolist() for b in d.DataLoader(ds, batch_size=4, shuffle=True)]


def test_loader_uses_getitems_and_collate_fn():
    class Batched(graphgrad.utils.data.Dataset):
        calls = []

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, idx):
            self.calls.append(list(idx))
            return [i * 10 for i in idx]

        def __len__(self):
            return 5

    dl = graphgrad.utils.data.DataLoader(Batched(), batch_size=2, collate_fn=lambda b: b)
    assert list(dl) == [[0, 10], [20, 30], [40]] and Batched.calls == [[0, 1], [2, 3], [4]]

    def prog(lib):
        return list(data(lib).DataLoader(Squares(5), batch_size=2, collate_fn=tuple))
    run_same(prog)


def test_loader_dict_and_plain_datasets():
    class Dicts:
        def __getitem__(self, i):
            return {"img": np.full((2, 2), i, np.float32), "label": i, "name": f"n{i}"}

        def __len__(self):
            return 5

    def prog(lib):
        return list(data(lib).DataLoader(Dicts(), batch_size=2)), \
            list(data(lib).DataLoader(Squares(4), batch_size=3))
    run_same(prog)


def test_loader_iterable_dataset():
    class Gen(graphgrad.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    class TGen(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    def prog(lib):
        cls = Gen if lib is graphgrad else TGen
        d = data(lib)
        return (list(d.DataLoader(cls(), batch_size=3)), len(d.DataLoader(cls(), batch_size=3)),
                list(d.DataLoader(cls(), batch_size=3, drop_last=True)),
                len(d.DataLoader(cls(), batch_size=3, drop_last=True)),
                list(d.DataLoader(cls(), batch_size=None))[:3])
    run_same(prog)
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        run_same(lambda lib, kw=kw: data(lib).DataLoader(Gen() if lib is graphgrad else TGen(),
                                                         **kw))


@pytest.mark.parametrize("kw", [
    {"sampler": [0, 1], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "drop_last": True},
    {"batch_sampler": [[0]], "shuffle": True},
    {"batch_size": None, "drop_last": True},
    {"num_workers": -1},
    {"timeout": -1},
    {"prefetch_factor": 2},
    {"persistent_workers": True},
    {"batch_size": 0},
    {"num_workers": 2, "prefetch_factor": -1},
    {"num_workers": 0, "multiprocessing_context": "fork"},
    {"num_workers": 2, "multiprocessing_context": "no-such-method"},
    {"num_workers": 2, "multiprocessing_context": 3},
])
def test_loader_bad_arguments(kw):
    run_same(lambda lib: data(lib).DataLoader(_ds(lib), **kw))


def test_loader_attributes_frozen_after_init():
    def prog(lib):
        dl = data(lib).DataLoader(_ds(lib), batch_size=2)
        dl.collate_fn = data(lib).default_collate   # allowed
        dl.batch_size = 4
    run_same(prog)


def test_loader_over_tensors_with_grad_and_training_loop():
    """A typical loop: the batches are stacked from a dataset of leaf tensors."""
    def prog(lib):
        lib.manual_seed(0)
        x = lib.linspace(-1, 1, 8, dtype=lib.float64).reshape(8, 1)
        y = 3 * x + 1
        w = lib.zeros(1, 1, dtype=lib.float64, requires_grad=True)
        for xb, yb in data(lib).DataLoader(data(lib).TensorDataset(x, y), batch_size=3):
            loss = ((xb @ w - yb) ** 2).mean()
            loss.backward()
            with lib.no_grad():
                w -= 0.1 * w.grad
                w.grad.zero_()
        return w
    run_same(prog)


def test_generator_consumption_matches_torch_pattern():
    """Each new iterator draws one number from the loader's generator (PyTorch's worker base
    seed), then the sampler draws its permutations from the same generator (PyTorch's
    RandomSampler draws a second, empty-sliced one when num_samples % n == 0)."""
    g = graphgrad.Generator().manual_seed(5)
    ds = _ds(graphgrad, 6)
    list(graphgrad.utils.data.DataLoader(ds, batch_size=6, shuffle=True, generator=g))
    g2 = graphgrad.Generator().manual_seed(5)
    graphgrad.empty((), dtype=graphgrad.int64).random_(generator=g2)
    graphgrad.randperm(6, generator=g2)
    graphgrad.randperm(6, generator=g2)
    assert g.get_state().equal(g2.get_state())


def test_tensor_dataset_batches_are_read_in_one_indexing_per_tensor():
    """A plain TensorDataset's batch is read with one index per tensor: the same batches
    (list type, values, dtypes, shapes) as stacking per-sample rows, and as torch's."""
    import numpy as np
    import torch

    class Rows(graphgrad.utils.data.TensorDataset):
        pass  # (a subclass takes the general per-sample path)

    x = np.arange(40.0).reshape(10, 4)
    y = np.arange(10) % 3
    s = np.arange(10.0)  # a 1-d tensor: its samples are 0-d
    sampler = [[3, 1, 4], [1, 5, 9], [2, 6]]

    def batches(lib, cls):
        ds = cls(lib.tensor(x, dtype=lib.float32), lib.tensor(y), lib.tensor(s))
        return list(lib.utils.data.DataLoader(ds, batch_sampler=sampler))

    fast = batches(graphgrad, graphgrad.utils.data.TensorDataset)
    slow = batches(graphgrad, Rows)
    ref = batches(torch, torch.utils.data.TensorDataset)
    for f, g, r in zip(fast, slow, ref):
        assert type(f) is type(g) is type(r) is list
        for a, b, c in zip(f, g, r):
            assert a.dtype == b.dtype and str(a.dtype)[10:] == str(c.dtype)[6:]
            assert a.shape == b.shape == c.shape
            assert np.array_equal(a.numpy(), b.numpy()) and np.array_equal(a.numpy(), c.numpy())
            assert a.is_contiguous() and not a.requires_grad
