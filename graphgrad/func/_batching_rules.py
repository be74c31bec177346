"""vmap's batching rules, one per op of the table (see _batching.py).

A rule is ``rule(op, kind, sig, nt, lv)``: ``sig`` the op's signature arguments (tensors
first, ``nt`` of them), some BatchedTensors of level ``lv.level``; it returns the batched
result or ``NotImplemented`` (then the per-example fallback runs).  Rules come from the
op's table metadata where it says enough:

- pointwise ops (``batched_jvp=POINTWISE``, one-input ops with an ``ELEMENTWISE`` JVP, the
  comparisons): logical ranks aligned after the batch dim, then the op once;
- ops with ``dim``/``dims``/``dim0``... attributes: non-negative dims shifted past the batch
  dim (negative ones already count from the end);
- ops whose kernel is written for leading batch dims (``batched_jvp=True`` with a LINEAR
  JVP: pools, tril, index, einsum, linalg): the physical values as they are;

and from a table here for the rest (views with sizes, full reductions, matmul family,
convolution, losses, norms, random ops).
"""
from __future__ import annotations

import numpy as np

from .._tensor.creation import arange
from .._tensor.random import numpy_rng
from .._tensor.tensor import Tensor
from ..ops.api.copies import stack  # noqa: F401
from ..ops.api.linalg import matmul
from ..ops.registry import ELEMENTWISE, LINEAR, POINTWISE
from ..ops.registry import OPS as _OPS_TABLE
from . import _batching
from . import _batching_rules_shape as _shape_rules
from ._row_matmul import RowMatmul, row_matmul_applies
from ._batching import _align, _done, _expand, _phys, _run, _wrap
from ._batching_rules_nn import (batch_norm_rule, class_margin_rule, conv_rule, group_norm_rule,
                                 layer_norm_rule, loss_rule, nll_rule)
from ._batching_rules_linalg import RULES as _LINALG_PRODUCT_RULES

_DIM_ATTRS = ("dim", "dims", "dim0", "dim1", "dim2", "dimension")
# None as the dim means every dim
_NONE_ALL = {"sum.dim_IntList", "mean.dim", "var.correction", "std.correction",
             "var_mean.correction", "std_mean.correction", "linalg_vector_norm", "all.dims",
             "any.dims", "amax", "amin", "logsumexp"}
# every tensor argument batched alike (same rank, same dims)
_EXPAND_ALL = {"gather", "scatter.src", "scatter.value", "scatter.reduce",
               "scatter.value_reduce", "scatter_add", "scatter_reduce.two", "cat", "stack"}
_POINTWISE_NAMES = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
                    "bitwise_not", "isnan", "isinf", "isfinite", "isclose", "fmod.Scalar",
                    "remainder.Scalar", "acosh_", "asinh_", "atanh_", "polygamma_",
                    "fill", "zero"}
# kernels that take any number of leading batch dims
_PASSTHROUGH = {"tril", "triu", "alias", "view_as_real", "view_as_complex", "constant_pad_nd",
                "linalg_det", "linalg_inv_ex", "linalg_cholesky_ex", "linalg_slogdet",
                "linalg_eigh", "linalg_qr", "linalg_svd", "einsum", "adaptive_avg_pool2d",
                "avg_pool2d", "_relayout", "einsum2", "im2col", "col2im"}
# interpolate's ops (and their backward ops) and adaptive_avg_pool3d: kernels on the last dims
_PASSTHROUGH |= {f"{n}{b}" for b in ("", "_backward") for n in (
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
    "_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d",
    "upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d", "upsample_bicubic2d",
    "_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa", "_upsample_lanczos2d_aa",
    "adaptive_avg_pool3d")}


# ---------------------------------------------------------------- pointwise
def pointwise(op, kind, sig, nt, lv):
    level = lv.level
    rank = max((a._data.ndim for a in sig[:nt] if isinstance(a, Tensor)), default=0)
    new = list(sig)
    for i in range(nt):
        p = _phys(sig[i], level)
        if p is not None:
            new[i] = _align(p, sig[i]._data.ndim, rank)
    return _done(_run(op, kind, new), kind, sig, level)


def passthrough(op, kind, sig, nt, lv):
    level = lv.level
    new = list(sig)
    for i in range(nt):
        p = _phys(sig[i], level)
        if p is not None:
            new[i] = p
    return _done(_run(op, kind, new), kind, sig, level)


# ---------------------------------------------------------------- dims
def dims_rule(op, kind, sig, nt, lv):
    level, size = lv.level, lv.size
    base = op.name.split(".")[0]
    name = base if base in ("cat", "stack") else op.name
    new = list(sig)
    first = sig[0]
    nd = first._data.ndim if isinstance(first, Tensor) else 0
    if nd == 0 and name not in ("unsqueeze", "unsqueeze_dims", "stack", "cat", "diag_embed"):
        return NotImplemented   # a dim of a 0-d tensor: the batch dim would be taken
    if name in _EXPAND_ALL:
        for i in range(nt):
            if isinstance(sig[i], Tensor):
                new[i] = _expand(sig[i], level, size)
    else:
        if name == "index_add" and _phys(sig[1], level) is not None:
            return _index_add_batched_index(op, kind, sig, nt, lv)
        for i in range(1, nt):
            if _phys(sig[i], level) is not None:
                if name in ("index_add", "index_reduce") and i == 2 and \
                        _phys(sig[1], level) is None:
                    continue
                return NotImplemented   # e.g. a batched index of index_select
        if name in ("index_add", "index_reduce"):
            new[0] = _expand(sig[0], level, size)
            if isinstance(sig[2], Tensor):
                new[2] = _expand(sig[2], level, size)
        else:
            new[0] = _phys(sig[0], level)
            if new[0] is None:
                return NotImplemented
    for j, p in enumerate(op.params):
        if j < nt or p not in _DIM_ATTRS:
            continue
        v = sig[j]
        if v is None:
            if op.name not in _NONE_ALL:
                return NotImplemented
            v = tuple(range(nd))
        new[j] = _shift(v)
    return _done(_run(op, kind, new), kind, sig, level)


def _index_add_batched_index(op, kind, sig, nt, lv):
    """index_add(self, index, source, dim, alpha) with a batched index: a scatter_add of
    the source along the shifted dim, the index spread over the source's other dims."""
    level, B = lv.level, lv.size
    x, index, source, dim, alpha = sig
    nd = x._data.ndim
    if nd == 0 or not isinstance(source, Tensor):
        return NotImplemented
    d = int(dim) % nd
    ps = _expand(source, level, B)
    if source._data.ndim == 0:
        ps = ps.reshape(B, 1)
    idx = _phys(index, level)                 # [B, k]
    view = [B] + [1] * nd
    view[d + 1] = idx.shape[1]
    idx = idx.reshape(tuple(view)).expand(tuple(ps.shape))
    src = ps if alpha == 1 else ps * alpha
    if kind == "inplace":
        _phys(x, level).scatter_add_(d + 1, idx, src)
        return x
    return _wrap(_expand(x, level, B).scatter_add(d + 1, idx, src), level)


def _shift(d):
    if isinstance(d, (list, tuple)):
        return type(d)(_shift(e) for e in d)
    d = int(d)
    return d if d < 0 else d + 1


def argext(op, kind, sig, nt, lv):
    """argmax/argmin: dim None flattens the example."""
    if sig[1] is not None:
        return dims_rule(op, kind, sig, nt, lv)
    p = _phys(sig[0], lv.level)
    nd = sig[0]._data.ndim
    flat = p.reshape(p.shape[0], -1)
    r = _run(op, "out", [flat, 1, False])
    if sig[2]:
        r = r.reshape((p.shape[0],) + (1,) * nd)
    return _wrap(r, lv.level)


def permute_rule(op, kind, sig, nt, lv):
    """permute's dims come counted from the end (its kernel keeps leading dims)."""
    if any(int(d) >= 0 for d in sig[1]):
        nd = sig[0]._data.ndim
        sig = [sig[0], tuple(int(d) - nd if int(d) >= 0 else int(d) for d in sig[1])]
    return passthrough(op, kind, sig, nt, lv)


def t_rule(op, kind, sig, nt, lv):
    p = _phys(sig[0], lv.level)
    if sig[0]._data.ndim < 2:
        return _wrap(p.view(tuple(p.shape)), lv.level)
    return _wrap(p.transpose(1, 2), lv.level)


def squeeze_all(op, kind, sig, nt, lv):
    p = _phys(sig[0], lv.level)
    dims = tuple(d + 1 for d, n in enumerate(sig[0]._data.shape) if n == 1)
    return _wrap(p.squeeze(dims) if dims else p.view(tuple(p.shape)), lv.level)


def view_rule(op, kind, sig, nt, lv):
    p = _phys(sig[0], lv.level)
    return _wrap(_run(op, kind, [p, (p.shape[0],) + tuple(sig[1])] + list(sig[2:])), lv.level)


def expand_rule(op, kind, sig, nt, lv):
    p = _phys(sig[0], lv.level)
    size = tuple(sig[1])
    p = _align(p, sig[0]._data.ndim, len(size))
    return _wrap(_run(op, kind, [p, (p.shape[0],) + size] + list(sig[2:])), lv.level)


def repeat_rule(op, kind, sig, nt, lv):
    p = _phys(sig[0], lv.level)
    reps = tuple(sig[1])
    p = _align(p, sig[0]._data.ndim, len(reps))
    return _wrap(_run(op, kind, [p, (1,) + reps]), lv.level)


# ---------------------------------------------------------------- full reductions
def _full(fn):
    def rule(op, kind, sig, nt, lv):
        p = _phys(sig[0], lv.level)
        flat = p.reshape(p.shape[0], -1)
        return _wrap(fn(flat, *sig[1:]), lv.level)
    return rule


def _trace(op, kind, sig, nt, lv):
    p = _phys(sig[0], lv.level)
    return _wrap(p.diagonal(0, -2, -1).sum(-1), lv.level)


# ---------------------------------------------------------------- matmul family
def _mat(sig, level, i):
    p = _phys(sig[i], level)
    return sig[i] if p is None else p


def _bmatmul(a, b):
    """``a @ b`` of physical operands; one row per example times a differentiated batched
    matrix (a Linear on one example inside ``vmap(grad(f))``) by _row_matmul.RowMatmul."""
    if row_matmul_applies(a, b):
        return RowMatmul.apply(a, b)
    return matmul(a, b)


def mm_rule(op, kind, sig, nt, lv):
    a, b = _mat(sig, lv.level, 0), _mat(sig, lv.level, 1)
    return _wrap(_bmatmul(a, b), lv.level)


def mv_rule(op, kind, sig, nt, lv):
    a, v = _mat(sig, lv.level, 0), _mat(sig, lv.level, 1)
    return _wrap(matmul(a, v.unsqueeze(-1)).squeeze(-1), lv.level)


def dot_rule(op, kind, sig, nt, lv):
    a, b = _mat(sig, lv.level, 0), _mat(sig, lv.level, 1)
    if op.name == "vdot":
        a = a.conj()
    return _wrap((a * b).sum(-1), lv.level)


def addmm_rule(op, kind, sig, nt, lv):
    level = lv.level
    s, m1, m2 = sig[0], _mat(sig, level, 1), _mat(sig, level, 2)
    beta, alpha = sig[3], sig[4]
    r = _bmatmul(m1, m2)
    if alpha != 1:
        r = r * alpha
    if beta != 0:
        ps = _phys(s, level)
        if ps is not None:
            s = _align(ps, s._data.ndim, 2)
        r = r + (s if beta == 1 else s * beta)
    return _wrap(r, level)


def flatten_lead(k):
    """Ops on the last ``k`` dims of a (k+1)-d input (pools, pads): the batch and the
    example's leading dims folded into one."""
    def rule(op, kind, sig, nt, lv):
        level = lv.level
        for i in range(1, nt):
            if isinstance(sig[i], Tensor):
                return NotImplemented
        p = _phys(sig[0], level)
        lead = tuple(p.shape[:p.dim() - k])
        flat = p.reshape((-1,) + tuple(p.shape[p.dim() - k:]))
        r = _run(op, "out", [flat] + list(sig[1:]))

        def back(t):
            return _wrap(t.reshape(lead + tuple(t.shape[1:])), level)
        if isinstance(r, tuple):
            return tuple(back(t) for t in r)
        return back(r)
    return rule


def expand_all(op, kind, sig, nt, lv):
    """Kernels with leading batch dims that must agree (cdist): unbatched inputs expanded."""
    new = list(sig)
    for i in range(nt):
        if isinstance(sig[i], Tensor):
            new[i] = _expand(sig[i], lv.level, lv.size)
    return _done(_run(op, kind, new), kind, sig, lv.level)


def embedding_rule(op, kind, sig, nt, lv):
    """embedding(weight, indices, ...): a batched weight (per-sample gradients of a model
    with an embedding) is one table of B*V rows, the indices offset by b*V."""
    level, B = lv.level, lv.size
    pw = _phys(sig[0], level)
    if pw is None:
        return passthrough(op, kind, sig, nt, lv)
    V = pw.shape[1]
    idx = _expand(sig[1], level, B)
    off = arange(B).reshape((B,) + (1,) * (idx.dim() - 1)) * V
    if sig[2] is not None and sig[2] >= 0 or sig[3]:
        return NotImplemented   # padding_idx / scale_grad_by_freq are per example
    flat = pw.reshape((B * V,) + tuple(pw.shape[2:]))
    return _wrap(_run(op, "out", [flat, idx + off] + list(sig[2:])), level)


def index_select_rule(op, kind, sig, nt, lv):
    """index_select(self, index, dim) with a batched index: a gather along the shifted dim."""
    level, B = lv.level, lv.size
    if _phys(sig[1], level) is None:
        return dims_rule(op, kind, sig, nt, lv)
    nd = sig[0]._data.ndim
    if nd == 0:
        return NotImplemented
    d = int(sig[2]) % nd
    p = _expand(sig[0], level, B)
    idx = _phys(sig[1], level)            # [B, k]
    k = idx.shape[1]
    shape = list(p.shape)
    shape[d + 1] = k
    view = [B] + [1] * nd
    view[d + 1] = k
    return _wrap(p.gather(d + 1, idx.reshape(tuple(view)).expand(tuple(shape))), level)


def masked_select_rule(op, kind, sig, nt, lv):
    """masked_select with an unbatched mask: every example selects as many, so the flat
    result is B rows of them."""
    level = lv.level
    if _phys(sig[1], level) is not None:
        return NotImplemented   # a batched mask: data-dependent sizes
    p = _phys(sig[0], level)
    rank = max(sig[0]._data.ndim, sig[1]._data.ndim)
    p = _align(p, sig[0]._data.ndim, rank)
    return _wrap(_run(op, "out", [p, sig[1]]).reshape(p.shape[0], -1), level)


def roll_rule(op, kind, sig, nt, lv):
    if sig[2] is not None and len(sig[2]):
        return dims_rule(op, kind, sig, nt, lv)
    p = _phys(sig[0], lv.level)
    flat = p.reshape(p.shape[0], -1)
    return _wrap(_run(op, "out", [flat, sig[1], (1,)]).reshape(tuple(p.shape)), lv.level)


def index_rule(op, kind, sig, nt, lv):
    return passthrough(op, kind, sig, nt, lv)


# ---------------------------------------------------------------- random
def random_rule(op, kind, sig, nt, lv):
    level, B = lv.level, lv.size
    if lv.randomness == "error":
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use "
            "the 'same' or 'different' randomness flags on vmap or perform the randomness "
            "operation out of vmap")
    if lv.randomness == "different" or not any(_phys(a, level) is not None
                                                for a in sig[:nt]):
        new = list(sig)
        for i in range(nt):
            if isinstance(sig[i], Tensor):
                new[i] = _expand(sig[i], level, B)
        if kind == "inplace" and _phys(sig[0], level) is None:
            raise RuntimeError(f"vmap: {op.name}_ with randomness='different' on a tensor that "
                               "is not batched")
        return _done(_run(op, kind, new), kind, sig, level)
    # same: the draw replayed for every example from the same generator state
    gen = numpy_rng()
    di = op.params.index("draw")
    draw = sig[di]

    def same_draw(*arrays):
        st = gen.bit_generator.state
        outs = []
        for b in range(B):
            gen.bit_generator.state = st
            outs.append(draw(*[a[b] if isinstance(a, np.ndarray) and a.ndim else a
                               for a in arrays]))
        return np.stack(outs)
    new = list(sig)
    for i in range(nt):
        if isinstance(sig[i], Tensor):
            new[i] = _expand(sig[i], level, B)
    new[di] = same_draw
    if kind == "inplace" and _phys(sig[0], level) is None:
        raise RuntimeError(f"vmap: {op.name}_ with randomness='same' on a tensor that is not "
                           "batched")
    return _done(_run(op, kind, new), kind, sig, level)


def softmax_backward_rule(op, kind, sig, nt, lv):
    """_softmax_backward_data / _log_softmax_backward_data: both tensors batched alike, the
    dim shifted past the batch dim (None, a 0-d example's: elementwise, as it is)."""
    new = list(sig)
    for i in range(nt):
        new[i] = _expand(sig[i], lv.level, lv.size)
    if sig[nt] is not None:
        new[nt] = _shift(sig[nt])
    return _done(_run(op, kind, new), kind, sig, lv.level)


# ---------------------------------------------------------------- the table
_BY_NAME = {
    "argmax": argext, "argmin": argext, "permute": permute_rule, "t": t_rule,
    "squeeze": squeeze_all, "view": view_rule, "_reshape_alias": view_rule,
    "_unsafe_view": view_rule, "expand": expand_rule, "repeat": repeat_rule,
    "sum": _full(lambda f: f.sum(1)), "sum.dtype": _full(lambda f, dt: f.sum(1, dtype=dt)),
    "mean": _full(lambda f: f.mean(1)), "mean.dtype": _full(lambda f, dt: f.mean(1, dtype=dt)),
    "prod": _full(lambda f, dt: f.prod(1, dtype=dt)), "max": _full(lambda f: f.amax(1)),
    "min": _full(lambda f: f.amin(1)), "median": _full(lambda f: f.median(1).values),
    "nanmedian": _full(lambda f: f.nanmedian(1).values), "trace": _trace,
    "mm": mm_rule, "bmm": mm_rule, "mv": mv_rule, "dot": dot_rule, "vdot": dot_rule,
    "addmm": addmm_rule, "convolution": conv_rule, "conv_transpose": conv_rule, "native_layer_norm": layer_norm_rule,
    "native_group_norm": group_norm_rule, "native_batch_norm": batch_norm_rule,
    "nll_loss": nll_rule, "nll_loss2d": nll_rule, "mse_loss": loss_rule,
    "huber_loss": loss_rule, "smooth_l1_loss": loss_rule, "binary_cross_entropy": loss_rule,
    "binary_cross_entropy_with_logits": loss_rule, "soft_margin_loss": loss_rule,
    "multi_margin_loss": class_margin_rule, "multilabel_margin_loss": class_margin_rule,
    "max_pool2d_with_indices": flatten_lead(2), "adaptive_max_pool2d": flatten_lead(2),
    "reflection_pad1d": flatten_lead(1), "reflection_pad2d": flatten_lead(2),
    "reflection_pad3d": flatten_lead(3), "replication_pad1d": flatten_lead(1),
    "replication_pad2d": flatten_lead(2), "replication_pad3d": flatten_lead(3),
    "_matmul_squeeze_": lambda op, kind, sig, nt, lv: _wrap(
        _phys(sig[0], lv.level).select(-2, 0), lv.level),
    "embedding": embedding_rule, "index": index_rule, "index_select": index_select_rule,
    "roll": roll_rule, "masked_select": masked_select_rule, "linalg_solve_ex": expand_all,
    "_cdist_forward": expand_all, "_softmax_backward_data": softmax_backward_rule,
    "_log_softmax_backward_data": softmax_backward_rule,
}
_BY_NAME.update(_LINALG_PRODUCT_RULES)   # ops-point: addmv, addr, baddbmm, addbmm
_PASSTHROUGH |= {"linalg_matrix_exp", "cholesky", "cholesky_inverse",   # ops-point
                 "linalg_pinv.atol_rtol_float", "linalg_eig", "linalg_lu_factor_ex",
                 "linalg_lu", "linalg_ldl_factor_ex"}
_POINTWISE_NAMES |= {"heaviside", "gcd", "lcm", "bitwise_left_shift",   # ops-point (matrix
                     "bitwise_right_shift", "frexp", "linalg_cross",    # solves: batch dims
                     "cholesky_solve", "linalg_solve_triangular"}       # broadcast)

# (ops-shape family: select/slice/diagonal_scatter, take, put, index_copy/fill, ...)
_BY_NAME.update(_shape_rules.RULES)


def rule_for(op):
    name = op.name
    r = _BY_NAME.get(name)
    if r is not None:
        return r
    if "draw" in op.params:
        return random_rule
    if name in _PASSTHROUGH:
        return passthrough
    if name in _POINTWISE_NAMES or op.batched_jvp is POINTWISE:
        return pointwise
    attrs = op.params[len(op.tensor_params):]
    if any(a in _DIM_ATTRS for a in attrs):
        return dims_rule
    if op.jvp == ELEMENTWISE and len(op.tensor_params) == 1:
        return pointwise
    if op.batched_jvp is True and op.jvp == LINEAR and name not in ("as_strided",):
        return passthrough if not any("size" in a for a in attrs) else None
    return None


_batching.RULE_FOR[0] = rule_for


# ---------------------------------------------------------------- ops-reduce (statistics family)
_NONE_ALL |= {"nansum", "aminmax"}


def _dist_rule(op, kind, sig, nt, lv):
    """dist(a, b, p): the norm of each example's (broadcast) difference."""
    a, b, p = sig
    level = lv.level
    rank = max(a._data.ndim, b._data.ndim)
    xs = []
    for t in (a, b):
        pt = _phys(t, level)
        xs.append(t if pt is None else _align(pt, t._data.ndim, rank))
    d = xs[0] - xs[1]
    flat = d.reshape(d.shape[0], -1)
    return _wrap(_run(_OPS_TABLE["linalg_vector_norm"], "out", [flat, p, (1,), False, None]),
                 level)


def _renorm_rule(op, kind, sig, nt, lv):
    """renorm(x, p, dim, maxnorm): the batch dim merged into ``dim`` (each slice's norm is
    over one example's other dims)."""
    x, p, dim, maxnorm = sig
    if kind == "inplace":
        return NotImplemented
    px = _phys(x, lv.level)
    d = int(dim) % x._data.ndim
    moved = px.movedim(0, d)
    shp = tuple(moved.shape)
    merged = moved.reshape(shp[:d] + (shp[d] * shp[d + 1],) + shp[d + 2:])
    r = _run(op, "out", [merged, p, d, maxnorm])
    return _wrap(r.reshape(shp).movedim(d, 0), lv.level)


def _dynamic_shape_rule(op, kind, sig, nt, lv):
    raise RuntimeError(f"vmap: We do not support batching operators that can output dynamic "
                       f"shape ({op.name}: the number of unique values differs between "
                       f"examples); call it per example outside vmap")


_BY_NAME.update({"dist": _dist_rule, "renorm": _renorm_rule, "_unique2": _dynamic_shape_rule,
                 "unique_dim": _dynamic_shape_rule,
                 "unique_consecutive": _dynamic_shape_rule})


def _pdist_rule(op, kind, sig, nt, lv):
    """pdist(x, p) of each example: the row pairs' differences, then their norms."""
    x, p = sig
    px = _phys(x, lv.level)
    i, j = np.triu_indices(x._data.shape[0], 1)
    d = px[:, i.tolist()] - px[:, j.tolist()]
    return _wrap(_run(_OPS_TABLE["linalg_vector_norm"], "out", [d, p, (2,), False, None]),
                 lv.level)


def _pdist_backward_rule(op, kind, sig, nt, lv):
    """pdist's gradient for a batch of gradients (is_grads_batched): the kernel takes the
    gradient's leading dims; a batched input runs per example."""
    if _phys(sig[1], lv.level) is not None or _phys(sig[2], lv.level) is not None:
        return NotImplemented
    return _wrap(_run(op, "out", [_phys(sig[0], lv.level)] + list(sig[1:])), lv.level)


_BY_NAME.update({"_pdist_forward": _pdist_rule, "_pdist_backward": _pdist_backward_rule})


# ---------------------------------------------------------------- api3d: 3-d pools, max_unpool
# (the kernels pool the last k dims of any leading dims; max_unpool's indices expanded
# alike, as they are an input of the same shape)
_PASSTHROUGH |= {"avg_pool3d"}
_BY_NAME.update({"max_pool3d_with_indices": flatten_lead(3),
                 "adaptive_max_pool3d": flatten_lead(3),
                 "max_unpool2d": expand_all, "max_unpool3d": expand_all})
