"""Forward mode: the JVP half of dispatch.  When a dual level is active, each op's JVP rule
pushes the inputs' tangents to its outputs (``push_tangents``; in place:
``push_tangents_inplace``), batched along a leading dim under ``_batched_dual_level``.
The level API (``dual_level``, ``make_dual``, ``unpack_dual``) is autograd/forward_ad.py.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor
from .dispatch import dispatch, replay_view
from . import formulas as F
from .registry import ELEMENTWISE, LINEAR, POINTWISE
from ..autograd.saved import SavedVariable
from ..autograd.engine.accumulate import _dense

def tangent_of(x, lvl):
    fw = getattr(x, "_fw", None)
    if fw is not None and fw[0] is lvl:
        return fw[1]
    if getattr(x, "_base", None) is not None:
        return _view_tangent(x, lvl)
    return None


def _view_tangent(view, lvl):
    """A view without a tangent of its own has the matching view of its base's, as in
    PyTorch (whose views read their base's forward gradient lazily): a view taken before
    its base got a tangent through an in-place op (``w = c.permute(0); c[0] = dual``)
    sees it. None when the base has none (or the view cannot be replayed here)."""
    if lvl is None or getattr(view, "_fw_nondiff", False):
        return None
    fw = view._base._fw
    if fw is None or fw[0] is not lvl:
        return None
    bt = fw[1]
    if lvl.batch is not None:   # (B, *base shape): the view of each entry, one strided array
        if bt._requires_grad:
            return None
        region = _batched_region(view, bt._data)
        return None if region is None else Tensor._wrap(region)
    try:
        if bt._requires_grad:
            t = replay_view(view._view_fn, bt)
        else:
            t = Tensor._wrap(replay_view(view._view_fn, bt._data))
    except Exception:  # (a chain that does not apply to the tangent: no tangent, as before)
        return None
    if t._data.shape != view._data.shape:
        return None
    return t


def _zeros_like(x):
    return Tensor._wrap(np.zeros_like(x._data))


def _env(op, args, outs):
    """Values a rule may ask for, by name."""
    env = {}
    for i, p in enumerate(op.params):
        env[p] = args[i] if i < len(args) else None
        a = env[p]
        if i < len(op.tensor_params):
            env[p + "_sym_sizes"] = tuple(a._data.shape) if isinstance(a, Tensor) else ()
    env["result"] = outs[0]
    for k in range(1, len(outs)):
        env[f"result{k}"] = outs[k]
    return env


def push_tangents(op, args, outs):
    """Compute the outputs' tangents with the op's JVP rule (called by the dispatcher)."""
    lvl = tls.fw_level
    nt = len(op.tensor_params)
    tangents = [tangent_of(args[i], lvl) if isinstance(args[i], Tensor) else None
                for i in range(nt)]
    if all(t is None for t in tangents):
        return
    if not op.differentiable:
        return
    if op.jvp is None:
        raise NotImplementedError(f"Trying to use forward AD with {op.name} that does not "
                                  "support it because it has no JVP rule yet.")
    tls.fw_level = None
    tls.refresh()
    try:
        if lvl.batch is None:
            res = _jvp(op, args, outs, tangents)
        else:
            res = _jvp_batched(op, args, outs, tangents, lvl.batch)
    finally:
        tls.fw_level = lvl
        tls.refresh()
    if res is None:
        return
    results = res if isinstance(res, (tuple, list)) else (res,)
    for o, r in zip(outs, results):
        if r is None or o._data.dtype.kind not in "fcV":
            continue
        r = _fit(r, o, lvl.batch, op)
        if not op.is_view:
            r = _unaliased(r, o, args, tangents)
            if lvl.batch is None:
                r = _laid_out_like(r, o)
        o._fw = (lvl, r)
        _share_with_saved_output(o)


def _laid_out_like(r, o):
    """The tangent with its output's strides, as PyTorch gives a tangent that differs in
    layout from its primal (a row-major log_softmax of a transposed input, whose rule's
    tangent was transposed, so view() of it failed; fuzz seed 15648)."""
    rd, od = r._data, o._data
    if rd.strides == od.strides or r._requires_grad or rd.itemsize != od.itemsize or \
            all(a == b for a, b, n in zip(rd.strides, od.strides, od.shape) if n > 1):
        return r
    if not _dense(od):
        return r
    out = np.empty_like(od)
    out[...] = rd
    return r.__class__._wrap(out)


def _unaliased(r, o, args, tangents):
    """A JVP may hand back (a view of) an input's tangent, e.g. cumprod over a size-1 dim;
    unless the output aliases that input too, the tangent is copied, so that an in-place
    change of the output's tangent does not change the input's."""
    rd = r._data
    for a, t in zip(args, tangents):
        if t is not None and np.may_share_memory(rd, t._data) and not (
                a is not None and np.may_share_memory(o._data, a._data)):
            return r.clone() if r._requires_grad else r.__class__._wrap(rd.copy())
    return r


def _jvp(op, args, outs, tangents):
    """The op's JVP rule evaluated on ``tangents`` (None: the input has no tangent)."""
    if op.jvp is LINEAR:
        targs = list(args)
        for i in range(len(op.tensor_params)):
            a = args[i]
            if tangents[i] is not None:
                targs[i] = tangents[i]
            elif isinstance(a, Tensor):
                targs[i] = _zeros_like(a)
            elif a is not None:
                targs[i] = 0
        return dispatch(op, *targs)
    if op.jvp is ELEMENTWISE:
        fn, pnames = op.vjps[0]
        t = tangents[op.diff_pos[0]]
        if t is None:
            return None
        env = _env(op, args, outs)
        env["grad"] = F.conj(t)
        return F.conj(fn(*[env[p] for p in pnames]))
    return _call_rule(op.jvp, op.jvp_params, op, args, outs, tangents)


def _call_rule(rule, params, op, args, outs, tangents):
    env = _env(op, args, outs)
    for i, p in enumerate(op.tensor_params):
        t = tangents[i]
        if t is None:
            a = args[i]
            if isinstance(a, Tensor):
                t = _zeros_like(a)
                t._absent_tangent = True  # (formulas.absent: terms with it are skipped)
            else:
                t = 0.0
        env[p + "_t"] = t
    return rule(*[env[p] for p in params])


def _fit(r, o, batch, op):
    """A rule's result as the tangent of output ``o``: a Tensor of o's shape (with the
    level's batch dim in front) and dtype."""
    if not isinstance(r, Tensor):
        r = Tensor._wrap(np.asarray(r))
    shape = o._data.shape if batch is None else (batch,) + o._data.shape
    if r._data.shape != shape:
        if batch is None:
            r = r.expand(shape) if r._data.ndim <= len(shape) else r
        else:
            try:
                if r._data.ndim > len(shape):
                    raise RuntimeError
                r = r.expand(shape)
            except RuntimeError:
                raise RuntimeError(
                    f"internal error: the batched JVP of {op.name} gave a tangent of shape "
                    f"{list(r._data.shape)}; expected {list(shape)}") from None
    if r._data.dtype != o._data.dtype:
        r = r.to(o.dtype) if o._data.dtype.kind == "c" or r._data.dtype.kind != "c" else \
            r.real.to(o.dtype)
    return r


# ---------------------------------------------------------------- batched tangents
_fallback_calls = Counter()   # op name -> number of batched JVPs that took the fallback


def _jvp_batched(op, args, outs, tangents, batch):
    """The JVP for tangents with a leading batch dim (see ``batched_jvp`` in the registry)."""
    kind = op.batched_jvp
    if kind is None and op.jvp is ELEMENTWISE:
        kind = True   # the VJPs take batched gradients, so the rule takes batched tangents
    if kind is True:
        return _jvp(op, args, outs, tangents)
    if kind is POINTWISE:
        nd = max(o._data.ndim for o in outs)
        return _jvp(op, args, outs, [None if t is None else _pad(t, nd) for t in tangents])
    if kind is None:
        return _fallback(op.name, lambda tb: _jvp(op, args, outs, tb), outs, tangents, batch)
    return _call_rule(kind, op.batched_jvp_params, op, args, outs, tangents)


def _pad(t, nd):
    """A batched tangent ``(B, *shape)`` as ``(B, 1, ..., 1, *shape)`` of rank ``1 + nd``."""
    s = t._data.shape
    if len(s) - 1 >= nd:
        return t
    return t.reshape(s[:1] + (1,) * (nd + 1 - len(s)) + s[1:])


def _fallback(name, jvp_one, outs, tangents, batch):
    """The unbatched JVP ``jvp_one(tangents)`` once per batch entry, results stacked."""
    _fallback_calls[name] += 1
    per = []
    for b in range(batch):
        res = jvp_one([None if t is None else _select(t, b) for t in tangents])
        per.append(res if isinstance(res, (tuple, list)) else (res,))
    out = []
    for k, o in enumerate(outs):
        rs = [p[k] if k < len(p) else None for p in per]
        if not isinstance(o, Tensor) or o._data.dtype.kind not in "fcV" or (
                rs and all(r is None for r in rs)):
            out.append(None)
            continue
        out.append(_stack([_zeros_like(o) if r is None else _fit(r, o, None, None) for r in rs],
                          o, batch))
    return tuple(out)


def _select(t, b):
    if t._requires_grad:
        return t[b]
    return Tensor._wrap(t._data[b])


def _stack(rs, o, batch):
    if not rs:
        return Tensor._wrap(np.zeros((batch,) + o._data.shape, o._data.dtype))
    if any(r._requires_grad for r in rs):
        from .api.copies import stack
        return stack(rs, 0)
    return Tensor._wrap(np.stack([r._data for r in rs]))


def _share_with_saved_output(o):
    """A node that saved its own output gets the output's tangent too, so that a backward
    formula using ``result`` under forward AD (forward-over-reverse) sees it."""
    node = o._grad_fn
    saved = getattr(node, "_saved", None) if node is not None else None
    if not saved:
        return
    for s in saved:
        if s.__class__ is SavedVariable and s.tensor is None and s.data is o._data:
            s.fw = o._fw


def _overlaps(a):
    """Whether several elements of ``a`` are one memory location (an expanded dim)."""
    if a.size == 0:  # (NumPy gives an empty array zero strides: nothing is written)
        return False
    for n, s in zip(a.shape, a.strides):
        if s == 0 and n > 1:
            return True
    return False


def push_tangents_inplace(op, self, full, old):
    """Tangent of ``self`` after ``self.op_(*full[1:])`` (called by the dispatcher).

    ``old`` is a Tensor holding self's value from before the update.  The JVP rule is
    evaluated on ``(old, *args)``; the new tangent is written into self's existing tangent
    in place when possible, so that the tangents of views of the same dual tensor (views
    of its tangent) see the change, as in PyTorch.
    """
    lvl = tls.fw_level
    tangent = tangent_of(self, lvl)
    if old is None or (tangent is None and not any(
            isinstance(a, Tensor) and tangent_of(a, lvl) is not None for a in full[1:])):
        return
    if tangent is not None:
        old._fw = (lvl, tangent)
    out = Tensor._wrap(self._data)
    push_tangents(op, (old,) + tuple(full[1:]), (out,))
    new = tangent_of(out, lvl)
    if new is None:
        return
    if tangent is None and self._base is not None and _into_base_tangent(self, new, lvl):
        return
    if tangent is not None and not tangent._requires_grad and not new._requires_grad and \
            tangent._data.flags.writeable and tangent._data.shape == new._data.shape and \
            not _overlaps(tangent._data):
        np.copyto(tangent._data, new._data, casting="unsafe")
        return
    if not new._data.flags.writeable or _overlaps(new._data):  # a broadcast: own the memory
        new = Tensor._wrap(np.array(new._data)) if not new._requires_grad else new.clone()
    self._fw = (lvl, new)


def _batched_region(view, bt):
    """The view of each entry of a batched base tangent ``bt`` (B, *base shape) as one
    strided array (B, *view shape) into it, or None when the view does not replay."""
    try:
        r0 = replay_view(view._view_fn, bt[0])
    except Exception:
        return None
    if r0.shape != view._data.shape or not np.may_share_memory(r0, bt):
        return None
    return np.lib.stride_tricks.as_strided(r0, (bt.shape[0],) + r0.shape,
                                           (bt.strides[0],) + r0.strides)


def _into_base_tangent(view, new, lvl):
    """A view without a tangent got one from an in-place op: as in PyTorch, its base gets a
    tangent (zeros outside the view) and the view's tangent is the matching view of it.
    False when that cannot be done here (the caller then gives the view its own tangent)."""
    base = view._base
    if new._requires_grad:
        return False
    bt = tangent_of(base, lvl)
    if bt is None:
        if base._data.dtype.kind not in "fcV":
            return False
        shape = base._data.shape if lvl.batch is None else (lvl.batch,) + base._data.shape
        bt = Tensor._wrap(np.zeros(shape, base._data.dtype))
    elif bt._requires_grad or not bt._data.flags.writeable or _overlaps(bt._data):
        return False
    if lvl.batch is None:
        region = replay_view(view._view_fn, bt._data)
    else:   # (batched tangents, as jacfwd pushes: the view of each entry)
        region = _batched_region(view, bt._data)
        if region is None:
            return False
    if region.shape != new._data.shape or not np.may_share_memory(region, bt._data):
        return False
    np.copyto(region, new._data, casting="unsafe")
    base._fw = (lvl, bt)
    t = Tensor._wrap(region)
    view._fw = (lvl, t)
    return True
