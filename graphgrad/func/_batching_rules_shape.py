"""vmap batching rules of the shape-scatter family (ops/derivatives/shape_scatter.py).

Their kernels take leading batch dims on the data inputs as they are (dims negative, flat-index
ops told their inputs' logical ranks), so the physical values go in unchanged.  A batched index
or mask (one set of positions per example) is rewritten with ops that take per-example
positions: gather/scatter/scatter_add along the shifted dim, and, for masked_scatter, each
position's rank among the mask's ones (a cumsum) to gather the source.  In-place variants
with a batched index take the per-example fallback.
"""
from __future__ import annotations

from ..ops.api.comparison import where
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


def _index_along(idx, shape, d):
    """A batched vector index ``[B, k]`` viewed and expanded to ``shape`` (physical, batch
    first) with ``k`` at physical dim ``d``."""
    view = [shape[0]] + [1] * (len(shape) - 1)
    view[d] = idx.shape[1]
    full = list(shape)
    full[d] = idx.shape[1]
    return idx.reshape(tuple(view)).expand(tuple(full))


def _batched_positions(op, kind, sig, lv, pos):
    """Whether the rule must rewrite the op: a batched index/mask out of place."""
    if _phys(sig[pos], lv.level) is None:
        return False
    if kind == "inplace":
        return None
    return True


def index_copy_rule(op, kind, sig, nt, lv):
    """index_copy(self, index, source, dim) with a batched index: a scatter along the dim."""
    todo = _batched_positions(op, kind, sig, lv, 1)
    if not todo or sig[3] is None:
        return data_batched(op, kind, sig, nt, lv) if todo is False else NotImplemented
    level, B = lv.level, lv.size
    p, src = _expand(sig[0], level, B), _expand(sig[2], level, B)
    d = sig[3] % p.ndim
    idx = _index_along(_phys(sig[1], level).reshape(B, -1), tuple(src.shape), d)
    return _wrap(p.scatter(d, idx, src), level)


def index_fill_rule(op, kind, sig, nt, lv):
    """index_fill(self, index, [value,] dim, ...) with a batched index: a scatter of the
    value (negative indices wrapped)."""
    todo = _batched_positions(op, kind, sig, lv, 1)
    tensor_value = op.name == "index_fill.int_Tensor"
    dim = sig[3] if tensor_value else sig[2]
    if not todo or dim is None:
        return data_batched(op, kind, sig, nt, lv) if todo is False else NotImplemented
    level, B = lv.level, lv.size
    p = _expand(sig[0], level, B)
    d = dim % p.ndim
    idx = _phys(sig[1], level).reshape(B, -1)
    idx = idx + (idx < 0).long() * p.shape[d]
    idx = _index_along(idx, tuple(p.shape), d)
    if tensor_value:
        v = _expand(sig[2], level, B).to(p.dtype)
        return _wrap(p.scatter(d, idx, v.reshape((B,) + (1,) * (p.ndim - 1))
                               .expand(tuple(idx.shape))), level)
    return _wrap(p.scatter(d, idx, sig[3]), level)


def put_rule(op, kind, sig, nt, lv):
    """put(self, index, source, accumulate, nd, snd) with a batched index: a scatter (or
    scatter_add) into each example's flat values."""
    todo = _batched_positions(op, kind, sig, lv, 1)
    if not todo:
        return data_batched(op, kind, sig, nt, lv) if todo is False else NotImplemented
    level, B = lv.level, lv.size
    p = _expand(sig[0], level, B)
    flat = p.reshape(B, -1)
    idx = _phys(sig[1], level).reshape(B, -1)
    idx = idx + (idx < 0).long() * flat.shape[1]
    src = _expand(sig[2], level, B).reshape(B, -1)
    r = flat.scatter_add(1, idx, src) if sig[3] else flat.scatter(1, idx, src)
    return _wrap(r.reshape(tuple(p.shape)), level)


def masked_scatter_rule(op, kind, sig, nt, lv):
    """masked_scatter(self, mask, source, nd, snd) with a batched mask: each masked place
    takes the source element of its rank among the example's ones (cumsum - 1)."""
    todo = _batched_positions(op, kind, sig, lv, 1)
    if not todo:
        return data_batched(op, kind, sig, nt, lv) if todo is False else NotImplemented
    level, B = lv.level, lv.size
    m = _phys(sig[1], level)                       # [B, *out]
    out_shape = tuple(m.shape)
    src = _expand(sig[2], level, B).reshape(B, -1)
    if src.shape[1] == 0:
        return NotImplemented
    p = _expand(sig[0], level, B)
    nd = sig[3]
    p = p.reshape((B,) + (1,) * (len(out_shape) - 1 - nd) + tuple(p.shape[1:]))
    p = p.expand(out_shape)
    rank = (m.reshape(B, -1).long().cumsum(1) - 1).clamp(min=0)
    vals = src.gather(1, rank).reshape(out_shape)
    return _wrap(where(m, vals, p), level)


RULES = {name: data_batched for name in (
    "select_scatter", "slice_scatter", "diagonal_scatter", "narrow_copy", "rot90", "take",
    "take_backward", "put", "index_copy", "index_fill.int_Scalar", "index_fill.int_Tensor",
    "masked_scatter", "masked_scatter_backward")}
RULES.update({"take": take_rule, "index_copy": index_copy_rule, "put": put_rule,
              "index_fill.int_Scalar": index_fill_rule,
              "index_fill.int_Tensor": index_fill_rule, "masked_scatter": masked_scatter_rule})
