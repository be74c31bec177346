"""NumPy kernels of the copies family: cat/stack per number of inputs, repeat, flip, roll.

Functions of ndarrays; the entries that use them are in ops/derivatives/copies.py, the
public functions in ops/api/copies.py.
"""
from __future__ import annotations

import numpy as np


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
def _roll_kernel(a, shifts, dims):
    if dims is None:
        return np.roll(a, shifts[0])  # over the flattened tensor
    return _contiguous(np.roll(a, shifts, dims))
