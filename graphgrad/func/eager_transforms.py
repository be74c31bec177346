"""torch.func's transforms other than vmap: grad, grad_and_value, vjp, jvp, linearize,
jacrev, jacfwd, hessian.

How a transform keeps its own differentiation apart from the caller's (PyTorch's functorch
does it with levels of wrapper tensors; here the autograd graph itself tells):

- Every differentiated input gets a fresh stand-in (``_Scope.fresh``): a detached leaf that
  requires grad -- or, when the caller's tensor requires grad and grad mode is on, a view
  of it, so that the result stays differentiable for the caller (an outer transform or
  plain ``backward()``).  Differentiating with respect to the stand-in, never the caller's
  tensor, is what keeps ``grad(lambda x: grad(lambda y: x * y)(x))`` at 1 (no
  perturbation confusion).  A forward-mode tangent of the input (an enclosing ``jvp`` or
  ``jacfwd``) is put back on the stand-in.
- The transform's backward builds a graph (``create_graph``) only when someone outside
  can use it: the output's graph reaches a leaf that is not one of this transform's
  stand-ins (an outer transform's stand-in, a caller's parameter), or a forward-mode level
  is active (the tangents flow through the recorded backward).  Results that reach no
  such leaf are detached (``_Scope.export``): ``grad(f)(x)`` does not require grad unless
  something outside needs it, as in PyTorch.
- Transforms ignore an enclosing ``no_grad`` for their own computation (they run under
  grad mode) while respecting it for the caller: under ``no_grad`` nothing is connected to
  the caller's graph.
- ``jvp`` uses forward mode (a dual level); inside another forward-mode transform (forward
  levels do not nest) it uses the double-backward trick instead, which the outer level
  differentiates.  ``jacfwd`` is one forward pass with batched tangents (the identity's
  rows as a leading batch dim, as ``autograd.functional.jacobian(strategy="forward-mode",
  vectorize=True)``); nested in a forward-mode transform it computes the same Jacobian in
  reverse mode.  ``jacrev`` is one batched backward (``is_grads_batched``), one per chunk
  with ``chunk_size``.

NumPy arrays: differentiated arguments given as ndarrays are turned into Tensors for the
function and the results that belong to them come back as ndarrays.
"""
from __future__ import annotations

import functools

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor
from ..autograd import grad as _ag_grad
from ..autograd import forward_ad as fwAD
from ..autograd.functional import _grad_mode, _jacobian_block, _standard_basis
from ..ops.api.copies import cat as _cat
from ._pytree import tree_flatten, tree_unflatten
from ._batching import levels as _vmap_levels_fn
from ._transform_scope import (  # noqa: F401  (re-exported: this module's names before the split)
    _Scope, _args_from_numpy, _check_argnums_type, _check_leaves, _check_outputs, _from_numpy,
    _normalize_argnums, _numpy_tree, _replace, _select, _split_aux, _to_numpy, _zeros)
from ._grad import (  # noqa: F401  (grad's family, split off; _backward is every transform's)
    _backward, _grad_and_value, _hips_argnums, _in_vmap, grad, grad_and_value)

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd",
           "hessian"]

_wrap = Tensor._wrap
_vmap_levels = _vmap_levels_fn


# ----------------------------------------------------------------- vjp
def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)`` (plus ``aux`` with ``has_aux``); ``vjp_fn(cotangents)``
    -- cotangents shaped like the output's pytree -- returns a tuple with one VJP per
    primal, and can be called several times."""
    if _vmap_levels():   # inside vmap: per-example VJPs (func/vmap.py)
        return _in_vmap().batched_vjp(func, primals, has_aux, _vjp)
    return _vjp(func, *primals, has_aux=has_aux)


def _vjp(func, *primals, has_aux=False):
    api = "vjp(f, *primals)"
    leaves, spec = tree_flatten(primals)
    leaves, np_flags = _from_numpy(leaves)
    _check_leaves(leaves)
    scope = _Scope()
    with _grad_mode(True):
        copies = [scope.fresh(t) for t in leaves]
        out = func(*tree_unflatten(copies, spec))
        aux = None
        if has_aux:
            out, aux = _split_aux(out, api)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, api)
        for o in flat_out:
            if o._data.dtype.kind not in "fc" or o.dtype.category < 2:
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
    all_np = bool(np_flags) and all(np_flags)
    result = tree_unflatten([scope.export(o) for o in flat_out], out_spec)
    if all_np:
        result = _numpy_tree(result)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of outputs to the function. cotangents: {cot_spec}, "
                               f"primal output: {out_spec}")
        flat_cot, _ = _from_numpy(flat_cot)
        for c, o in zip(flat_cot, flat_out):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"vjp_fn: Expected cotangents to only contain Tensors, got "
                                   f"{type(c)}")
            if c._data.shape != o._data.shape:
                raise RuntimeError(f"vjp_fn: Mismatch in shape: the cotangent has a shape of "
                                   f"{c.shape} and the output of f has a shape of {o.shape}.")
        grad_on = tls.grad_enabled
        with _grad_mode(True):
            if create_graph is None:
                cg = tls.fw_level is not None or (grad_on and (
                    scope.reaches_external(flat_out)
                    or any(c._requires_grad for c in flat_cot)))
            else:
                cg = bool(create_graph)
            if _vmap_levels() and _in_vmap().any_batched(flat_cot):   # vmap(vjp_fn)
                gs = _in_vmap().vjp_of_unbatched_graph(
                    flat_out, flat_cot,
                    lambda cots: _backward(flat_out, copies, cots, cg, batched=True))
            else:
                gs = _backward(flat_out, copies, flat_cot, cg)
        res = []
        for g, c, is_np in zip(gs, copies, np_flags):
            if g is None:
                g = _zeros(c._data.shape, c._data.dtype)
            elif grad_on:
                g = scope.export(g)
            else:
                g = g.detach()
            res.append(_to_numpy(g, is_np) if is_np else g)
        return tree_unflatten(res, spec)

    if has_aux:
        return result, vjp_fn, scope.export_tree(aux)
    return result, vjp_fn


# ----------------------------------------------------------------- jvp / linearize
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)`` (plus ``aux`` with ``has_aux``); ``primals`` and
    ``tangents`` are tuples of the same pytree structure."""
    if _vmap_levels():   # inside vmap: per-example JVPs (func/vmap.py)
        return _in_vmap().batched_jvp(
            func, primals, tangents, strict, has_aux,
            lambda f, p, t, strict, has_aux: _jvp(f, p, t, strict, has_aux,
                                                  "jvp(f, primals, tangents)"))
    return _jvp(func, primals, tangents, strict, has_aux, "jvp(f, primals, tangents)")


def _jvp(func, primals, tangents, strict, has_aux, api):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    flat_p, spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {spec} and tangents with "
                           f"structure {t_spec}")
    flat_p, p_np = _from_numpy(flat_p)
    flat_t, _ = _from_numpy(flat_t)
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got "
                                   f"{type(x)}")
    for i, (p, t) in enumerate(zip(flat_p, flat_t)):
        if p._data.shape != t._data.shape:
            raise RuntimeError(
                f"{api}: tangent {i} has shape {list(t._data.shape)}, which does not match "
                f"the shape {list(p._data.shape)} of primal {i}; each tangent must have its "
                "primal's shape. (Trying to set a forward gradient that has a different size "
                "than that of the original Tensor, this is not supported.)")
    # (PyTorch casts a tangent to its primal's dtype)
    flat_t = [t if t._data.dtype == p._data.dtype else t.to(p.dtype)
              for p, t in zip(flat_p, flat_t)]
    if tls.fw_level is None:
        out = _jvp_forward(func, flat_p, flat_t, spec, strict, has_aux, api)
    else:
        out = _jvp_double_backward(func, flat_p, flat_t, spec, strict, has_aux, api)
    if p_np and all(p_np):
        out = (_numpy_tree(out[0]), _numpy_tree(out[1])) + out[2:]
    return out


def _jvp_forward(func, flat_p, flat_t, spec, strict, has_aux, api):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(flat_p, flat_t)]
        out = func(*tree_unflatten(duals, spec))
        aux = None
        if has_aux:
            out, aux = _split_aux(out, api)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, api)
        tans = []
        for o in flat_out:
            tan = fwAD.unpack_dual(o).tangent
            if tan is None:
                if strict:
                    raise RuntimeError(f"{api[:-1]}, strict=True): The output of f is "
                                       "independent of the inputs. This is not allowed with "
                                       "strict=True.")
                tan = _zeros(o._data.shape, o._data.dtype)
            tans.append(tan)
    # (once the level is gone the outputs' tangents are not seen: they are plain tensors)
    res = (tree_unflatten(flat_out, out_spec), tree_unflatten(tans, out_spec))
    return res + (aux,) if has_aux else res


def _jvp_double_backward(func, flat_p, flat_t, spec, strict, has_aux, api):
    """J v inside another forward-mode transform: the VJP ``u -> J^T u`` is linear in u,
    and its gradient with respect to u along v is J v (all recorded, so the enclosing
    level's tangents flow through)."""
    scope = _Scope()
    with _grad_mode(True):
        copies = [scope.fresh(p) for p in flat_p]
        out = func(*tree_unflatten(copies, spec))
        aux = None
        if has_aux:
            out, aux = _split_aux(out, api)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, api)
        us = []
        for o in flat_out:
            u = _zeros(o._data.shape, o._data.dtype)
            u.requires_grad_(True)
            us.append(u)
        gs = _backward(flat_out, copies, us, True)
        pairs = [(g, t) for g, t in zip(gs, flat_t) if g is not None and g._requires_grad]
        if pairs:
            jv = _ag_grad([g for g, _ in pairs], us, [t for _, t in pairs], retain_graph=True,
                          create_graph=True, allow_unused=True)
        else:
            jv = (None,) * len(us)
    tans = []
    for t, o in zip(jv, flat_out):
        if t is None:
            if strict:
                raise RuntimeError(f"{api[:-1]}, strict=True): The output of f is independent "
                                   "of the inputs. This is not allowed with strict=True.")
            t = _zeros(o._data.shape, o._data.dtype)
        tans.append(scope.export(t))
    res = (scope.export_tree(tree_unflatten(flat_out, out_spec)), tree_unflatten(tans, out_spec))
    return res + (scope.export_tree(aux),) if has_aux else res


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the JVP at ``primals``.

    (PyTorch traces the JVP once into a graph; here ``jvp_fn`` re-runs ``jvp``, which
    gives the same values.)"""
    flat_p, spec = tree_flatten(primals)
    shapes = [getattr(p, "shape", None) for p in flat_p]
    zeros = tree_unflatten([p.detach() * 0 if isinstance(p, Tensor) else p for p in flat_p],
                           spec)
    out, _ = jvp(func, primals, zeros)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the "
                               f"primals {spec}")
        for i, (t, s) in enumerate(zip(flat_t, shapes)):
            if getattr(t, "shape", None) != s:
                raise RuntimeError(f"tangent:{i} with shape {getattr(t, 'shape', None)} in "
                                   f"flattened pytree doesn't match the shape {s} of the "
                                   "corresponding primal.")
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


# ----------------------------------------------------------------- jacobians
def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``jacrev(func, argnums)(*args)``: the Jacobian of ``func`` with respect to the
    arguments ``argnums`` in reverse mode -- one batched backward (one per ``chunk_size``
    rows).  For each output leaf: the Jacobian (``out.shape + in.shape``) with the
    structure of ``argnums``'s arguments."""
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    _check_argnums_type(argnums)

    @functools.wraps(func)
    def wrapper(*args):
        if _vmap_levels():   # inside vmap: per-example Jacobians (func/vmap.py)
            return _in_vmap().batched_jac(
                func, argnums, has_aux, args,
                lambda f, a, h, xs: _jacrev(f, a, h, chunk_size, xs),
                _normalize_argnums, _select, _replace)
        return _jacrev(func, argnums, has_aux, chunk_size, args)
    return wrapper


def _jacrev(func, argnums, has_aux, chunk_size, args):
    api = "vjp(f, *primals)"
    argnums = _normalize_argnums(argnums, len(args))
    leaves, spec = tree_flatten(_select(args, argnums))
    leaves, np_flags = _from_numpy(leaves)
    args = _args_from_numpy(args)
    _check_leaves(leaves)
    scope = _Scope()
    with _grad_mode(True):
        copies = [scope.fresh(t) for t in leaves]
        out = func(*_replace(args, argnums, tree_unflatten(copies, spec)))
        aux = None
        if has_aux:
            out, aux = _split_aux(out, api)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, api)
        cg = scope.need_graph(flat_out)
        blocks = _jacobian_rows(flat_out, copies, chunk_size, cg)
    res = []
    off = 0
    for o in flat_out:
        n = o._data.size
        row = []
        for b, c, is_np in zip(blocks, copies, np_flags):
            shape = o._data.shape + c._data.shape
            if b._requires_grad:
                part = b if n == b._data.shape[0] else b[off:off + n]
                j = scope.export(part.reshape(shape))
            else:
                j = _wrap(b._data[off:off + n].reshape(shape))
            row.append(_to_numpy(j, is_np) if is_np else j)
        res.append(tree_unflatten(row, spec))
        off += n
    result = tree_unflatten(res, out_spec)
    if has_aux:
        return result, scope.export_tree(aux)
    return result


def _jacobian_rows(flat_out, inputs, chunk_size, cg):
    """Per input, the ``(N, *in_shape)`` block of VJPs with the N rows of the identity over
    all output elements: one batched backward per chunk of rows."""
    numels = [o._data.size for o in flat_out]
    total = sum(numels)
    basis = _standard_basis(flat_out, numels)
    step = total if chunk_size is None or chunk_size >= total else int(chunk_size)
    chunks = [(s, min(s + step, total)) for s in range(0, total, max(step, 1))]
    per_chunk = []
    for s, e in chunks:
        cots = [_wrap(b if (s, e) == (0, total) else b[s:e]) for b in basis]
        per_chunk.append(_backward(flat_out, inputs, cots, cg, batched=True))
    blocks = []
    for j, inp in enumerate(inputs):
        d = inp._data
        parts = []
        for (s, e), gs in zip(chunks, per_chunk):
            g = gs[j]
            parts.append(_zeros((e - s,) + d.shape, d.dtype) if g is None else g)
        if not parts:
            blocks.append(_zeros((0,) + d.shape, d.dtype))
        elif len(parts) == 1:
            blocks.append(parts[0])
        elif any(p._requires_grad for p in parts):
            blocks.append(_cat(parts, 0))
        else:
            blocks.append(_wrap(np.concatenate([p._data for p in parts])))
    return blocks


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``jacfwd(func, argnums)(*args)``: the Jacobian in forward mode -- one pass of
    ``func`` with the identity's rows as a batch of tangents.  Same structure as
    ``jacrev``'s result."""
    _check_argnums_type(argnums)

    @functools.wraps(func)
    def wrapper(*args):
        if randomness not in ("error", "different", "same"):
            raise RuntimeError("Only allowed values for randomness are 'error', 'different', "
                               f"or 'same'. Got {randomness}")
        if _vmap_levels():   # inside vmap: per-example Jacobians (func/vmap.py)
            return _in_vmap().batched_jac(
                func, argnums, has_aux, args,
                lambda f, a, h, xs: (_jacrev(f, a, h, None, xs) if tls.fw_level is not None
                                     else _jacfwd(f, a, h, xs)),
                _normalize_argnums, _select, _replace)
        if tls.fw_level is not None:   # forward levels do not nest: same Jacobian, reverse
            return _jacrev(func, argnums, has_aux, None, args)
        return _jacfwd(func, argnums, has_aux, args)
    return wrapper


def _jacfwd(func, argnums, has_aux, args):
    api = "jvp(f, primals, tangents)"
    argnums = _normalize_argnums(argnums, len(args))
    leaves, spec = tree_flatten(_select(args, argnums))
    leaves, np_flags = _from_numpy(leaves)
    args = _args_from_numpy(args)
    _check_leaves(leaves)
    numels = [t._data.size for t in leaves]
    total = sum(numels)
    basis = _standard_basis(leaves, numels)
    with fwAD._batched_dual_level(total):
        duals = [fwAD.make_dual(t, _wrap(b)) for t, b in zip(leaves, basis)]
        out = func(*_replace(args, argnums, tree_unflatten(duals, spec)))
        aux = None
        if has_aux:
            out, aux = _split_aux(out, api)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, api)
        tans = [fwAD.unpack_dual(o).tangent for o in flat_out]
    res = []
    for o, tan in zip(flat_out, tans):
        row = []
        off = 0
        for t, n, is_np in zip(leaves, numels, np_flags):
            if tan is not None and tan._data.dtype != o._data.dtype:
                tan = tan.to(o.dtype)
            j = _jacobian_block(tan, off, n, o._data, t._data)
            row.append(_to_numpy(j, is_np) if is_np else j)
            off += n
        res.append(tree_unflatten(row, spec))
    result = tree_unflatten(res, out_spec)
    return (result, aux) if has_aux else result


def hessian(func, argnums=0, *, argnum=None):
    """``hessian(func, argnums)(*args)``: ``jacfwd(jacrev(func, argnums), argnums)``
    (forward-over-reverse), as in PyTorch.  ``argnum=`` (HIPS autograd's name) may be
    given instead of ``argnums``."""
    argnums = _hips_argnums(argnums, argnum, "hessian")
    return jacfwd(jacrev(func, argnums), argnums)
