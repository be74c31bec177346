"""DataLoader(num_workers>0): worker processes against torch's (batch order, which worker made
each batch, get_worker_info, worker_init_fn, exceptions)."""
from __future__ import annotations

import pytest

import graphgrad
from tests.conftest import run_both

torch = pytest.importorskip("torch")


def data(lib):
    return lib.utils.data


class WhoMadeIt:
    """Sample i is (i, id of the worker that fetched it, number of workers)."""

    def __init__(self, lib, n=11):
        self.lib, self.n = lib, n

    def __getitem__(self, i):
        info = data(self.lib).get_worker_info()
        return i, (-1 if info is None else info.id), (0 if info is None else info.num_workers)

    def __len__(self):
        return self.n


def test_map_dataset_batches_in_sampler_order_round_robin_over_workers():
    def prog(lib):
        d = data(lib)
        dl = d.DataLoader(WhoMadeIt(lib), batch_size=2, num_workers=2,
                          sampler=[5, 3, 9, 0, 1, 10, 2, 4, 6, 7, 8])
        return list(dl), list(d.DataLoader(WhoMadeIt(lib), batch_size=None, num_workers=3,
                                           sampler=[4, 1, 2, 0]))
    run_both(prog)


def test_tensor_dataset_same_as_single_process():
    ds = graphgrad.utils.data.TensorDataset(graphgrad.arange(30.).reshape(10, 3),
                                            graphgrad.arange(10))
    one = list(graphgrad.utils.data.DataLoader(ds, batch_size=4, drop_last=True))
    two = list(graphgrad.utils.data.DataLoader(ds, batch_size=4, drop_last=True, num_workers=2,
                                               prefetch_factor=1))
    assert len(one) == len(two) == 2
    assert all(a.equal(b) for x, y in zip(one, two) for a, b in zip(x, y))


class Sharded:
    """An iterable dataset that shards itself by worker (PyTorch's documented pattern)."""

    def __init__(self, lib, n, uneven=False):
        self.lib, self.n, self.uneven = lib, n, uneven

    def __iter__(self):
        info = data(self.lib).get_worker_info()
        if info is None:
            return iter(range(self.n))
        stop = self.n if not (self.uneven and info.id == 1) else 3
        return iter(range(info.id, stop, info.num_workers))


def _iterable(lib, *args):
    base = data(lib).IterableDataset
    cls = type("ShardedIt", (Sharded, base), {})
    return cls(lib, *args)


@pytest.mark.parametrize("uneven", [False, True])
def test_iterable_dataset_interleaves_workers_like_torch(uneven):
    def prog(lib):
        d = data(lib)
        return (list(d.DataLoader(_iterable(lib, 13, uneven), batch_size=2, num_workers=2)),
                list(d.DataLoader(_iterable(lib, 13, uneven), batch_size=2, num_workers=2,
                                  drop_last=True)),
                list(d.DataLoader(_iterable(lib, 7, uneven), batch_size=None, num_workers=2)))
    run_both(prog)


def _init_fn(worker_id):
    info = graphgrad.utils.data.get_worker_info() or torch.utils.data.get_worker_info()
    info.dataset.tag = f"init{worker_id}"


class Tagged:
    tag = "none"

    def __getitem__(self, i):
        return self.tag

    def __len__(self):
        return 4


def test_worker_init_fn_and_worker_seeds():
    out = list(graphgrad.utils.data.DataLoader(Tagged(), batch_size=1, num_workers=2,
                                               worker_init_fn=_init_fn))
    assert out == [["init0"], ["init1"], ["init0"], ["init1"]]

    class Seeds:
        def __getitem__(self, i):
            info = graphgrad.utils.data.get_worker_info()
            return info.seed - graphgrad.initial_seed(), info.id, \
                graphgrad.rand(()).item()

        def __len__(self):
            return 2
    g = graphgrad.Generator().manual_seed(0)
    a = list(graphgrad.utils.data.DataLoader(Seeds(), batch_size=None, num_workers=2,
                                             generator=g))
    assert [x[0] for x in a] == [0, 0] and [x[1] for x in a] == [0, 1]
    assert a[0][2] != a[1][2]            # each worker has its own random stream
    g.manual_seed(0)
    b = list(graphgrad.utils.data.DataLoader(Seeds(), batch_size=None, num_workers=2,
                                             generator=g))
    assert a == b                        # ... reproducible from the loader's generator


class Failing:
    def __init__(self, exc):
        self.exc = exc

    def __getitem__(self, i):
        if i == 3:
            raise self.exc(f"bad sample {i}")
        return i

    def __len__(self):
        return 6


def test_worker_exception_is_reraised_with_its_type():
    def prog(lib):
        return list(data(lib).DataLoader(Failing(ValueError), batch_size=2, num_workers=2))
    ours, theirs = run_both(prog)
    assert "bad sample 3" in str(ours.exc) and "worker process" in str(ours.exc)
    for exc in (KeyError, IndexError):   # (torch's own check: the ValueError above)
        with pytest.raises(exc, match="bad sample 3"):
            list(graphgrad.utils.data.DataLoader(Failing(exc), batch_size=2, num_workers=2))


def test_breaking_out_early_and_persistent_workers_epochs():
    ds = graphgrad.utils.data.TensorDataset(graphgrad.arange(8))
    dl = graphgrad.utils.data.DataLoader(ds, batch_size=2, num_workers=2,
                                         persistent_workers=True)
    for _ in range(2):
        assert [b[0].tolist() for b in dl] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    it = iter(dl)
    assert next(it)[0].tolist() == [0, 1]
    del it                               # workers are shut down
    assert len(dl) == 4
