"""vmap's batching rules for the nn ops (convolutions, norms, losses): the table in
_batching_rules.py names them."""
from __future__ import annotations

from .._tensor.tensor import Tensor
from ..ops.interpose import all_values
from ._batching import _align, _expand, _out, _phys, _run, _wrap


def conv_rule(op, kind, sig, nt, lv):
    """convolution(input, weight, bias, stride, padding, dilation, groups) and
    conv_transpose(input, weight, bias, output_sizes, stride, ...): a batched input folds
    the batch into N; a batched weight folds it into the groups (B independent
    convolutions side by side in the channels)."""
    level, B = lv.level, lv.size
    x, w, bias = sig[0], sig[1], sig[2]
    px, pw = _phys(x, level), _phys(w, level)
    pb = _phys(bias, level) if isinstance(bias, Tensor) else None
    rest = list(sig[3:])
    transpose = op.name == "conv_transpose"
    gi = 4 if transpose else 3
    unbatched = x._data.ndim == w._data.ndim - 1   # (C, *spatial) examples
    if pw is None and pb is None:
        if unbatched:   # the batch is N
            return _wrap(_run(op, "out", [px, w, bias] + rest), level)
        N = px.shape[1]
        if transpose:
            rest[0] = (B * N,) + tuple(rest[0][1:])
        r = _run(op, "out", [px.reshape((B * N,) + tuple(px.shape[2:])), w, bias] + rest)
        return _wrap(r.reshape((B, N) + tuple(r.shape[1:])), level)
    groups = rest[gi]
    px = _expand(x, level, B)
    pw = _expand(w, level, B)
    if unbatched:
        px = px.unsqueeze(1)
    N, C, sp = px.shape[1], px.shape[2], tuple(px.shape[3:])
    xin = px.movedim(0, 1).reshape((N, B * C) + sp)
    win = pw.reshape((B * pw.shape[1],) + tuple(pw.shape[2:]))
    O = (pw.shape[2] * groups) if transpose else pw.shape[1]
    bin_ = _expand(bias, level, B).reshape(B * O) if isinstance(bias, Tensor) else None
    rest[gi] = groups * B
    if transpose:
        rest[0] = (N, B * O) + tuple(rest[0][2:])
    r = _run(op, "out", [xin, win, bin_] + rest)
    r = r.reshape((N, B, O) + tuple(r.shape[2:])).movedim(1, 0)
    if unbatched:
        r = r.squeeze(1)
    return _wrap(r, level)


def layer_norm_rule(op, kind, sig, nt, lv):
    level = lv.level
    x, w, b, ns, eps = sig
    px = _phys(x, level)
    if px is None:
        return NotImplemented
    pw = _phys(w, level) if isinstance(w, Tensor) else None
    pb = _phys(b, level) if isinstance(b, Tensor) else None
    if pw is None and pb is None:
        return _out(_run(op, "out", [px, w, b, ns, eps]), level)
    out, mean, rstd = _run(op, "out", [px, None, None, ns, eps])
    rank = x._data.ndim
    if w is not None:
        out = out * (_align(pw, w._data.ndim, rank) if pw is not None else w)
    if b is not None:
        out = out + (_align(pb, b._data.ndim, rank) if pb is not None else b)
    return (_wrap(out, level), _wrap(mean, level), _wrap(rstd, level))


def batch_norm_rule(op, kind, sig, nt, lv):
    """native_batch_norm: each example's channels become B*C channels of one batch norm
    (statistics per example and channel).  Training with running statistics raises: the
    in-place update would mix the examples (PyTorch raises for unbatched ones)."""
    level, B = lv.level, lv.size
    x, w, b, rm, rv, training, eps = sig
    if training and (rm is not None or rv is not None):
        raise RuntimeError(
            "vmap: batch_norm got a batched tensor as input while the running_mean or "
            "running_var, which will be updated in place, were not batched. Use "
            "track_running_stats=False (or torch.func.replace_all_batch_norm_modules_), or "
            "eval mode.")
    px = _expand(x, level, B)
    N, C, sp = px.shape[1], px.shape[2], tuple(px.shape[3:])
    xin = px.movedim(0, 1).reshape((N, B * C) + sp)

    def chan(t):
        return None if t is None else _expand(t, level, B).reshape(B * C)
    out, mean, invstd, var = _run(op, "out", [xin, chan(w), chan(b), chan(rm), chan(rv),
                                              training, eps])
    out = out.reshape((N, B, C) + sp).movedim(1, 0)
    return (_wrap(out, level),) + tuple(_wrap(t.reshape(B, C), level)
                                       for t in (mean, invstd, var))


def group_norm_rule(op, kind, sig, nt, lv):
    """native_group_norm(input, weight, bias, group, eps): the batch folded into N; a
    batched affine applied after."""
    level, B = lv.level, lv.size
    x, w, b, group, eps = sig
    px = _expand(x, level, B)
    pw = _phys(w, level) if isinstance(w, Tensor) else None
    pb = _phys(b, level) if isinstance(b, Tensor) else None
    N = px.shape[1]
    rest = tuple(px.shape[2:])
    flat = px.reshape((B * N,) + rest)
    if pw is None and pb is None:
        out, mean, rstd = _run(op, "out", [flat, w, b, group, eps])
    else:
        out, mean, rstd = _run(op, "out", [flat, None, None, group, eps])
    out = out.reshape((B, N) + rest)
    sp = (1,) * (len(rest) - 1)
    if pw is not None or pb is not None:
        C = rest[0]
        if w is not None:
            ww = pw.reshape((B, 1, C) + sp) if pw is not None else w.reshape((C,) + sp)
            out = out * ww
        if b is not None:
            bb = pb.reshape((B, 1, C) + sp) if pb is not None else b.reshape((C,) + sp)
            out = out + bb
    return (_wrap(out, level), _wrap(mean.reshape((B, N) + tuple(mean.shape[1:])), level),
            _wrap(rstd.reshape((B, N) + tuple(rstd.shape[1:])), level))


def _reduce(r, reduction, B):
    if reduction == "none":
        return r
    flat = r.reshape(B, -1)
    return flat.sum(1) if reduction == "sum" else flat.mean(1)


def loss_rule(op, kind, sig, nt, lv):
    """Elementwise losses with a ``reduction``: unreduced per element, reduced per example."""
    level, B = lv.level, lv.size
    ri = op.params.index("reduction")
    red = sig[ri]
    rank = max(a._data.ndim for a in sig[:nt] if isinstance(a, Tensor))
    new = list(sig)
    for i in range(nt):
        if isinstance(sig[i], Tensor):
            new[i] = _align(_expand(sig[i], level, B), sig[i]._data.ndim, rank)
    new[ri] = "none"
    return _wrap(_reduce(_run(op, "out", new), red, B), level)


def nll_rule(op, kind, sig, nt, lv):
    level, B = lv.level, lv.size
    x, target, weight, red, ignore = sig
    if isinstance(weight, Tensor) and _phys(weight, level) is not None:
        return NotImplemented
    px = _expand(x, level, B)
    pt = _expand(target, level, B)
    nd = x._data.ndim
    if nd == 1:   # (C,) inputs with a 0-d target: the batch is N
        r = _run(op, "out", [px, pt, weight, "none", ignore])
        lead = (B,)
    else:
        C = px.shape[2]
        N = px.shape[1]
        rest = tuple(px.shape[3:])
        r = _run(op, "out", [px.reshape((B * N, C) + rest), pt.reshape((B * N,) + rest), weight,
                             "none", ignore])
        if N == 1 and not rest and red == "mean" and weight is None and \
                not (all_values(pt._data) == ignore).any():
            return _wrap(r, level)   # (one example's mean of one loss, none ignored: itself)
        lead = (B, N) + rest
    r = r.reshape(lead)
    if red == "none":
        return _wrap(r if nd > 1 else r, level)
    flat = r.reshape(B, -1)
    if red == "sum":
        return _wrap(flat.sum(1), level)
    valid = (pt != ignore).reshape(B, -1)
    if isinstance(weight, Tensor):
        safe = pt.reshape(B, -1) * valid
        wsum = (weight[safe] * valid).sum(1)
    else:
        wsum = valid.sum(1).to(flat.dtype)
    return _wrap(flat.sum(1) / wsum, level)


def class_margin_rule(op, kind, sig, nt, lv):
    """multi_margin_loss(self, target, weight, ...) and multilabel_margin_loss(self, target,
    ...): the batch folds into the samples (N), the unreduced losses are reduced per
    example.  A batched class weight or a 0-d input take the per-example loop."""
    level, B = lv.level, lv.size
    x, target = sig[0], sig[1]
    if x._data.ndim == 0 or (op.name == "multi_margin_loss" and isinstance(sig[2], Tensor)
                             and _phys(sig[2], level) is not None):
        return NotImplemented
    ri = op.params.index("reduction")
    red = sig[ri]
    px, pt = _expand(x, level, B), _expand(target, level, B)
    C = px.shape[-1]
    new = list(sig)
    new[0] = px.reshape(-1, C)
    new[1] = pt.reshape(-1, C) if op.name == "multilabel_margin_loss" else pt.reshape(-1)
    new[ri] = "none"
    r = _run(op, "out", new)
    if red == "none":
        shape = (B,) + (tuple(target.shape) if op.name == "multi_margin_loss"
                        else tuple(x.shape[:-1]))
        return _wrap(r.reshape(shape), level)
    return _wrap(_reduce(r.reshape(B, -1), red, B), level)
