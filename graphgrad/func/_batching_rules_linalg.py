"""vmap's batching rules of the ``beta * self + alpha * product`` ops (addmv, addr, baddbmm,
addbmm): the product of the physical operands (batch dim in front, broadcast by matmul),
then ``self`` aligned after the batch dim."""
from __future__ import annotations

from ..ops.api.linalg import matmul
from ._batching import _align, _phys, _wrap


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
