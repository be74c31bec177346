"""The table, linalg_ldl family: ldl_factor_ex and ldl_solve.  PyTorch has no derivative
for either: a ``torch::autograd::NotImplemented`` node whose backward raises.

Kernels in ops/kernels/linalg_ldl.py, public functions in ops/api/linalg_ldl.py.
"""
from __future__ import annotations

from ..registry import defop
from ..kernels.linalg_ldl import _ldl_factor_kernel, _ldl_solve_kernel


def _no_derivative(name):
    def rule(grad):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return rule


def _no_derivative_many(name):
    def rule(grads):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return rule


LDL_FACTOR = defop("linalg_ldl_factor_ex(self, *, hermitian)", lambda a, hermitian:
                   _ldl_factor_kernel(a), "NotImplemented", n_outputs=3,
                   nondiff_outputs=(1, 2),
                   self=_no_derivative_many("linalg_ldl_factor_ex"))
LDL_SOLVE = defop("linalg_ldl_solve(LD, pivots, B, *, hermitian)",
                  lambda LD, pivots, B, hermitian: _ldl_solve_kernel(LD, pivots, B),
                  "NotImplemented", LD=_no_derivative("linalg_ldl_solve"),
                  B=_no_derivative("linalg_ldl_solve"))
