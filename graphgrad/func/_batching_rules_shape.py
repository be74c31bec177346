"""vmap batching rules of the shape-scatter family (ops/derivatives/shape_scatter.py).

Their kernels take leading batch dims on the data inputs as they are (dims negative, flat-index
ops told their inputs' logical ranks), so the physical values go in unchanged; a batched index
or mask (one set of positions per example) is left to the per-example fallback.
"""
from __future__ import annotations

from ._batching import _done, _expand, _phys, _run, _wrap

_POSITION_ARGS = ("index", "mask")


def data_batched(op, kind, sig, nt, lv):
    level = lv.level
    new = list(sig)
    for i in range(nt):
        p = _phys(sig[i], level)
        if p is None:
            continue
        if op.tensor_params[i] in _POSITION_ARGS:
            return NotImplemented
        new[i] = p
    if kind == "inplace" and _phys(sig[0], level) is None:
        return NotImplemented   # (an unbatched self cannot take batched values in place)
    return _done(_run(op, kind, new), kind, sig, level)


def take_rule(op, kind, sig, nt, lv):
    """take(self, index, nd) with a batched index: a gather of each example's flat values."""
    level, B = lv.level, lv.size
    idx = _phys(sig[1], level)
    if idx is None:
        return data_batched(op, kind, sig, nt, lv)
    flat = _expand(sig[0], level, B).reshape(B, -1)
    idx = idx + (idx < 0).long() * flat.shape[1]
    return _wrap(flat.gather(1, idx.reshape(B, -1)).reshape(tuple(idx.shape)), level)


RULES = {name: data_batched for name in (
    "select_scatter", "slice_scatter", "diagonal_scatter", "narrow_copy", "rot90", "take",
    "take_backward", "put", "index_copy", "index_fill.int_Scalar", "index_fill.int_Tensor",
    "masked_scatter", "masked_scatter_backward")}
RULES["take"] = take_rule
