"""vmap's batching rules of the ``beta * self + alpha * product`` ops (addmv, addr, baddbmm,
addbmm): the product of the physical operands (batch dim in front, broadcast by matmul),
then ``self`` aligned after the batch dim."""
from __future__ import annotations

from ..ops.api.linalg import matmul
from ._batching import _align, _phys, _run, _wrap


def _product_rule(product, out_rank):
    def rule(op, kind, sig, nt, lv):
        if kind != "out":
            return NotImplemented
        level = lv.level
        phys = [_phys(sig[i], level) for i in range(3)]
        a = sig[1] if phys[1] is None else phys[1]
        b = sig[2] if phys[2] is None else phys[2]
        beta, alpha = sig[3], sig[4]
        r = product(a, b)
        if alpha != 1:
            r = r * alpha
        if beta != 0:
            s = sig[0]
            if phys[0] is not None:
                s = _align(phys[0], s._data.ndim, out_rank)
            r = r + (s if beta == 1 else s * beta)
        if r.ndim == out_rank:  # only an ignored self (beta 0) was batched
            size = next(p.shape[0] for p in phys if p is not None)
            r = r.unsqueeze(0).expand((size,) + tuple(r.shape))
        return _wrap(r.contiguous(), level)
    return rule


def _mv(a, v):
    return matmul(a, v.unsqueeze(-1)).squeeze(-1)


def _outer(u, v):
    return u.unsqueeze(-1) * v.unsqueeze(-2)


RULES = {
    "addmv": _product_rule(_mv, 1),
    "addr": _product_rule(_outer, 2),
    "baddbmm": _product_rule(matmul, 3),
    "addbmm": _product_rule(lambda a, b: matmul(a, b).sum(-3), 2),
}


# ---------------------------------------------------------------- solves with pivots
def _pivoted_solve(op, kind, sig, nt, lv):
    """lu_solve / ldl_solve (LU, pivots, B, ...): LU and B aligned to one logical rank after
    the batch dim (their batch dims broadcast), the pivots to that rank less one."""
    if kind != "out":
        return NotImplemented
    level = lv.level
    F_, piv, B = sig[0], sig[1], sig[2]
    rank = max(F_._data.ndim, B._data.ndim)
    new = list(sig)
    for i, t, r in ((0, F_, rank), (1, piv, rank - 1), (2, B, rank)):
        p = _phys(t, level)
        if p is not None:
            new[i] = _align(p, t._data.ndim, r)
    return _wrap(_run(op, kind, new), level)


def _lstsq_rule(op, kind, sig, nt, lv):
    """lstsq on the physical values; its empty outputs (residuals, rank or singular values
    a driver does not give) keep one empty row per example."""
    if kind != "out":
        return NotImplemented
    level = lv.level
    A_, B = sig[0], sig[1]
    rank = max(A_._data.ndim, B._data.ndim)
    new = list(sig)
    size = None
    for i, t in ((0, A_), (1, B)):
        p = _phys(t, level)
        if p is not None:
            new[i] = _align(p, t._data.ndim, rank)
            size = p.shape[0]
    outs = _run(op, kind, new)
    fixed = []
    for o in outs:
        if o.dim() == 1 and o.shape[0] == 0:
            o = o.reshape(0).unsqueeze(0).expand(size, 0)
        elif o.dim() == 0 or o.shape[0] != size:
            o = o.unsqueeze(0).expand((size,) + tuple(o.shape))
        fixed.append(_wrap(o.contiguous(), level))
    return tuple(fixed)


RULES.update({"linalg_lu_solve": _pivoted_solve, "linalg_ldl_solve": _pivoted_solve,
              "linalg_lstsq": _lstsq_rule})
