"""How a batch is made from one item of the index sampler, in the main process and in
workers (PyTorch's ``torch.utils.data._utils.fetch``)."""
from __future__ import annotations

from ...._core.dtypes import int64
from ...._tensor.creation import tensor
from ..dataset import TensorDataset
from .collate import default_collate


class _Fetcher:
    """Turns one index (or list of indices) from the index sampler into a batch."""

    def __init__(self, dataset, iterable, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.iterable = iterable
        self.auto = auto_collation
        self.collate = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset) if iterable else None
        self.ended = False

    def fetch(self, index):
        if self.iterable:
            if self.ended:
                raise StopIteration
            if not self.auto:
                return self.collate(next(self.dataset_iter))
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
            return self.collate(data)
        ds = self.dataset
        if self.auto:
            if ds.__class__ is TensorDataset and self.collate is default_collate:
                batch = _tensor_dataset_batch(ds, index)
                if batch is not None:
                    return batch
            getitems = getattr(ds, "__getitems__", None)
            data = getitems(index) if getitems else [ds[i] for i in index]
        else:
            data = ds[index]
        return self.collate(data)


def _tensor_dataset_batch(ds, index):
    """``default_collate([ds[i] for i in index])`` of a plain TensorDataset in one indexing
    per tensor: the same list of stacked rows (values, dtypes, shapes), without a Python
    call and a view per sample and tensor.  None (the general path) when a tensor
    requires grad, whose batch would record the stack."""
    tensors = ds.tensors
    for t in tensors:
        if t.requires_grad:
            return None
    idx = tensor(index, dtype=int64)
    return [t[idx] for t in tensors]
