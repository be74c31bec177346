"""The table, comparison family: comparisons, logical and bitwise ops, isnan/isinf/isfinite,
isclose, where.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/comparison.py, public functions in ops/api/comparison.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..registry import POINTWISE, defop
from ..kernels.comparison import (_bitwise_kernel, _bitwise_not_kernel, _isclose_kernel,
                                  _logical_kernel, _where_kernel)


# ============================================================ comparisons and logical ops
# (no VJP: bool results that never require grad)
EQ = defop("eq(self, other)", np.equal, promote=True)
NE = defop("ne(self, other)", np.not_equal, promote=True)
LT = defop("lt(self, other)", np.less, promote=True)
LE = defop("le(self, other)", np.less_equal, promote=True)
GT = defop("gt(self, other)", np.greater, promote=True)
GE = defop("ge(self, other)", np.greater_equal, promote=True)

LOGICAL_AND = defop("logical_and(self, other)", _logical_kernel(np.logical_and))
LOGICAL_OR = defop("logical_or(self, other)", _logical_kernel(np.logical_or))
LOGICAL_XOR = defop("logical_xor(self, other)", _logical_kernel(np.logical_xor))
LOGICAL_NOT = defop("logical_not(self)", np.logical_not)

BITWISE_AND = defop("bitwise_and(self, other)", _bitwise_kernel("bitwise_and", np.bitwise_and),
                    promote=True)
BITWISE_OR = defop("bitwise_or(self, other)", _bitwise_kernel("bitwise_or", np.bitwise_or),
                   promote=True)
BITWISE_XOR = defop("bitwise_xor(self, other)", _bitwise_kernel("bitwise_xor", np.bitwise_xor),
                    promote=True)
BITWISE_NOT = defop("bitwise_not(self)", _bitwise_not_kernel)

ISNAN = defop("isnan(self)", np.isnan)
ISINF = defop("isinf(self)", np.isinf)
ISFINITE = defop("isfinite(self)", np.isfinite)


# ------------------------------------------------------------------ isclose / allclose
ISCLOSE = defop("isclose(self, other, *, rtol, atol, equal_nan)", _isclose_kernel)


# ------------------------------------------------------------------ where
WHERE = defop("where(condition, self, other)", _where_kernel, "WhereBackward0", promote=False,
              self=lambda grad, condition: F.where(condition, grad, 0.0),
              other=lambda grad, condition: F.where(condition, 0.0, grad),
              jvp=lambda condition, self_t, other_t: F.where(condition, self_t, other_t),
              batched_jvp=POINTWISE)
