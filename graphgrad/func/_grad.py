"""grad and grad_and_value (torch.func's), with the ``_backward`` every reverse-mode
transform of eager_transforms.py uses.  (eager_transforms.py's docstring tells how a
transform keeps its differentiation apart from the caller's.)

``grad(f)(x)``'s common call -- one float Tensor (or ndarray) argument on a plain thread
(grad mode on, not inside vmap) -- takes ``_grad_one``, which costs what
``f(x).backward()`` does; everything else takes ``_grad_and_value``.
"""
from __future__ import annotations

import functools

import numpy as np

from .._core.state import ALL_THREADS as _ALL_THREADS, tls
from .._core.version import INFERENCE as _INFERENCE, VersionCounter as _VersionCounter
from .._tensor.tensor import Tensor
from ..autograd import _one_like, backward as _ag_backward
from ..autograd import grad as _ag_grad
from ..autograd.engine import execute as _execute
from ..autograd.views import _edge
from ._pytree import LEAF, tree_flatten, tree_unflatten
from ._batching import levels as _vmap_levels_fn
from . import vmap as _vmap_module   # (the module; graphgrad.func.vmap becomes the function)
from ._transform_scope import (
    _ARRAY, _Scope, _args_from_numpy, _check_leaves, _from_numpy, _normalize_argnums,
    _replace, _select, _split_aux, _to_numpy, _zeros, reaches_other_leaf)

__all__ = ["grad", "grad_and_value"]

_wrap = Tensor._wrap
_vmap_levels = _vmap_levels_fn


def _in_vmap():
    return _vmap_module


def _backward(outs, inputs, cots, cg, batched=False):
    """``autograd.grad`` of the outputs that require grad, zeros for unreached inputs."""
    pairs = [(o, c) for o, c in zip(outs, cots) if o._requires_grad]
    if pairs:
        gs = _ag_grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                      retain_graph=True, create_graph=cg, allow_unused=True,
                      is_grads_batched=batched)
    else:
        gs = (None,) * len(inputs)
    return gs


# ----------------------------------------------------------------- grad / grad_and_value
def grad_and_value(func, argnums=0, has_aux=False):
    """``grad_and_value(func)(*args)`` -> ``(gradient, value)`` (``(gradient, (value,
    aux))`` with ``has_aux``): the gradient of the scalar ``func`` with respect to the
    arguments ``argnums`` (an int or a tuple of ints; each argument a Tensor or a pytree of
    Tensors)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if _vmap_levels():   # inside vmap: per-example gradients (func/vmap.py)
            return _in_vmap().batched_grad_and_value(func, argnums, has_aux, args, kwargs,
                                                     _grad_and_value_batched, _normalize_argnums,
                                                     _select, _replace)
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def _hips_argnums(argnums, argnum, api):
    """``argnums``, or HIPS autograd's ``argnum=`` (an int or a tuple/list of ints) when
    given instead."""
    if argnum is None:
        return argnums
    if not (isinstance(argnums, int) and not isinstance(argnums, bool) and argnums == 0):
        raise TypeError(f"{api}() got both argnums={argnums!r} and argnum={argnum!r} (HIPS "
                        "autograd's name for it); pass one of them")
    return tuple(argnum) if isinstance(argnum, list) else argnum


def grad(func, argnums=0, has_aux=False, *, argnum=None):
    """``grad(func)(*args)``: the gradient of the scalar ``func`` with respect to the
    arguments ``argnums``; ``(gradient, aux)`` with ``has_aux``.  ``argnum=`` (HIPS
    autograd's name; an int or a tuple/list) may be given instead of ``argnums``."""
    argnums = _hips_argnums(argnums, argnum, "grad")
    one = not has_aux and argnums.__class__ is int   # (_grad_one's kind of call)
    key = id(getattr(func, "__code__", func))        # (_grad_one's _REACHED_OUTSIDE)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        # (a plain thread -- grad mode on, nothing extra, NOTE [hot flags] -- has no vmap
        # or forward-AD level)
        if one and (_ALL_THREADS.plain or tls.plain):
            g = _grad_one(func, argnums, args, kwargs, key)
            if g is not _SLOW:
                return g
        if _vmap_levels():   # inside vmap: per-example gradients (func/vmap.py)
            g, value = _in_vmap().batched_grad_and_value(func, argnums, has_aux, args, kwargs,
                                                         _grad_and_value_batched,
                                                         _normalize_argnums,
                                                         _select, _replace)
        else:
            g, value = _grad_and_value(func, argnums, has_aux, args, kwargs, value=False)
        return (g, value[1]) if has_aux else g
    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs, accumulate=True, value=True):
    """(``accumulate=False``: never the plain backward into the stand-ins, whose .grad
    would be a copy when a stand-in is not dense -- vmap's expanded inputs; ``value=False``:
    the value is not wanted (``grad``), None in its place)"""
    api = "grad_and_value(f)(*args)"
    n = len(args)
    if argnums.__class__ is int and -n <= argnums < n:
        argnums %= n
        sel = args[argnums]
    else:
        argnums = _normalize_argnums(argnums, n)
        sel = _select(args, argnums)
    if sel.__class__ is Tensor:
        leaves, spec, np_flags = [sel], LEAF, _NO_NUMPY
    else:
        leaves, spec = tree_flatten(sel)
        leaves, np_flags = _from_numpy(leaves)
        _check_leaves(leaves)
    for a in args:
        if a.__class__ is not Tensor and isinstance(a, _CONTAINERS_OR_NUMPY):
            args = _args_from_numpy(args)
            break
    scope = _Scope()
    prev_mode = tls.grad_enabled
    if not prev_mode:
        tls.grad_enabled = True
    try:
        copies = [scope.fresh(t) for t in leaves]
        if argnums.__class__ is int:
            new_args = list(args)
            new_args[argnums] = copies[0] if spec is LEAF else tree_unflatten(copies, spec)
        else:
            new_args = _replace(args, argnums, tree_unflatten(copies, spec))
        output = func(*new_args, **kwargs)
        aux = None
        if has_aux:
            output, aux = _split_aux(output, api)
        return _grad_epilogue(scope, copies, output, aux, spec, np_flags, has_aux, accumulate,
                              value)
    finally:
        if not prev_mode:
            tls.grad_enabled = prev_mode


def _grad_epilogue(scope, copies, output, aux, spec, np_flags, has_aux, accumulate, value,
                   external=None):
    """grad_and_value once ``func`` ran on the stand-ins ``copies`` (under grad mode): the
    output's checks, the backward, the results for the caller.  ``external``: whether the
    output's graph reaches outside the scope, when the caller knows already."""
    api = "grad_and_value(f)(*args)"
    if not isinstance(output, Tensor):
        raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                           f"{type(output)}")
    od = output._data
    if od.ndim != 0:
        raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor "
                           f"with {od.ndim} dims. Maybe you wanted to use the vjp "
                           "or jacrev APIs instead?")
    if external is None:
        external = scope.reaches_external((output,))
    fw = tls.fw_level is not None
    if external or fw or not output._requires_grad:
        gs = _backward((output,), copies, (None,), True if external else fw)
    elif scope.ext_grad and accumulate:
        # the output's graph reaches none but our stand-ins (just walked): a plain
        # backward into them (the engine's fast loop) gives the gradients
        if od.dtype.kind == "f":
            _plain_backward(output)
        else:
            _ag_backward(output)   # (its checks: bfloat16 passes, complex raises)
        gs = [c._grad for c in copies]
    else:   # (the caller's leaves may be in the graph: they must not accumulate)
        gs = _backward((output,), copies, (None,), False)
    res = []
    for g, c, is_np in zip(gs, copies, np_flags):
        if g is None:
            g = _zeros(c._data.shape, c._data.dtype)
        elif g._requires_grad:
            g = scope.export(g)
        res.append(_to_numpy(g, is_np) if is_np else g)
    if value:
        value = scope.export(output, external)
        if np_flags and all(np_flags):
            value = _to_numpy(value)
    else:
        value = None
    g = res[0] if spec is LEAF else tree_unflatten(res, spec)
    if has_aux:
        return g, (value, scope.export_tree(aux))
    return g, value


def _plain_backward(output):
    """``output.backward()`` for a scalar float output that requires grad: the engine's
    plain loop, without Tensor.backward's argument checks."""
    _execute([_edge(output)], [_one_like(output._data)], False, False)   # (accumulate=True)


_SLOW = object()


def _grad_one(func, i, args, kwargs, key):
    """``grad(func, i)(*args)`` for the common call -- argument ``i`` a float Tensor that
    does not require grad (or a float ndarray), the others Tensors or plain Python values,
    on a plain thread (grad mode on; no vmap or forward-AD level, anomaly mode, profiler or
    saved-tensor hooks: the caller checks) -- at the cost of ``f(x).backward()``: no
    pytree, no scope unless the output turns out to need one.  ``_SLOW`` when the call is
    not of that kind (the general path then runs it)."""
    n = len(args)
    if not -n <= i < n:
        return _SLOW
    t = args[i]
    kind = 0
    if t.__class__ is not Tensor:
        if t.__class__ is not np.ndarray or t.dtype.kind != "f":
            return _SLOW
        t, kind = _wrap(np.array(t)), _ARRAY
    elif t._requires_grad or t._fw is not None or t._data.dtype.kind != "f":
        return _SLOW
    if n != 1:
        for a in args:
            if a.__class__ is not Tensor and isinstance(a, _CONTAINERS_OR_NUMPY) and \
                    a is not args[i]:
                return _SLOW
    # the stand-in: t.detach().requires_grad_() (a float tensor; an inference tensor takes
    # the general path, where requires_grad_ raises PyTorch's error)
    vc = t._vc
    if vc is None:
        vc = t._vc = _VersionCounter()
    elif vc is _INFERENCE:
        return _SLOW
    c = _wrap(t._data)
    c._vc = vc
    c._requires_grad = True
    if n == 1 and not kwargs:
        output = func(c)
    else:
        new_args = list(args)
        new_args[i] = c
        output = func(*new_args, **kwargs)
    external = None
    if output.__class__ is Tensor and output._requires_grad:
        od = output._data
        if od.ndim == 0 and od.dtype.kind == "f":
            # a plain backward into the stand-in alone, which stops, having changed
            # nothing, if the graph reaches another leaf (NOTE [backward into one leaf] in
            # autograd/engine/loop.py); for a function whose graph did reach one last time,
            # the walk that finds out first (the stopped backward's work would be lost)
            if key not in _REACHED_OUTSIDE:
                if _execute([_edge(output)], [_one_like(od)], True, False, only=c):
                    return _stand_in_grad(c, kind)
                if len(_REACHED_OUTSIDE) >= 256:
                    _REACHED_OUTSIDE.clear()
                _REACHED_OUTSIDE.add(key)
            else:
                external = reaches_other_leaf((output,), (id(c),))
                if not external:
                    _REACHED_OUTSIDE.discard(key)
                    _plain_backward(output)
                    return _stand_in_grad(c, kind)
    # anything else (an error to raise, a graph reaching outside): the general path's end,
    # with the scope fresh() would have made
    scope = _Scope()
    scope.internal.add(id(c))
    scope.keep += [c, c]
    scope.originals[id(c)] = t
    return _grad_epilogue(scope, [c], output, None, LEAF, (kind,), False, True, False,
                          external)[0]


def _stand_in_grad(c, kind):
    """The gradient a backward left in stand-in ``c`` (zeros when none reached it), as an
    ndarray when the argument was one (``kind``)."""
    g = c._grad
    if g is None:
        g = _zeros(c._data.shape, c._data.dtype)
    return _to_numpy(g, kind) if kind else g


# the ids of the code objects (of the callables without one: the callables; the ``key``
# grad's wrapper passes) whose graph reached a leaf other than grad's stand-in the last
# time _grad_one ran them: a hint only (an id reused by another object costs a walk; both
# ways give the same gradient)
_REACHED_OUTSIDE = set()


_NO_NUMPY = (0,)
_CONTAINERS_OR_NUMPY = (np.ndarray, np.generic, list, tuple, dict)


def _grad_and_value_batched(func, argnums, has_aux, args, kwargs):
    return _grad_and_value(func, argnums, has_aux, args, kwargs, accumulate=False)
