"""``DistributedSampler``: each process of a distributed job reads its own share of the data
set, in PyTorch's exact index order (the shuffle is PyTorch's CPU ``randperm`` of a
generator seeded with ``seed + epoch``, reproduced here: MT19937 draws and the same swaps), so
a job switching between graphgrad and PyTorch sees the same samples on the same rank."""
from __future__ import annotations

import math

import numpy as np

from graphgrad import distributed as _dist

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _torch_randperm(n, seed):
    """PyTorch's ``torch.randperm(n, generator=torch.Generator().manual_seed(seed))`` on
    CPU: a Fisher-Yates pass swapping position i with i + (32-bit MT19937 draw mod n - i)."""
    mt = np.random.MT19937()
    mt._legacy_seeding(seed & 0xFFFFFFFF)   # PyTorch's mt19937(seed): init_genrand(low 32 bits)
    draws = mt.random_raw(max(n - 1, 0)).tolist()
    r = list(range(n))
    for i in range(n - 1):
        z = i + draws[i] % (n - i)
        r[i], r[z] = r[z], r[i]
    return r


class DistributedSampler(Sampler):
    """Indices ``rank, rank + num_replicas, ...`` of the (shuffled, padded or cut) index list:
    every replica gets ``ceil(len / num_replicas)`` samples (``drop_last``: the tail is
    dropped instead of padded with the first indices)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            num_replicas = _dist.get_world_size()
        if rank is None:
            rank = _dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        indices = _torch_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Reshuffle: the next iteration uses seed + epoch (call it before each epoch)."""
        self.epoch = epoch
