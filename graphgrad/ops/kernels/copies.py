"""NumPy kernels of the copies family: cat/stack per number of inputs, repeat, flip, roll.

Functions of ndarrays; the entries that use them are in ops/derivatives/copies.py, the
public functions in ops/api/copies.py.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import follow_layout


# ============================================================ cat / stack
def _contiguous(r):
    # NumPy's concatenate/stack follow their inputs' layout (transposed inputs give a
    # transposed result); PyTorch's cat and stack results are contiguous
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)


def _cat_kernel(*args):
    return _contiguous(np.concatenate(args[:-2], axis=args[-2]))


def _stack_kernel(*args):
    return _contiguous(np.stack(args[:-1], axis=args[-1]))


# ============================================================ repeat / tile / flip / roll
def _flip_kernel(a, dims):
    """A reversed copy laid out as PyTorch's flip lays it out: as its input (a transposed
    input gives a transposed result, whose view(-1) then fails as there)."""
    r = np.flip(a, dims).copy()
    if r.ndim > 1 and not a.flags.c_contiguous:
        return follow_layout(r, (a,))
    return r


def _roll_kernel(a, shifts, dims):
    if dims is None:
        return np.roll(a, shifts[0])  # over the flattened tensor
    return _contiguous(np.roll(a, shifts, dims))
