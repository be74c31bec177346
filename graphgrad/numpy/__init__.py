"""graphgrad.numpy: NumPy's namespace over graphgrad Tensors, for HIPS autograd's users.

``import graphgrad.numpy as np`` and write NumPy: called with NumPy/Python data every
function returns exactly what NumPy returns; once an argument is a graphgrad Tensor (as
inside ``graphgrad.func.grad``), the covered functions compute with graphgrad's ops --
differentiable in reverse and forward mode, under vmap and every func transform -- with
NumPy's conventions (``axis=``, ``keepdims=``, ``ddof=``, NumPy's type promotion).

- Families: ufuncs (_ufuncs), reductions (_reductions), shapes/joining/splitting
  (_shape), products (_products), ``linalg``, ``fft`` (NumPy data only), ``random``
  (``numpy.random`` itself).
- Functions whose results have no gradient (``shape``, ``ndim``, ``argmax``,
  ``zeros_like``, ``allclose``, ...) read a Tensor's data and return NumPy's result.
- Any other NumPy function, constant and type passes through: constants and types as
  they are (``np.pi``, ``np.float64``, ``np.newaxis``), functions to NumPy for NumPy data,
  and on a Tensor they raise NotImplementedError (never a silently dropped gradient).

docs/func.md ("graphgrad.numpy") lists what is covered; docs/differences.md the gaps.
"""
from __future__ import annotations

import numpy as _np

from . import fft, linalg, random  # noqa: F401
from ._composite import *  # noqa: F401,F403
from ._composite import __all__ as _composite_all
from ._core import nondifferentiable as _nondifferentiable
from ._core import numpy_only as _numpy_only
from ._products import *  # noqa: F401,F403
from ._products import __all__ as _products_all
from ._reductions import *  # noqa: F401,F403
from ._reductions import __all__ as _reductions_all
from ._shape import *  # noqa: F401,F403
from ._shape import __all__ as _shape_all
from ._ufuncs import *  # noqa: F401,F403
from ._ufuncs import __all__ as _ufuncs_all

__version__ = _np.__version__

# results without a gradient: NumPy's function on the Tensors' data
NONDIFFERENTIABLE = (
    "shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj", "iscomplex",
    "isreal", "isscalar", "argmax", "argmin", "argsort", "argpartition", "argwhere",
    "nonzero", "flatnonzero", "count_nonzero", "searchsorted", "all", "any", "allclose",
    "isclose", "array_equal", "array_equiv", "zeros_like", "ones_like", "empty_like",
    "full_like", "isneginf", "isposinf", "min_scalar_type", "can_cast", "shares_memory",
    "may_share_memory", "isfortran", "digitize", "iterable", "ndenumerate",
)
for _n in NONDIFFERENTIABLE:
    globals()[_n] = _nondifferentiable(getattr(_np, _n))

COVERED = tuple(sorted(set(_products_all + _reductions_all + _shape_all + _ufuncs_all +
                          _composite_all)))
__all__ = list(COVERED) + list(NONDIFFERENTIABLE) + ["fft", "linalg", "random"]


def __getattr__(name):
    """NumPy's other names: constants and types as they are; functions NumPy-only (they
    raise NotImplementedError on a Tensor)."""
    try:
        obj = getattr(_np, name)
    except AttributeError:
        raise AttributeError(f"module 'graphgrad.numpy' has no attribute {name!r} (nor has "
                             "numpy)") from None
    if callable(obj) and not isinstance(obj, type) and not hasattr(obj, "__array_interface__"):
        obj = _numpy_only(obj, name)
    globals()[name] = obj
    return obj
