"""Collate functions (PyTorch's ``torch.utils.data._utils.collate``): ``default_collate``
merges a list of samples into a batch -- tensors are stacked along a new first dimension,
NumPy arrays and scalars become tensors, Python floats a float64 tensor, ints an int64 (bools
a bool) tensor, strings stay a list, and mappings / namedtuples / sequences are collated
field by field.  ``default_convert`` converts one sample's NumPy arrays to tensors."""
from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

import graphgrad

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "default_collate_err_msg_format"]

_STR_OR_OBJECT = re.compile(r"[SaUO]")   # NumPy dtype codes default_collate cannot stack

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data):
    """NumPy arrays/scalars in ``data`` (recursively through mappings, namedtuples and
    sequences) become tensors; everything else is returned as is.  Tuples become lists."""
    t = type(data)
    if isinstance(data, graphgrad.Tensor):
        return data
    if t.__module__ == "numpy" and t.__name__ not in ("str_", "string_", "bytes_"):
        if t.__name__ == "ndarray" and _STR_OR_OBJECT.search(data.dtype.str):
            return data
        return graphgrad.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {k: default_convert(data[k]) for k in data}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update(converted)
                return clone
            return t(converted)
        except TypeError:
            return converted
    if _is_namedtuple(data):
        return t(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return t([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples): an element type found in ``collate_fn_map``
    (exactly, then by isinstance in insertion order) is handled by its function; mappings,
    namedtuples and sequences are collated per field; anything else is a TypeError."""
    elem = batch[0]
    t = type(elem)
    if collate_fn_map is not None:
        if t in collate_fn_map:
            return collate_fn_map[t](batch, collate_fn_map=collate_fn_map)
        for key in collate_fn_map:
            if isinstance(elem, key):
                return collate_fn_map[key](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        def fields():
            return {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                    for k in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields())
                return clone
            return t(fields())
        except TypeError:
            return fields()
    if _is_namedtuple(elem):
        return t(*(collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if not all(len(e) == n for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size "
                               f"(got lengths {[len(e) for e in batch]})")
        columns = [list(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return [collate(s, collate_fn_map=collate_fn_map) for s in columns]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, s in enumerate(columns):
                    clone[i] = collate(s, collate_fn_map=collate_fn_map)
                return clone
            return t([collate(s, collate_fn_map=collate_fn_map) for s in columns])
        except TypeError:
            return [collate(s, collate_fn_map=collate_fn_map) for s in columns]
    raise TypeError(default_collate_err_msg_format.format(t))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return graphgrad.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _STR_OR_OBJECT.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([graphgrad.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return graphgrad.as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return graphgrad.tensor(batch, dtype=graphgrad.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return graphgrad.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    graphgrad.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Merge a list of samples into a batch (see the module docstring), as PyTorch's
    ``default_collate``."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
