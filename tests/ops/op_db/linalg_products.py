"""OpInfos of the ops-point linear-algebra additions: addmv, addr, baddbmm, addbmm (and their
in-place forms), cross / linalg.cross, inner, linalg.multi_dot, chain_matmul, linalg.vecdot,
matrix_power / linalg.matrix_power."""
from __future__ import annotations

from tests.ops.opinfo import A, OpInfo, Sample, randn


def _addmv(rng):
    return [Sample((A(randn(rng, 3)), A(randn(rng, 3, 4)), A(randn(rng, 4)))),
            Sample((A(randn(rng, 3)), A(randn(rng, 3, 4)), A(randn(rng, 4))),
                   {"beta": 2, "alpha": -3}, name="beta alpha"),
            Sample((A(randn(rng, 1)), A(randn(rng, 3, 4)), A(randn(rng, 4))),
                   name="broadcast self"),
            Sample((A(randn(rng)), A(randn(rng, 3, 4)), A(randn(rng, 4))), {"beta": 0},
                   name="0-d self, beta 0")]


def _addmv_inplace(rng):
    return [s for s in _addmv(rng) if s.args[0].arr.shape == (3,)]


def _addr(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 3)), A(randn(rng, 4)))),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 3)), A(randn(rng, 4))),
                   {"beta": 2, "alpha": 3}, name="beta alpha"),
            Sample((A(randn(rng, 4)), A(randn(rng, 3)), A(randn(rng, 4))), {"beta": 0},
                   name="broadcast self, beta 0")]


def _baddbmm(rng):
    return [Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 3, 5)), A(randn(rng, 2, 5, 4)))),
            Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 2, 3, 5)), A(randn(rng, 2, 5, 4))),
                   {"beta": -1, "alpha": 2}, name="beta alpha"),
            Sample((A(randn(rng, 4)), A(randn(rng, 2, 3, 5)), A(randn(rng, 2, 5, 4))),
                   name="broadcast self")]


def _addbmm(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 2, 3, 5)), A(randn(rng, 2, 5, 4)))),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 2, 3, 5)), A(randn(rng, 2, 5, 4))),
                   {"beta": 2, "alpha": -1}, name="beta alpha"),
            Sample((A(randn(rng, 1, 4)), A(randn(rng, 2, 3, 5)), A(randn(rng, 2, 5, 4))),
                   name="broadcast self")]


def _full_self(samples):
    """Samples whose ``self`` has the result's shape (the in-place variants)."""
    def pick(rng):
        out = samples(rng)
        return out[:2]
    return pick


def _cross(rng):
    return [Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)))),
            Sample((A(randn(rng, 2, 3)), A(randn(rng, 1, 3))), name="broadcast"),
            Sample((A(randn(rng, 3, 2)), A(randn(rng, 3, 2))), {"dim": 0}, name="dim 0")]


def _torch_cross(rng):
    return [Sample((A(randn(rng, 4, 3)), A(randn(rng, 4, 3)), 1)),
            Sample((A(randn(rng, 3, 2)), A(randn(rng, 3, 2))), {"dim": 0}, name="dim 0")]


def _inner(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 5, 4)))),
            Sample((A(randn(rng, 4)), A(randn(rng, 4))), name="1-d"),
            Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 4))), name="3-d, 1-d"),
            Sample((A(randn(rng)), A(randn(rng, 3))), name="0-d")]


def _multi_dot(rng):
    return [Sample(([A(randn(rng, 2, 3)), A(randn(rng, 3, 4)), A(randn(rng, 4, 2))],)),
            Sample(([A(randn(rng, 5, 2)), A(randn(rng, 2, 6)), A(randn(rng, 6, 3))],),
                   name="left first"),
            Sample(([A(randn(rng, 3)), A(randn(rng, 3, 4)), A(randn(rng, 4, 2)),
                     A(randn(rng, 2))],), name="vectors at both ends"),
            Sample(([A(randn(rng, 2, 3)), A(randn(rng, 3))],), name="two")]


def _chain_matmul(rng):
    return [Sample((A(randn(rng, 2, 3)), A(randn(rng, 3, 4)), A(randn(rng, 4, 2)))),
            Sample((A(randn(rng, 2, 3)),), name="one")]


def _vecdot(rng):
    return [Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4)))),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 4))), name="broadcast"),
            Sample((A(randn(rng, 3, 4)), A(randn(rng, 3, 4))), {"dim": 0}, name="dim 0")]


def _matrix_power(rng):
    a = randn(rng, 3, 3) / 2 + 2 * __import__("numpy").eye(3)
    return [Sample((A(randn(rng, 3, 3)), n), name=f"n={n}") for n in (1, 2, 3, 5)] + [
        Sample((A(randn(rng, 2, 3, 3)), 2), name="batched"),
        Sample((A(randn(rng, 3, 3)), 0), name="n=0"),
        Sample((A(a), -2), name="n=-2")]


OPS = [
    OpInfo("addmv", _addmv, complex=True),
    OpInfo("addmv_inplace", _addmv_inplace, fn=lambda lib, *a, **k: lib.addmv(*a, **k),
           inplace="addmv_"),
    OpInfo("addr", _addr, complex=True),
    OpInfo("addr_inplace", _full_self(_addr), fn=lambda lib, *a, **k: lib.addr(*a, **k),
           inplace="addr_"),
    OpInfo("baddbmm", _baddbmm, complex=True),
    OpInfo("baddbmm_inplace", _full_self(_baddbmm), fn=lambda lib, *a, **k: lib.baddbmm(*a, **k),
           inplace="baddbmm_"),
    OpInfo("addbmm", _addbmm, complex=True),
    OpInfo("addbmm_inplace", _full_self(_addbmm), fn=lambda lib, *a, **k: lib.addbmm(*a, **k),
           inplace="addbmm_"),
    OpInfo("linalg.cross", _cross, complex=True),
    OpInfo("cross", _torch_cross, complex=True),
    OpInfo("inner", _inner, complex=True),
    OpInfo("linalg.multi_dot", _multi_dot, complex=True),
    OpInfo("chain_matmul", _chain_matmul),
    OpInfo("linalg.vecdot", _vecdot, complex=True),
    OpInfo("matrix_power", _matrix_power, complex=True),
    OpInfo("linalg.matrix_power", _matrix_power),
]
