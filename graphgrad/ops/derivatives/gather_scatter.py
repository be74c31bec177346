"""The table, gather_scatter family: gather, scatter (src or value), scatter_add,
take_along_dim.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/gather_scatter.py, public functions in ops/api/gather_scatter.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from ..kernels.gather_scatter import (
    _gather_backward_kernel, _gather_kernel, _lifted, _scatter_add_kernel, _scatter_kernel,
    _scatter_reduce_kernel, _scatter_value_kernel)


# ============================================================ gather / scatter
def _no_scatter_derivative(grad):
    raise RuntimeError("derivative for aten::scatter is not implemented")


def _no_scatter_jvp(*tangents):
    raise NotImplementedError("Trying to use forward AD with aten::scatter that does not "
                              "support it.")


def _pad_to(g, sizes):
    """Zero-pad the trailing dims of ``g`` up to ``sizes`` (src larger than index)."""
    gs = F.shape(g)[len(F.shape(g)) - len(sizes):]
    if tuple(gs) == tuple(sizes):
        return g
    pads = []
    for have, want in reversed(list(zip(gs, sizes))):
        pads += [0, want - have]
    return F.constant_pad_nd(g, tuple(pads), 0)


GATHER = defop("gather(self, index, *, dim)", _lifted(_gather_kernel), "GatherBackward0",
               # (self itself is saved, as PyTorch saves it, though only its shape is used:
               # modifying it in place before backward is an error there too)
               self=lambda grad, self, index, dim:
                   F.gather_backward(grad, index, tuple(self.shape), dim),
               jvp=lambda self_t, index, dim: F.gather(self_t, index, dim), batched_jvp=True)
GATHER_BACKWARD = defop("gather_backward(grad, index, *, sizes, dim)", _gather_backward_kernel,
                        "ScatterAddBackward0",
                        grad=lambda grad, index, dim: F.gather(grad, index, dim),
                        jvp=lambda grad_t, index, sizes, dim:
                            F.gather_backward(grad_t, index, sizes, dim), batched_jvp=True)
SCATTER = defop("scatter.src(self, index, src, *, dim)", _lifted(_scatter_kernel),
                "ScatterBackward0",
                self=lambda grad, index, dim: F.scatter_value(grad, index, dim, 0),
                src=lambda grad, index, src_sym_sizes, dim:
                    _pad_to(F.gather(grad, index, dim), src_sym_sizes),
                jvp=lambda self_t, src_t, index, dim: F.scatter_src(self_t, index, src_t, dim),
                batched_jvp=lambda self_t, src_t, self_sym_sizes, src_sym_sizes, index, dim:
                    F.scatter_src(F.match_batch(self_t, len(self_sym_sizes), src_t,
                                                len(src_sym_sizes)), index, src_t, dim))
SCATTER_VALUE = defop("scatter.value(self, index, *, dim, value)",
                      lambda a, index, dim, value: _lifted(_scatter_value_kernel)(
                          a, index, value, dim),
                      "ScatterBackward1",
                      self=lambda grad, index, dim: F.scatter_value(grad, index, dim, 0),
                      jvp=lambda self_t, index, dim: F.scatter_value(self_t, index, dim, 0),
                      batched_jvp=True)
SCATTER_ADD = defop("scatter_add(self, index, src, *, dim)", _lifted(_scatter_add_kernel),
                    "ScatterAddBackward0",
                    self=lambda grad: grad,
                    src=lambda grad, index, src_sym_sizes, dim:
                        _pad_to(F.gather(grad, index, dim), src_sym_sizes),
                    jvp=lambda self_t, src_t, index, dim:
                        F.scatter_add(self_t, index, src_t, dim),
                    batched_jvp=lambda self_t, src_t, self_sym_sizes, src_sym_sizes, index, dim:
                        F.scatter_add(F.match_batch(self_t, len(self_sym_sizes), src_t,
                                                    len(src_sym_sizes)), index, src_t, dim))


# PyTorch has no derivative for scatter with a reduction: its node raises in backward
SCATTER_REDUCE = defop("scatter.reduce(self, index, src, *, dim, reduce)",
                       lambda a, index, src, dim, reduce: _lifted(_scatter_reduce_kernel)(
                           a, index, src, reduce, dim),
                       "NotImplemented", self=_no_scatter_derivative, src=_no_scatter_derivative,
                       jvp=lambda self_t, src_t: _no_scatter_jvp(), batched_jvp=True)
SCATTER_VALUE_REDUCE = defop("scatter.value_reduce(self, index, *, dim, value, reduce)",
                             lambda a, index, dim, value, reduce: _lifted(
                                 _scatter_reduce_kernel)(a, index, value, reduce, dim),
                             "NotImplemented", self=_no_scatter_derivative,
                             jvp=lambda self_t: _no_scatter_jvp(), batched_jvp=True)
