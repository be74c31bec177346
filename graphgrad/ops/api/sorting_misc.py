"""unique / unique_consecutive, bincount, searchsorted / bucketize, count_nonzero, histc /
histogram: counting and sorting helpers whose integer results take no gradient.

Result dtypes as PyTorch's: int64 indices and counts (int32 with ``out_int32=True``);
bincount's counts are int64, its weighted sums float32 for float32 weights, else float64;
histc / histogram keep the input's float dtype.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from ... import return_types
from ..._tensor.tensor import Tensor
from ..dispatch import dispatch
from ..registry import export
from .reductions import _check_tensor, _dims, _one_dim, _out
from ..derivatives.stats import UNIQUE2, UNIQUE_CONSECUTIVE, UNIQUE_DIM


def _wrap(arr):
    arr = np.asarray(arr)
    return Tensor._wrap(arr if arr.flags.c_contiguous else arr.copy())


def _pick(r, return_inverse, return_counts):
    if not return_inverse and not return_counts:
        return r[0]
    out = (r[0],)
    if return_inverse:
        out += (r[1],)
    if return_counts:
        out += (r[2],)
    return out


# ------------------------------------------------------------------ unique
@export()
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The unique elements (sorted), optionally with the inverse indices and the counts;
    with ``dim``, the unique slices along ``dim``."""
    _check_tensor("unique", input)
    if input._data.dtype.kind == "c":
        raise RuntimeError(f"unique(): not implemented for '{input.dtype}' (complex numbers "
                           "have no order; use unique on .real and .imag)")
    if dim is None:
        r = dispatch(UNIQUE2, input, bool(sorted), bool(return_inverse), bool(return_counts))
    else:
        nd = input._data.ndim
        d = _one_dim("unique", dim, nd)
        if nd == 0:
            raise IndexError(f"unique(): dim {dim} is out of range for a 0-d tensor (use "
                             "dim=None)")
        if input._data.shape[d] == 0 and input._data.size == 0 and \
                any(s == 0 for i, s in enumerate(input._data.shape) if i != d):
            raise RuntimeError(f"Number of zero sized dimensions is more than one, so unique "
                               f"cannot be applied (shape {list(input._data.shape)})")
        r = dispatch(UNIQUE_DIM, input, d, bool(sorted), bool(return_inverse),
                     bool(return_counts))
    return _pick(r, return_inverse, return_counts)


@export()
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Eliminates all but the first element of every run of equal consecutive elements (or
    slices along ``dim``); optionally the inverse indices and the run lengths."""
    _check_tensor("unique_consecutive", input)
    d = None
    if dim is not None:
        nd = input._data.ndim
        if nd == 0:
            raise IndexError(f"unique_consecutive(): dim {dim} is out of range for a 0-d "
                             "tensor (use dim=None)")
        d = _one_dim("unique_consecutive", dim, nd)
    r = dispatch(UNIQUE_CONSECUTIVE, input, bool(return_inverse), bool(return_counts), d)
    return _pick(r, return_inverse, return_counts)


# ------------------------------------------------------------------ bincount
@export()
def bincount(input, weights=None, minlength=0):
    """How many times each non-negative integer occurs in the 1-d ``input`` (or the sum of
    its ``weights``), at least ``minlength`` bins."""
    _check_tensor("bincount", input)
    a = input._data
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{str(input.dtype).split('.')[-1].capitalize()}' "
                                  "(bincount counts integers: convert with .long())")
    if isinstance(minlength, bool) or not isinstance(minlength, numbers.Integral):
        raise TypeError(f"bincount(): argument 'minlength' must be int, not "
                        f"{type(minlength).__name__}")
    if minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be >= 0 (got {minlength})")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs (got "
                           f"shape {list(a.shape)}{', with negative values' if a.ndim == 1 else ''})")
    if weights is None:
        return _wrap(np.bincount(a.astype(np.int64), minlength=int(minlength)).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError(f"bincount(): weights should be 1-d and have the same length as "
                           f"input (got weights {list(w.shape)}, input {list(a.shape)})")
    dt = np.float32 if w.dtype == np.float32 else np.float64
    r = np.bincount(a.astype(np.int64), weights=w.astype(np.float64), minlength=int(minlength))
    return _wrap(r.astype(dt))


# ------------------------------------------------------------------ searchsorted / bucketize
def _as_values(name, v, like):
    if isinstance(v, Tensor):
        return v._data, False
    if isinstance(v, (bool, numbers.Number)):
        return np.asarray(v, dtype=np.result_type(like.dtype, np.asarray(v).dtype)
                          if like.dtype.kind != "b" else None), True
    raise TypeError(f"{name}(): argument 'input' must be Tensor or Number, not "
                    f"{type(v).__name__}")


def _search(name, seq, values, right, sorter, out_int32):
    s = seq if sorter is None else np.take_along_axis(seq, sorter, axis=-1)
    side = "right" if right else "left"
    if s.ndim == 1:
        r = np.searchsorted(s, values, side=side)
    else:
        lead = s.shape[:-1]
        s2 = s.reshape(-1, s.shape[-1])
        v2 = values.reshape(s2.shape[0], -1)
        r = np.stack([np.searchsorted(s2[i], v2[i], side=side) for i in range(s2.shape[0])]) \
            if s2.shape[0] else np.zeros(v2.shape, np.int64)
        r = r.reshape(values.shape)
        del lead
    return _wrap(np.asarray(r, np.int32 if out_int32 else np.int64))


@export(method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where the ``input`` values would be inserted into the innermost dim of
    ``sorted_sequence`` to keep it sorted (``right``/``side='right'``: after equal values)."""
    if not isinstance(sorted_sequence, Tensor):
        raise TypeError(f"searchsorted(): argument 'sorted_sequence' (position 1) must be "
                        f"Tensor, not {type(sorted_sequence).__name__}")
    seq = sorted_sequence._data
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == "right"
    vals, scalar = _as_values("searchsorted", input, seq)
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           "tensor must match, but we got a 0-d boundaries tensor")
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != vals.shape[:-1] or vals.ndim != seq.ndim):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
    srt = None
    if sorter is not None:
        srt = sorter._data
        if srt.dtype != np.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype "
                               f"but got dtype {sorter.dtype}")
        if srt.shape != seq.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(seq.shape)} and got "
                               f"sorter tensor {list(srt.shape)}")
        if srt.size and (srt.min() < 0 or srt.max() >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    return _out(_search("searchsorted", seq, vals, right, srt, out_int32), out)


@export(method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The index of the bucket of each ``input`` value, by the 1-d sorted ``boundaries``
    (``right=False``: boundaries[i-1] < x <= boundaries[i])."""
    if not isinstance(boundaries, Tensor):
        raise TypeError(f"bucketize(): argument 'boundaries' (position 2) must be Tensor, not "
                        f"{type(boundaries).__name__}")
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension but got dim("
                           f"{boundaries._data.ndim})")
    vals, _ = _as_values("bucketize", input, boundaries._data)
    return _out(_search("bucketize", boundaries._data, vals, right, None, out_int32), out)


# ------------------------------------------------------------------ count_nonzero
@export()
def count_nonzero(input, dim=None):
    """The number of non-zero elements, in all or along ``dim`` (int or tuple); int64."""
    _check_tensor("count_nonzero", input)
    a = input._data
    dims = None if dim is None else _dims(dim, a.ndim)
    return _wrap(np.asarray(np.count_nonzero(a, axis=dims), np.int64))


# ------------------------------------------------------------------ histc / histogram
def _float_input(name, input):
    _check_tensor(name, input)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{str(input.dtype).split('.')[-1].capitalize()}' (convert "
                                  "the input to a floating dtype first)")


@export()
def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A002
    """Histogram of ``bins`` equal bins between ``min`` and ``max`` (both 0: the data's
    minimum and maximum); elements outside are ignored."""
    _float_input("histogram_cpu", input)
    a = input._data
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} "
                           f"max {hi}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc(): range of [{lo}, {hi}] is not finite")
    counts, _ = np.histogram(a.reshape(-1), bins=int(bins), range=(lo, hi))
    return _out(_wrap(counts.astype(a.dtype)), out)


@export()
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """Named tuple (hist, bin_edges): ``bins`` equal bins over ``range`` (default: the
    data's), or the given 1-d tensor of edges; optional ``weight``, ``density``."""
    _float_input("histogram_cpu", input)
    a = input._data
    if isinstance(bins, Tensor):
        if bins._data.ndim != 1:
            raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension, but "
                               f"got {bins._data.ndim} dimensions")
        if bins.dtype != input.dtype:
            raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the "
                               f"same dtype, but got input {input.dtype} and bins {bins.dtype}")
        b = bins._data.astype(a.dtype)
        if range is not None:
            raise TypeError("histogram(): range cannot be given with a tensor of bin edges")
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               f"dimension 0")
        b = int(bins)
    w = None if weight is None else weight._data.reshape(-1)
    if w is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"torch.histogram: if weight tensor is provided, input tensor and "
                           f"weight tensor should have the same dtype, but got input "
                           f"{input.dtype}, and weight {weight.dtype}")
    if w is not None and weight._data.shape != a.shape:
        raise RuntimeError(f"torch.histogram(): if weight tensor is provided it should have the "
                           f"same shape as the input tensor excluding its innermost dimension, "
                           f"but got input shape {list(a.shape)} and weight shape "
                           f"{list(weight._data.shape)}")
    rng = None
    if not isinstance(b, np.ndarray):
        if range is not None:
            rng = (float(range[0]), float(range[1]))
        elif a.size:
            rng = (float(a.min()), float(a.max()))
        else:
            rng = (0.0, 1.0)
        if rng[0] == rng[1]:
            rng = (rng[0] - 0.5, rng[1] + 0.5)    # (NumPy's and PyTorch's widening)
        if rng[0] > rng[1]:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min "
                               f"{rng[0]} max {rng[1]}")
        if not (np.isfinite(rng[0]) and np.isfinite(rng[1])):
            lo, hi = (f"{v:g}" for v in rng)
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo}, {hi}] is not "
                               "finite (give histogram a finite range=, or drop the non-finite "
                               "values)")
    hist, edges = np.histogram(a.reshape(-1), bins=b, range=rng, weights=w, density=bool(density))
    r = return_types.histogram(_wrap(hist.astype(a.dtype)), _wrap(edges.astype(a.dtype)))
    return _out(r, out)


@export(method=False)
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    """The D-dimensional histogram of the points in the rows of ``input`` (``(..., D)``):
    named tuple (hist, bin_edges) with a tuple of D edge tensors.  ``bins``: an int, D ints,
    or D 1-d tensors of edges; ``range``: 2*D floats (min, max of each dim)."""
    _float_input("histogramdd", input)
    a = input._data
    if a.ndim < 2:
        raise RuntimeError(f"torch.histogramdd: input tensor should have at least 2 "
                           f"dimensions, but got {a.ndim}")
    D = a.shape[-1]
    pts = a.reshape(-1, D)
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        b = [int(bins)] * D
    else:
        b = list(bins)
        if len(b) != D:
            raise RuntimeError(f"torch.histogramdd: expected {D} sequences of bin edges (one "
                               f"for each of the {D} dimensions of the input), but got "
                               f"{len(b)}")
        for x in b:
            if isinstance(x, Tensor) and x.dtype != input.dtype:
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should "
                                   f"have the same dtype, but got input {input.dtype} and "
                                   f"bins {x.dtype}")
        b = [x._data.astype(a.dtype) if isinstance(x, Tensor) else int(x) for x in b]
    for x in b:
        if not isinstance(x, np.ndarray) and x <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {x}")
    rng = None
    if range is not None:
        r = [float(v) for v in range]
        if len(r) != 2 * D:
            raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram, range "
                               f"should have {2 * D} elements, but got {len(r)}")
        rng = [(r[2 * i], r[2 * i + 1]) for i in builtins.range(D)]
    w = None
    if weight is not None:
        if weight.dtype != input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor "
                               f"and weight tensor should have the same dtype, but got input "
                               f"{input.dtype}, and weight {weight.dtype}")
        if tuple(weight._data.shape) != a.shape[:-1]:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should "
                               f"have the same shape as the input tensor excluding its "
                               f"innermost dimension, but got input shape {list(a.shape)} "
                               f"and weight shape {list(weight._data.shape)}")
        w = weight._data.reshape(-1).astype(np.float64)
    hist, edges = np.histogramdd(pts.astype(np.float64), bins=b, range=rng, weights=w,
                                 density=bool(density))
    return return_types.histogramdd(_wrap(hist.astype(a.dtype)),
                                    tuple(_wrap(e.astype(a.dtype)) for e in edges))
