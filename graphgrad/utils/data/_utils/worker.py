"""What runs in a DataLoader worker process (PyTorch's ``torch.utils.data._utils.worker``):
``get_worker_info()`` and the loop that turns index lists into batches."""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback

import numpy as np

from ...._tensor.random import manual_seed
from .fetch import _Fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

_POLL_SECONDS = 1.0
_worker_info = None


class WorkerInfo:
    """``id``, ``num_workers``, ``seed`` and ``dataset`` (this worker's copy) of the
    current DataLoader worker process."""

    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


def get_worker_info():
    """The current worker's ``WorkerInfo`` inside a DataLoader worker process; None in the
    main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback and
    re-raised there with the same type."""

    def __init__(self, where):
        exc_type, exc, _ = sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(*sys.exc_info()))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:   # an exception type whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise exc


class KeyErrorMessage(str):
    """KeyError quotes its message; this keeps the traceback readable."""

    def __repr__(self):
        return self


class IterableDatasetStopIteration:
    def __init__(self, worker_id):
        self.worker_id = worker_id


def worker_loop(iterable, dataset, index_queue, data_queue, done_event, auto_collation,
                collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        np.random.seed((seed ^ (worker_id << 32)) % (2 ** 32))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _Fetcher(dataset, iterable, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        ended = False
        parent = os.getppid()
        while True:
            try:
                r = index_queue.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if os.getppid() != parent:   # the main process is gone
                    break
                continue
            if r is None:
                break
            if done_event.is_set() or ended:
                continue
            idx, index = r
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not iterable:
                        data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                    else:
                        data = IterableDatasetStopIteration(worker_id)
                        ended = True
                except Exception:
                    data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
