"""``vmap``: torch.func.vmap on graphgrad, a batching transform (see _batching.py).

``vmap(f)(x)`` runs ``f`` once on BatchedTensors: every op of the table takes its
batching rule (_batching_rules.py), so the ops run on the whole batch at once.

Transforms of graphgrad.func called *inside* vmap (``vmap(grad(f))``, the per-sample
gradients) differentiate the physical function instead (``batched_*`` below): every
differentiated input becomes a physical tensor batched at all active levels (an input not
batched is expanded, so each example gets its own copy and its own gradient), the
function runs on wrappers of it, and the gradient of the *sum over the batch* of its
output with respect to the physical input is the batch of per-example gradients, because
example ``b``'s output depends only on example ``b``'s input.
"""
from __future__ import annotations

import functools

from .._tensor.random import get_rng_state, set_rng_state
from .._tensor.tensor import Tensor
from ..autograd import grad as _ag_grad
from ..ops.api.copies import cat
from ..ops.kernels.shape import _expand_kernel
from . import _batching as _bt
from . import _batching_function, _batching_rules  # noqa: F401  (they register themselves)
from ._pytree import TreeSpec, tree_flatten, tree_unflatten
from ._transform_scope import _check_outputs

__all__ = ["vmap"]


def _get_name(func):
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def _broadcast_to_and_flatten(dims, spec):
    """``dims`` (an int/None, or a pytree prefix of ``spec``) as one entry per leaf of
    ``spec``; None when the structures do not match."""
    if spec.kind is None or not isinstance(dims, (tuple, list, dict)):
        if isinstance(dims, (tuple, list, dict)) and spec.kind is None:
            return None
        return [dims] * spec.num_leaves
    if spec.kind == "dict":
        if not isinstance(dims, dict) or set(dims) != set(spec.context):
            return None
        parts = [dims[k] for k in spec.context]
    elif spec.kind in ("tuple", "list") or spec.kind is not None:
        if spec.kind == "dict" or isinstance(dims, dict):
            return None
        if spec.kind == "list" and not isinstance(dims, list) or \
                spec.kind != "list" and not isinstance(dims, tuple):
            return None
        parts = list(dims)
    if len(parts) != len(spec.children):
        return None
    out = []
    for d, c in zip(parts, spec.children):
        r = _broadcast_to_and_flatten(d, c)
        if r is None:
            return None
        out += r
    return out


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None)``:
    ``func`` mapped over a dim of its inputs (torch.func.vmap).  ``in_dims``/``out_dims``:
    an int or None per input/output, or pytrees of them matching the inputs/outputs;
    ``randomness``: ``'error'`` (random ops raise), ``'different'`` (each example draws its
    own), ``'same'`` (one draw shared by the batch); ``chunk_size``: map that many examples
    at a time."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    if not callable(func):
        raise RuntimeError(f"vmap: Expected `func` to be a callable, got {type(func)}")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _process_inputs(func, in_dims, args):
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         "be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = _broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    for i, (a, d) in enumerate(zip(flat_args, flat_dims)):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for an input but in_dim must be either an integer dimension or "
                             "None.")
        if isinstance(d, int) and not isinstance(a, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(a)}. We cannot vmap "
                             "over non-Tensor arguments, please use None as the respective "
                             "in_dim")
        if d is not None and (d < -a.dim() or d >= a.dim()):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for some input, but that input is a Tensor of dimensionality "
                             f"{a.dim()} so expected in_dim to satisfy -{a.dim()} <= in_dim < "
                             f"{a.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d % a.dim()
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _check_out_dim(d, func, out_dims):
    if d is None or (isinstance(d, int) and not isinstance(d, bool)):
        return
    raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an "
                     "int, None or a python collection of ints representing where in the "
                     "outputs the vmapped dimension should appear.")


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    for d in tree_flatten(out_dims)[0]:
        _check_out_dim(d, func, out_dims)
    size, flat_dims, flat_args, spec = _process_inputs(func, in_dims, args)
    if chunk_size is None or chunk_size >= size:
        return _vmap_once(func, out_dims, randomness, size, flat_dims, flat_args, spec, kwargs)
    # chunks: the mapped dims split, each chunk vmapped, the outputs concatenated
    pieces = []
    starts = list(range(0, size, chunk_size))
    state = None
    if randomness == "same":
        state = get_rng_state()
    for s in starts:
        n = min(chunk_size, size - s)
        chunk_args = [a.narrow(d, s, n) if d is not None else a
                      for a, d in zip(flat_args, flat_dims)]
        if state is not None:
            set_rng_state(state)
        pieces.append(_vmap_once(func, out_dims, randomness, n, flat_dims, chunk_args, spec,
                                 kwargs, keep_flat=True))
    outs0, out_spec, flat_out_dims = pieces[0]
    res = []
    for j, d in enumerate(flat_out_dims):
        if d is None:
            res.append(outs0[j])
        else:
            res.append(cat([p[0][j] for p in pieces], d))
    return tree_unflatten(res, out_spec)


def _vmap_once(func, out_dims, randomness, size, flat_dims, flat_args, spec, kwargs,
               keep_flat=False):
    name = _get_name(func)
    with _bt.level_scope(size, randomness) as level:
        batched = [a if d is None else _bt.add_batch_dim(a, d, level)
                   for a, d in zip(flat_args, flat_dims)]
        out = func(*tree_unflatten(batched, spec), **kwargs)
        flat_out, out_spec = tree_flatten(out)

        def incompatible():
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                             "compatible with the structure of `outputs`. out_dims has structure "
                             f"{tree_flatten(out_dims)[1]} but outputs has structure {out_spec}.")
        if isinstance(out, Tensor):
            if isinstance(out_dims, int) or out_dims is None:
                flat_out_dims = [out_dims]
            elif isinstance(out_dims, tuple) and len(out_dims) == 1:
                flat_out_dims = list(out_dims)
            else:
                incompatible()
        else:
            flat_out_dims = _broadcast_to_and_flatten(out_dims, out_spec)
            if flat_out_dims is None:
                incompatible()
        res = []
        for o, d in zip(flat_out, flat_out_dims):
            if d is None:
                if _bt.is_batched(o, level):
                    raise ValueError(f"vmap({name}, ...): `{name}` can not return a "
                                     "BatchedTensor when out_dim is None")
                res.append(o)
                continue
            if not isinstance(o, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(o)}. Did you mean to set out_dims= to None for "
                                 "output?")
            res.append(_bt.remove_batch_dim(o, level, size, d))
    if keep_flat:
        return res, out_spec, flat_out_dims
    return tree_unflatten(res, out_spec)


# ====================================================================== transforms inside vmap
def _to_physical(t, lvls):
    """``t`` as a plain tensor batched at every active level: ``[B1, ..., Bk, *logical]``."""
    x = t
    for lev, size, _ in reversed(lvls):
        if _bt.is_batched(x, lev):
            x = x._value
        elif x.__class__ is Tensor and not x._requires_grad and x._fw is None:
            # (nothing to record: the expanded view itself, without two dispatches)
            d = x._data
            x = Tensor._wrap(_expand_kernel(d, (size,) + d.shape))
        else:
            x = x.unsqueeze(0).expand((size,) + tuple(x.shape))
    return x


def _from_physical(p, lvls):
    x = p
    for lev, _, _ in lvls:
        x = _bt._wrap(x, lev)
    return x


def _tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) if isinstance(x, Tensor) else x for x in leaves], spec)


def active():
    return bool(_bt.levels())


def batched_grad_and_value(func, argnums, has_aux, args, kwargs, grad_and_value_impl,
                           normalize, select, replace):
    lvls = list(_bt.levels())
    nb = len(lvls)
    argnums_n = normalize(argnums, len(args))
    leaves, spec = tree_flatten(select(args, argnums_n))
    for x in leaves:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    phys = [_to_physical(t, lvls) for t in leaves]
    n = len(phys)

    def pf(*ps):
        wrapped = [_from_physical(p, lvls) for p in ps]
        out = func(*replace(args, argnums_n, tree_unflatten(wrapped, spec)), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            out, aux = out
        if not isinstance(out, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted to "
                               "use the vjp or jacrev APIs instead?")
        po = _to_physical(out, lvls)
        if has_aux:
            return po.sum(), (po, _tree_map(lambda a: _to_physical(a, lvls), aux))
        return po.sum(), (po,)

    g, (_, extra) = grad_and_value_impl(pf, tuple(range(n)), True, tuple(phys), {})
    po, aux = extra[0], (extra[1] if has_aux else None)
    grads = tree_unflatten([_from_physical(x, lvls) for x in g], spec)
    value = _from_physical(po, lvls)
    del nb
    if has_aux:
        return grads, (value, _tree_map(lambda a: _from_physical(a, lvls), aux))
    return grads, value


def batched_vjp(func, primals, has_aux, vjp_impl):
    lvls = list(_bt.levels())
    leaves, spec = tree_flatten(primals)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    phys = [_to_physical(t, lvls) for t in leaves]

    def pf(*ps):
        out = func(*tree_unflatten([_from_physical(p, lvls) for p in ps], spec))
        aux = None
        if has_aux:
            out, aux = out
        po = _tree_map(lambda a: _to_physical(a, lvls), out)
        if has_aux:
            return po, _tree_map(lambda a: _to_physical(a, lvls), aux)
        return po

    r = vjp_impl(pf, *phys, has_aux=has_aux)
    out_p, vjp_p = r[0], r[1]
    out = _tree_map(lambda a: _from_physical(a, lvls), out_p)

    def vjp_fn(cotangents, **kw):
        cp = _tree_map(lambda a: _to_physical(a, lvls), cotangents)
        gs = vjp_p(cp, **kw)
        return _tree_map(lambda a: _from_physical(a, lvls), gs)
    if has_aux:
        return out, vjp_fn, _tree_map(lambda a: _from_physical(a, lvls), r[2])
    return out, vjp_fn


def any_batched(tensors):
    return any(_bt.is_batched(t) for t in tensors)


def vjp_of_unbatched_graph(flat_out, flat_cot, backward):
    """A ``vjp_fn`` made outside vmap called inside it (``vmap(vjp_fn)(cotangents)``, the
    tutorials' Jacobian row by row): its graph is not batched but the cotangents are.  One
    batched backward (``backward(cots)`` with ``is_grads_batched``) with every active level's
    batch dim flattened into one leading dim; the VJPs come back batched like the
    cotangents.  (Handing the wrappers to the engine would read example 0's values only.)"""
    lvls = list(_bt.levels())
    sizes = tuple(s for _, s, _ in lvls)
    n = 1
    for s in sizes:
        n *= s
    cots = [_to_physical(c, lvls).reshape((n,) + tuple(o.shape))
            for c, o in zip(flat_cot, flat_out)]
    gs = backward(cots)
    return [None if g is None else
            _from_physical(g.reshape(sizes + tuple(g.shape[1:])), lvls) for g in gs]


_BATCHED_BACKWARD = (
    "vmap: backward() or autograd.grad() of a batched value inside vmap is not supported "
    "(the graph of a batched value is the whole batch's). Use graphgrad.func.grad / vjp "
    "inside vmap instead (vmap(grad(f)) gives per-sample gradients), or vmap a vjp_fn made "
    "outside vmap over a batch of cotangents.")


def _backward_hook(tensors, grad_tensors):
    """autograd.backward inside vmap: batched values raise (as PyTorch's does) instead of
    running on example 0's arrays."""
    gs = () if grad_tensors is None else (
        (grad_tensors,) if isinstance(grad_tensors, Tensor) else tuple(grad_tensors))
    if any(_bt.is_batched(t) for t in tensors) or any(_bt.is_batched(g) for g in gs):
        raise RuntimeError(_BATCHED_BACKWARD)


def _grad_hook(outputs, inputs, grad_outputs, **options):
    """autograd.grad inside vmap: with unbatched outputs and batched grad_outputs (vmap over
    the VJP of a graph made outside vmap) one batched backward; other batched values raise.
    None: nothing batched, autograd.grad carries on."""
    outs_b = any(_bt.is_batched(o) for o in outputs)
    gos_b = any(_bt.is_batched(g) for g in grad_outputs)
    ins_b = any(_bt.is_batched(i) for i in inputs)
    if not (outs_b or gos_b or ins_b):
        return None
    if outs_b or ins_b or options["is_grads_batched"] or \
            any(g is None for g in grad_outputs):
        raise RuntimeError(_BATCHED_BACKWARD)
    options["is_grads_batched"] = True
    return tuple(vjp_of_unbatched_graph(
        list(outputs), list(grad_outputs),
        lambda cots: _ag_grad(outputs, inputs, cots, **options)))


_bt.AUTOGRAD_HOOKS[:] = [_backward_hook, _grad_hook]


def batched_jvp(func, primals, tangents, strict, has_aux, jvp_impl):
    lvls = list(_bt.levels())
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        return jvp_impl(func, primals, tangents, strict=strict, has_aux=has_aux)
    pp = _tree_map(lambda a: _to_physical(a, lvls), primals)
    tp = _tree_map(lambda a: _to_physical(a, lvls), tangents)
    spec = tree_flatten(primals)[1]

    def pf(*ps):
        leaves = tree_flatten(ps)[0]
        out = func(*tree_unflatten([_from_physical(p, lvls) for p in leaves], spec))
        if has_aux:
            out, aux = out
            return (_tree_map(lambda a: _to_physical(a, lvls), out),
                    _tree_map(lambda a: _to_physical(a, lvls), aux))
        return _tree_map(lambda a: _to_physical(a, lvls), out)

    r = jvp_impl(pf, pp, tp, strict=strict, has_aux=has_aux)
    return tuple(_tree_map(lambda a: _from_physical(a, lvls), x) for x in r)


def batched_jac(func, argnums, has_aux, args, jac_impl, normalize, select, replace, **kw):
    """jacrev/jacfwd inside vmap: the Jacobian of the batch-summed physical function (whose
    rows for example b only depend on example b's inputs), batch dims moved to the front."""
    lvls = list(_bt.levels())
    nb = len(lvls)
    argnums_n = normalize(argnums, len(args))
    leaves, spec = tree_flatten(select(args, argnums_n))
    phys = [_to_physical(t, lvls) for t in leaves]
    n = len(phys)
    info = {}

    def pf(*ps):
        wrapped = [_from_physical(p, lvls) for p in ps]
        out = func(*replace(args, argnums_n, tree_unflatten(wrapped, spec)))
        aux = None
        if has_aux:
            out, aux = out
        flat, ospec = tree_flatten(out)
        _check_outputs(flat, "jacrev/jacfwd(f)(*args)")
        info["spec"], info["ranks"] = ospec, [o.dim() for o in flat]
        summed = [_to_physical(o, lvls).sum(tuple(range(nb))) for o in flat]
        res = tree_unflatten(summed, ospec)
        if has_aux:
            return res, _tree_map(lambda a: _to_physical(a, lvls), aux)
        return res, (summed[0] * 0,) if summed else ()

    jac, aux = jac_impl(pf, tuple(range(n)), True, tuple(phys), **kw)
    ospec, ranks = info["spec"], info["ranks"]
    single_out = ospec.kind is None
    per_out = [jac] if single_out else _flatten_prefix(jac, ospec)
    res = []
    for sub, r in zip(per_out, ranks):
        fixed = []
        for j in sub:   # one per differentiated leaf
            src = list(range(r, r + nb))
            fixed.append(_from_physical(j.movedim(src, list(range(nb))), lvls))
        res.append(fixed)

    def arg_struct(fixed):
        t = tree_unflatten(fixed, spec)
        return t
    outs = [arg_struct(f) for f in res]
    result = outs[0] if single_out else tree_unflatten(outs, ospec)
    if has_aux:
        return result, _tree_map(lambda a: _from_physical(a, lvls), aux)
    return result


def _flatten_prefix(tree, spec):
    """The subtrees of ``tree`` at the leaves of ``spec`` (a prefix of its structure)."""
    if spec.kind is None:
        return [tree]
    if spec.kind == "dict":
        items = [tree[k] for k in spec.context]
    else:
        items = list(tree)
    out = []
    for x, c in zip(items, spec.children):
        out += _flatten_prefix(x, c)
    return out


del TreeSpec
