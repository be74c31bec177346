"""Forward-mode AD (seed 004): dual levels, make_dual / unpack_dual, tangent propagation.

A dual tensor carries ``_fw = (level, tangent)``.  The dispatcher calls
``push_tangents`` after an op when a level is active; it evaluates the op's
JVP rule from the table (``LINEAR``, ``ELEMENTWISE`` or an explicit rule)
with the tangents, with the level switched off while it does so.  Tangents
are Tensors, so the JVP computation is itself recorded by reverse mode when
grad mode is on (forward-over-reverse).  A tangent belongs to one level;
once the level exits, the tangent is no longer seen.

Batched tangents (private: ``_batched_dual_level(n)``, used by
``functional.jacobian(strategy="forward-mode")``): every tangent of the level
has one extra leading dim of size n -- n tangents pushed through the function
in one pass, a small vmap for tangents only.  Each op declares in the table
how its JVP takes them (``batched_jvp``, see ``_ops/registry.py``); an op
without a declaration goes through the fallback, which runs the unbatched
JVP once per batch entry and stacks the results, and is counted in
``_fallback_calls`` (tests assert that common functions never need it).
The zeros standing in for inputs without a tangent stay unbatched;
broadcasting covers them.
"""
from __future__ import annotations

import itertools
from collections import Counter, namedtuple

import numpy as np

from .._state import tls

__all__ = ["dual_level", "make_dual", "unpack_dual", "enter_dual_level", "exit_dual_level",
           "UnpackedDualTensor"]

_level_ids = itertools.count()


class _Level:
    __slots__ = ("idx", "alive", "batch")

    def __init__(self, idx, batch=None):
        self.idx = idx
        self.alive = True
        self.batch = batch   # None, or the size of the leading batch dim of every tangent


def enter_dual_level():
    """Start a new forward-AD level and return its index (nesting is not supported)."""
    return _enter_level(None)


def _enter_level(batch):
    if tls.fw_level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    # levels are numbered by nesting depth, as in PyTorch (only one can be active: 0)
    lvl = _Level(0, batch)
    tls.fw_level = lvl
    tls.refresh()
    return lvl.idx


def exit_dual_level(*, level=None):
    lvl = tls.fw_level
    if lvl is None or (level is not None and level != lvl.idx):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    lvl.alive = False
    tls.fw_level = None
    tls.refresh()


def __getattr__(name):
    # PyTorch's module variable ``_current_level``: the active level's index, -1 outside
    # any (code checks ``fwAD._current_level >= 0`` to know it runs under forward AD)
    if name == "_current_level":
        lvl = tls.fw_level
        return -1 if lvl is None else lvl.idx
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class dual_level:
    """Context manager for a forward-AD level: tangents made inside vanish on exit."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


class _batched_dual_level:
    """A dual level whose tangents all carry a leading batch dim of ``batch_size``
    (private; ``make_dual`` then takes tangents of shape ``(batch_size, *primal.shape)``
    and ``unpack_dual`` returns such tangents)."""

    def __init__(self, batch_size):
        self.batch_size = int(batch_size)

    def __enter__(self):
        return _enter_level(self.batch_size)

    def __exit__(self, *exc):
        exit_dual_level()


UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def _current(level):
    lvl = tls.fw_level
    if lvl is None:
        return None
    if level is not None and level != lvl.idx:
        raise RuntimeError(f"level {level} is not the current forward AD level ({lvl.idx})")
    return lvl


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` as its forward gradient."""
    from .._tensor import Tensor
    lvl = _current(level)
    if lvl is None:
        raise RuntimeError(
            "To create a dual Tensor, you need to be in a forward-mode AD level. Use `with "
            "graphgrad.autograd.forward_ad.dual_level():` (or enter_dual_level()) first.")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("make_dual expects Tensors for both the primal and the tangent")
    if tensor._data.dtype.kind not in "fcV" or (tensor.dtype.category < 2):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if tangent._data.dtype.kind not in "fcV" or (tangent.dtype.category < 2):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    want = tensor._data.shape if lvl.batch is None else (lvl.batch,) + tensor._data.shape
    if tangent._data.shape != want:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}."
            + ("" if lvl.batch is None else f" (a batched level: expected {list(want)})"))
    if tangent._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"Expected tangent to have the same dtype as the primal "
                           f"({tensor.dtype}), got {tangent.dtype}")
    if tangent_of(tangent, lvl) is not None:
        raise RuntimeError(
            f"Setting a forward grad that itself has a forward gradient at the same level "
            f"{lvl.idx} is not supported. (make_dual: pass the tangent's primal, "
            "unpack_dual(tangent).primal, or nest a second dual_level)")
    if tls.inference:
        # PyTorch sets no forward grad in inference mode: the result is a view of a normal
        # tensor, and a plain alias of an inference tensor's memory (no views are tracked on
        # those), without a tangent; in-place ops on it still change ``tensor``
        from .saved import INFERENCE
        if tensor._vc is INFERENCE:
            from .._tensor import Tensor as _T
            return _T._wrap(tensor._data)
        return _alias_no_fw(tensor, view=True)
    out = _alias_no_fw(tensor, view=True)  # PyTorch's _make_dual: a view (ViewBackward0)
    out._fw = (lvl, tangent)
    return out


def _alias_no_fw(tensor, view=False):
    from .._ops.dispatch import dispatch
    from .._ops.shape import ALIAS, VIEW
    saved = tls.fw_level
    tls.fw_level = None
    tls.refresh()
    try:
        out = dispatch(VIEW, tensor, tensor._data.shape) if view else dispatch(ALIAS, tensor)
        out._fw_nondiff = True  # (PyTorch's _fw_primal: never takes its base's tangent)
        return out
    finally:
        tls.fw_level = saved
        tls.refresh()


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of a dual tensor; tangent is None if it has none at this level."""
    lvl = _current(level)
    if lvl is None:
        return UnpackedDualTensor(tensor, None)
    # (the primal is always a view that never takes a tangent, as PyTorch's _fw_primal: a
    # view of it must not see one its base gets later)
    return UnpackedDualTensor(_alias_no_fw(tensor), tangent_of(tensor, lvl))


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
    from .._tensor import Tensor
    from .._ops.dispatch import replay_view
    if lvl is None or lvl.batch is not None or getattr(view, "_fw_nondiff", False):
        return None
    fw = view._base._fw
    if fw is None or fw[0] is not lvl:
        return None
    bt = fw[1]
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
    from .._tensor import Tensor
    return Tensor._wrap(np.zeros_like(x._data))


def _env(op, args, outs):
    """Values a rule may ask for, by name."""
    from .._tensor import Tensor
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
    from .._tensor import Tensor
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
    from .engine import _dense
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
    from .._tensor import Tensor
    from .._ops import formulas as F
    from .._ops.dispatch import dispatch
    from .._ops.registry import ELEMENTWISE, LINEAR
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
    from .._tensor import Tensor
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
    from .._tensor import Tensor
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
    from .._ops.registry import ELEMENTWISE, POINTWISE
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
    from .._tensor import Tensor
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
    from .._tensor import Tensor
    if t._requires_grad:
        return t[b]
    return Tensor._wrap(t._data[b])


def _stack(rs, o, batch):
    from .._tensor import Tensor
    if not rs:
        return Tensor._wrap(np.zeros((batch,) + o._data.shape, o._data.dtype))
    if any(r._requires_grad for r in rs):
        from .._ops.copies import stack
        return stack(rs, 0)
    return Tensor._wrap(np.stack([r._data for r in rs]))


def _share_with_saved_output(o):
    """A node that saved its own output gets the output's tangent too, so that a backward
    formula using ``result`` under forward AD (forward-over-reverse) sees it."""
    from .saved import SavedVariable
    node = o._grad_fn
    saved = getattr(node, "_saved", None) if node is not None else None
    if not saved:
        return
    for s in saved:
        if s.__class__ is SavedVariable and s.tensor is None and s.data is o._data:
            s.fw = o._fw


def _overlaps(a):
    from .._ops.dispatch import _overlaps
    return _overlaps(a)


def push_tangents_inplace(op, self, full, old):
    """Tangent of ``self`` after ``self.op_(*full[1:])`` (called by the dispatcher).

    ``old`` is a Tensor holding self's value from before the update.  The JVP rule is
    evaluated on ``(old, *args)``; the new tangent is written into self's existing tangent
    in place when possible, so that the tangents of views of the same dual tensor (views
    of its tangent) see the change, as in PyTorch.
    """
    from .._tensor import Tensor
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


def _into_base_tangent(view, new, lvl):
    """A view without a tangent got one from an in-place op: as in PyTorch, its base gets a
    tangent (zeros outside the view) and the view's tangent is the matching view of it.
    False when that cannot be done here (the caller then gives the view its own tangent)."""
    from .._tensor import Tensor
    from .._ops.dispatch import replay_view
    base = view._base
    if new._requires_grad or lvl.batch is not None:
        return False
    bt = tangent_of(base, lvl)
    if bt is None:
        if base._data.dtype.kind not in "fcV":
            return False
        bt = Tensor._wrap(np.zeros_like(base._data))
    elif bt._requires_grad or not bt._data.flags.writeable or _overlaps(bt._data):
        return False
    region = replay_view(view._view_fn, bt._data)
    if region.shape != new._data.shape or not np.may_share_memory(region, bt._data):
        return False
    np.copyto(region, new._data, casting="unsafe")
    base._fw = (lvl, bt)
    t = Tensor._wrap(region)
    view._fw = (lvl, t)
    return True
