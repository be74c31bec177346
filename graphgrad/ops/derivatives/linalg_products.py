"""The table, linalg_products family: addmv, addr, baddbmm, addbmm (``beta * self + alpha *
product``) and linalg_cross.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/linalg_products.py, public functions in ops/api/linalg_products.py.  The rules
are derivatives.yaml's (``maybe_multiply(grad, beta.conj())`` for ``self``; an input
broadcast into the product gets its gradient summed back by the engine, as PyTorch's).
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from ..kernels.linalg_products import (
    _addbmm_kernel, _addmv_kernel, _addr_kernel, _baddbmm_kernel, _cross_kernel)


def _scaled(x, s):
    """PyTorch's maybe_multiply(x, conj(s)): no product when s is 1."""
    return x if s == 1 else x * F.conj(s)


def _self_term(self_t, self, beta, nd):
    return F.pad_batched(self_t, F.ndim(self), nd) * beta


def _outer(a, b):
    """Right-aligned outer product (a batched ``a`` or ``b`` keeps its leading dim)."""
    return F.unsqueeze(a, -1) * F.unsqueeze(b, -2)


# ====================================================================== addmv
def _addmv_jvp(self_t, mat_t, vec_t, self, mat, vec, beta, alpha):
    return _scaled(F.matmul(mat_t, vec) + F.matmul(mat, vec_t), alpha) + self_t * beta


def _addmv_batched_jvp(self_t, mat_t, vec_t, self, mat, vec, beta, alpha):
    return (_scaled(F.matmul(mat_t, vec) + F.matmul(vec_t, F.mT(mat)), alpha)
            + _self_term(self_t, self, beta, 1))


ADDMV = defop("addmv(self, mat, vec, *, beta, alpha)", _addmv_kernel, "AddmvBackward0",
              self=lambda grad, beta: _scaled(grad, beta),
              mat=lambda grad, vec, alpha: _scaled(_outer(grad, F.conj(vec)), alpha),
              vec=lambda grad, mat, alpha: _scaled(F.matmul(grad, F.conj(mat)), alpha),
              jvp=_addmv_jvp, batched_jvp=_addmv_batched_jvp)


# ====================================================================== addr
def _addr_jvp(self_t, vec1_t, vec2_t, self, vec1, vec2, beta, alpha):
    return (_scaled(_outer(vec1_t, vec2) + _outer(vec1, vec2_t), alpha)
            + _self_term(self_t, self, beta, 2))


ADDR = defop("addr(self, vec1, vec2, *, beta, alpha)", _addr_kernel, "AddrBackward0",
             promote=True,
             self=lambda grad, beta: _scaled(grad, beta),
             vec1=lambda grad, vec2, alpha: _scaled(F.matmul(grad, F.conj(vec2)), alpha),
             vec2=lambda grad, vec1, alpha: _scaled(F.matmul(F.mT(grad), F.conj(vec1)), alpha),
             jvp=_addr_jvp, batched_jvp=True)


# ====================================================================== baddbmm / addbmm
def _baddbmm_jvp(self_t, batch1_t, batch2_t, self, batch1, batch2, beta, alpha):
    return (_scaled(F.matmul(batch1_t, batch2) + F.matmul(batch1, batch2_t), alpha)
            + _self_term(self_t, self, beta, 3))


BADDBMM = defop("baddbmm(self, batch1, batch2, *, beta, alpha)", _baddbmm_kernel,
                "BaddbmmBackward0",
                self=lambda grad, beta: _scaled(grad, beta),
                batch1=lambda grad, batch2, alpha: _scaled(F.matmul(grad, F.mH(batch2)), alpha),
                batch2=lambda grad, batch1, alpha: _scaled(F.matmul(F.mH(batch1), grad), alpha),
                jvp=_baddbmm_jvp, batched_jvp=True)


def _addbmm_jvp(self_t, batch1_t, batch2_t, self, batch1, batch2, beta, alpha):
    p = F.matmul(batch1_t, batch2) + F.matmul(batch1, batch2_t)
    return _scaled(p.sum(-3), alpha) + _self_term(self_t, self, beta, 2)


ADDBMM = defop("addbmm(self, batch1, batch2, *, beta, alpha)", _addbmm_kernel,
               "AddbmmBackward0",
               self=lambda grad, beta: _scaled(grad, beta),
               batch1=lambda grad, batch2, alpha:
                   _scaled(F.matmul(F.unsqueeze(grad, -3), F.mH(batch2)), alpha),
               batch2=lambda grad, batch1, alpha:
                   _scaled(F.matmul(F.mH(batch1), F.unsqueeze(grad, -3)), alpha),
               jvp=_addbmm_jvp, batched_jvp=True)


# ====================================================================== cross
# dim is negative (counted from the end of the broadcast shape): batched tangents keep it
LINALG_CROSS = defop("linalg_cross(self, other, *, dim)", _cross_kernel, "LinalgCrossBackward0",
                     promote=True,
                     self=lambda grad, other, dim: F.linalg_cross(F.conj(other), grad, dim),
                     other=lambda grad, self, dim: F.linalg_cross(grad, F.conj(self), dim),
                     jvp=lambda self_t, other_t, self, other, dim:
                         F.linalg_cross(self_t, other, dim) + F.linalg_cross(self, other_t, dim),
                     batched_jvp=True)
