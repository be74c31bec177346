"""DistributedSampler: PyTorch's index order (shuffle with seed + epoch, padding,
drop_last), checked against torch's sampler; no MPI needed."""
from __future__ import annotations

import pytest

import graphgrad
from graphgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


@pytest.mark.parametrize("n", [0, 1, 7, 10, 33, 1000])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_same_indices_as_pytorch(n, replicas, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for shuffle in (False, True):
        for seed, epoch in ((0, 0), (5, 3), (2 ** 32 + 7, 1)):
            for rank in range(replicas):
                ours = DistributedSampler(range(n), replicas, rank, shuffle, seed, drop_last)
                theirs = TorchSampler(range(n), replicas, rank, shuffle, seed, drop_last)
                ours.set_epoch(epoch)
                theirs.set_epoch(epoch)
                assert list(ours) == list(theirs)
                assert len(ours) == len(theirs)
                assert (ours.num_samples, ours.total_size) == (theirs.num_samples,
                                                               theirs.total_size)


def test_invalid_rank_as_pytorch():
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for rank in (-1, 2):
        with pytest.raises(ValueError) as ours:
            DistributedSampler(range(4), 2, rank)
        with pytest.raises(ValueError) as theirs:
            TorchSampler(range(4), 2, rank)
        assert str(ours.value) == str(theirs.value)


def test_without_process_group_names_init():
    with pytest.raises(ValueError, match="init_process_group"):
        DistributedSampler(range(4))


def test_epochs_partition_the_data_and_feed_a_loader():
    ds = TensorDataset(graphgrad.arange(10))
    seen = []
    for rank in range(2):
        s = DistributedSampler(ds, num_replicas=2, rank=rank, seed=1)
        s.set_epoch(2)
        for (batch,) in DataLoader(ds, batch_size=3, sampler=s):
            seen += batch.tolist()
    assert sorted(seen) == list(range(10))
