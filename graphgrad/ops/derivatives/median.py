"""The table, median family: median / nanmedian, whole tensor or along a dim.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/median.py, public functions in ops/api/median.py.
"""
from __future__ import annotations

from ._reduction_rules import _even_backward, _even_jvp, _select_backward, _select_jvp
from ..registry import defop
from ..kernels.median import _dim_kernel, _whole_kernel


# ================================== median / nanmedian (the rules are reductions' selection rules)
def _whole_op(name, node, ignore_nan):
    return defop(f"{name}(self)", _whole_kernel(ignore_nan), node,
                 self=lambda grad, self, result:
                     _even_backward(grad, self, result, None, False, True),
                 jvp=lambda self_t, self, result:
                     _even_jvp(self_t, self, result, None, False),
                 batched_jvp=True)


def _dim_op(name, node, ignore_nan):
    return defop(f"{name}.dim(self, *, dim, keepdim)", _dim_kernel(ignore_nan), node,
                 n_outputs=2, nondiff_outputs=(1,),
                 self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                     _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                 jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                     (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                 batched_jvp=True)


MEDIAN = _whole_op("median", "MedianBackward0", False)
NANMEDIAN = _whole_op("nanmedian", "NanmedianBackward0", True)
MEDIAN_DIM = _dim_op("median", "MedianBackward1", False)
NANMEDIAN_DIM = _dim_op("nanmedian", "NanmedianBackward1", True)
