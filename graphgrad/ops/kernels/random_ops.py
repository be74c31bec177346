"""NumPy kernels of the random_ops family: in-place sampling: uniform_, normal_, bernoulli_,
....

Functions of ndarrays; the entries that use them are in ops/derivatives/random_ops.py, the
public functions in ops/api/random_ops.py.
"""
from __future__ import annotations


def _draw_kernel(*args):
    return args[-1](*args[:-1])
