"""Forward-mode AD of custom Functions (autograd/function.py): PyTorch's
_process_forward_mode_AD -- the user's ``jvp`` run on the inputs' tangents, its results
checked and given to the outputs."""
from __future__ import annotations

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor
from ..ops.forward_mode import _fallback, tangent_of


def _forward_ad(cls, ctx, args, is_tensor, outs, lvl):
    """PyTorch's _process_forward_mode_AD: run the user's jvp on the inputs' tangents and give
    the outputs theirs, checking that an in-place Function updated the tangent in place and
    that a view returned by forward gets a view of the matching tangent."""
    tangents = []
    given = []
    for a, t in zip(args, is_tensor):
        tan = tangent_of(a, lvl) if t else None
        given.append(tan)
        if tan is None and t and a._data.dtype.kind in "fcV":
            # an input without a tangent gets zeros; one of an integer type gets None
            tan = Tensor._wrap(np.zeros_like(a._data))
        tangents.append(tan)
    if all(g is None for g in given):
        return
    tls.fw_level = None
    tls.refresh()
    ctx._in_jvp = True
    try:
        if lvl.batch is None:
            res = _checked_jvp(cls, ctx, args, tangents, given, outs)
        else:
            # batched tangents (functional.jacobian's forward mode): a custom jvp sees one
            # tangent per input, so it runs once per batch entry (the batched fallback)

            def one(tb):
                return _checked_jvp(cls, ctx, args, [z if b is None else b
                                                     for b, z in zip(tb, tangents)], tb, outs)
            res = _fallback(cls.__name__, one, outs, given, lvl.batch)
    finally:
        ctx._in_jvp = False
        tls.fw_level = lvl
        tls.refresh()
    dirty = {id(d) for d in ctx.dirty_tensors}
    for o, t in zip(outs, res):
        if isinstance(o, Tensor) and t is not None:
            if id(o) in dirty and lvl.batch is not None:
                for a, g in zip(args, given):
                    if a is o and g is not None:
                        t = g   # (updated in place through the per-sample slices)
            o._fw = (lvl, t)


def _version(t):
    vc = t._vc
    return 0 if vc is None else vc.value  # (compared with itself only: detach_ bumps count)


def _checked_jvp(cls, ctx, args, tangents, given, outs):
    """``ctx.apply_jvp(*tangents)`` as a tuple, one tangent per output, checked as PyTorch
    checks them (``given``: the tangents the inputs had, None where zeros stand in)."""
    versions = [None if g is None else _version(g) for g in given]
    res = ctx.apply_jvp(*tangents)
    if not isinstance(res, tuple):
        res = (res,)
    if len(res) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(res)}): {cls.__name__}.jvp "
                           "must return one tangent (or None) per output of forward")
    dirty = {id(d) for d in ctx.dirty_tensors}
    bases = {}
    for k, a in enumerate(args):
        if isinstance(a, Tensor):
            bases.setdefault(id(a._base if a._base is not None else a), k)
    for i, (o, t) in enumerate(zip(outs, res)):
        if not isinstance(o, Tensor):
            continue
        if i in ctx._non_diff_outs or o._data.dtype.kind not in "fcV":
            if t is not None:
                raise RuntimeError(
                    f"Function's jvp returned a gradient at position {i}, but  the "
                    "corresponding forward output is not a differentiable Tensor.You should "
                    f"return None at that position instead. ({cls.__name__}.jvp)")
            continue
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"{cls.__name__}.jvp must return Tensors or None")
        if t._data.shape != o._data.shape:
            raise RuntimeError(
                f"{cls.__name__}.jvp returned a tangent of shape {list(t._data.shape)} for "
                f"an output of shape {list(o._data.shape)}")
        if id(o) in dirty:
            k = next((k for k, a in enumerate(args) if a is o), None)
            if k is not None and given[k] is not None:
                if _version(t) == versions[k]:
                    raise RuntimeError(
                        "An inplace custom Function is not modifying the forward mode "
                        "gradients inplace. If the forward is modifying an input inplace, then "
                        "the jvp function must modify the corresponding gradient inplace. "
                        f"({cls.__name__}.jvp: update input {k}'s tangent in place, e.g. "
                        "t.mul_(2), and return it)")
                if t is not given[k]:
                    raise RuntimeError(
                        "An inplace custom Function is not returning the forward mode "
                        "gradients as-is. If the forward is modifying an input inplace, then "
                        "the jvp function must modify the gradient inplace and return it "
                        f"as-is. ({cls.__name__}.jvp, input {k})")
            continue
        k = bases.get(id(o._base)) if o._base is not None else None
        if k is None or given[k] is None:
            continue
        g = given[k]
        if t._base is None:
            raise RuntimeError(
                "A custom Function's forward is returning a view (or an input as-is) but the "
                f"jvp is not returning a view. ({cls.__name__}.jvp: return a view of the "
                f"tangent of input {k} for output {i}, e.g. t.view_as(t) for an input "
                "returned as-is)")
        if g._base is not None:
            if t._base is not g._base:
                raise RuntimeError(
                    "A custom Function is returning a view but the jvp is not returning a "
                    f"view of the same base as the given grad input. ({cls.__name__}.jvp, "
                    f"output {i}, input {k})")
        elif t._base is not g:
            raise RuntimeError(
                "A custom Function is returning a view but the jvp is not returning a view of "
                f"the given grad input. ({cls.__name__}.jvp, output {i}, input {k})")
    return res
