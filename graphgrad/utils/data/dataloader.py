"""``DataLoader``: PyTorch's ``torch.utils.data.DataLoader`` in the main process.

A map-style dataset is read through its batch sampler (``dataset.__getitems__(indices)``
when defined, else ``[dataset[i] for i in indices]``) and each list of samples goes through
``collate_fn``; an iterable dataset is read ``batch_size`` samples at a time.  Only
``num_workers=0`` is supported (graphgrad does no multi-process loading: a clear ValueError
otherwise; see docs/differences.md).  ``pin_memory`` is accepted and ignored (CPU only).
"""
from __future__ import annotations

import math
import warnings

import graphgrad

from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """Information about the current loader worker: None in the main process (graphgrad
    loads in the main process only)."""
    return None


class _InfiniteConstantSampler(Sampler):
    """None forever: the index sampler of an iterable dataset."""

    def __iter__(self):
        while True:
            yield None


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


class DataLoader:
    """Iterate over ``dataset`` in batches (see the module docstring)."""

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if num_workers > 0:
            raise ValueError(
                f"DataLoader(num_workers={num_workers}): graphgrad loads data in the main "
                "process only; use num_workers=0 (graphgrad's tensors are NumPy arrays, so "
                "loading is rarely the bottleneck)")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise ValueError("multiprocessing_context can only be used with multi-process "
                             "loading (num_workers > 0), but got num_workers=0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        self._initialized = True

    def __setattr__(self, name, value):
        if self._initialized and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        object.__setattr__(self, name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        if self._dataset_kind == "iterable":
            n = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        pass


class _SingleProcessDataLoaderIter:
    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._auto = loader._auto_collation
        self._collate = loader.collate_fn
        self._drop_last = loader.drop_last
        self._iterable = loader._dataset_kind == "iterable"
        self._len_called = loader._IterableDataset_len_called
        # PyTorch draws a base seed for workers from the loader's generator on each new
        # iterator; drawing it here too keeps the generator's consumption the same
        graphgrad.empty((), dtype=graphgrad.int64).random_(generator=loader.generator)
        self._sampler_iter = iter(loader._index_sampler)
        self._dataset_iter = iter(self._dataset) if self._iterable else None
        self._ended = False
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader._index_sampler)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto:
            return self._collate(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not data or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate(data)

    def _fetch_map(self, index):
        ds = self._dataset
        if self._auto:
            getitems = getattr(ds, "__getitems__", None)
            data = getitems(index) if getitems else [ds[i] for i in index]
        else:
            data = ds[index]
        return self._collate(data)

    def __next__(self):
        index = next(self._sampler_iter)
        data = self._fetch_iterable(index) if self._iterable else self._fetch_map(index)
        self._num_yielded += 1
        if self._iterable and self._len_called is not None \
                and self._num_yielded > self._len_called:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._len_called}(when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data

    def __getstate__(self):
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")
