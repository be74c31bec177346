"""The table, padding family: constant, reflection and replication padding.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/padding.py, public functions in ops/api/padding.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from ..kernels.padding import _constant_pad_kernel, _index_pad_backward_kernel, _index_pad_kernel


# ------------------------------------------------------------ constant
CONSTANT_PAD = defop("constant_pad_nd(self, *, pad, value)", _constant_pad_kernel,
                     "ConstantPadNdBackward0",
                     self=lambda grad, pad: F.constant_pad_nd(grad, tuple(-p for p in pad), 0),
                     jvp=lambda self_t, pad: F.constant_pad_nd(self_t, pad, 0), batched_jvp=True)


# ------------------------------------------------------------ reflect / replicate
def _defpad(mode, cls, k):
    name = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d"
    fwd_poly, bwd_poly = [], []
    fwd = defop(f"{name}(self, *, pad)", _index_pad_kernel(mode), f"{cls}Pad{k}DBackward0",
                self=lambda grad, self_sym_sizes, pad:
                    bwd_poly[0](grad, tuple(self_sym_sizes), pad),
                jvp=lambda self_t, pad: fwd_poly[0](self_t, pad), batched_jvp=True)
    bwd = defop(f"{name}_backward(grad, *, sizes, pad)", _index_pad_backward_kernel(mode),
                f"{cls}Pad{k}DBackwardBackward0",
                grad=lambda grad, pad: fwd_poly[0](grad, pad),
                jvp=lambda grad_t, sizes, pad: bwd_poly[0](grad_t, sizes, pad), batched_jvp=True)
    fwd_poly.append(F.make_poly(fwd))
    bwd_poly.append(F.make_poly(bwd))
    return fwd


PAD_OPS = {(mode, k): _defpad(mode, cls, k)
           for mode, cls in (("reflect", "Reflection"), ("replicate", "Replication"))
           for k in (1, 2, 3)}
