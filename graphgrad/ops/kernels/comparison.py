"""NumPy kernels of the comparison family: comparisons, logical and bitwise ops,
isnan/isinf/isfinite, isclose, where.

Functions of ndarrays; the entries that use them are in ops/derivatives/comparison.py, the
public functions in ops/api/comparison.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.dtypes import scalar_type_name


def _complex_type_name(a, b):
    """PyTorch's name of the complex dtype ``a`` and ``b`` promote to, or None."""
    if getattr(a, "dtype", _REAL).kind != "c" and getattr(b, "dtype", _REAL).kind != "c" \
            and b.__class__ is not complex and a.__class__ is not complex:
        return None
    return scalar_type_name(np.result_type(a, b))


_REAL = np.dtype(np.float64)


def _logical_kernel(ufunc):
    return lambda a, b: ufunc(a, b)


def _bitwise_kernel(name, ufunc):
    def kernel(a, b):
        tn = _complex_type_name(a, b)
        if tn is not None:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{tn}\'')
        if (getattr(a, "dtype", None) is not None and a.dtype.kind == "f") or \
                (getattr(b, "dtype", None) is not None and b.dtype.kind == "f") or \
                isinstance(b, float):
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'Float\'')
        return ufunc(a, b)
    return kernel


def _bitwise_not_kernel(a):
    if a.dtype.kind not in "iub":
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for '
                                  f"'{scalar_type_name(a.dtype)}'")
    return np.invert(a)


# ------------------------------------------------------------------ isclose / allclose
def _isclose_kernel(a, b, rtol, atol, equal_nan):
    if a.dtype.kind == "b":
        return np.equal(a, b)
    if a.dtype.kind in "iu":  # exact integers: compare in float64 like PyTorch's double math
        a, b = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        # an infinite ``other`` makes the tolerance infinite: only equality counts there
        close = (np.abs(a - b) <= atol + rtol * np.abs(b)) & np.isfinite(b) | (a == b)
    if equal_nan:
        close = close | (np.isnan(a) & np.isnan(b))
    return close


# ------------------------------------------------------------------ where
def _where_kernel(cond, a, b):
    # a Python scalar operand (one at most: where() makes a pair of them a tensor) takes the
    # other operand's dtype, the result type: NumPy would promote bfloat16 and a float to
    # float64
    if a.__class__ is not np.ndarray:
        a = np.asarray(a, b.dtype)
    elif b.__class__ is not np.ndarray:
        b = np.asarray(b, a.dtype)
    return np.where(cond, a, b)
