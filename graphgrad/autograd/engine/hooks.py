"""Hooks run by the engine: tensor pre-hooks, node pre/post hooks, with PyTorch's checks
of what a hook returns.  User hooks always see Tensors.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .accumulate import _cast, _sum_to_shape

_wrap = Tensor._wrap
_ndarray = np.ndarray

def _to_tensor(g):
    return g if g is None or isinstance(g, Tensor) else _wrap(g)


def _from_tensor(r, create_graph):
    if r is None or create_graph:
        return r
    return r._data if isinstance(r, Tensor) else r


def _call_tensor_pre_hooks(hooks, g, create_graph):
    # (called for an undefined gradient too, with None, as PyTorch does)
    for fn in tuple(hooks.values()):
        r = fn(_to_tensor(g))
        if r is not None:
            if g is None:
                raise RuntimeError(
                    f"can't replace a None gradient with a non-None value (hook "
                    f"{_hook_name(fn)!r} was called with None, for an output whose gradient "
                    "is undefined; return None for it)")
            if not isinstance(r, Tensor):
                raise TypeError(f"expected Tensor, but hook {_hook_name(fn)!r} returned "
                                f"{type(r).__name__!r}")
            g = _from_tensor(_check_hook_value(fn, r, g), create_graph)
    return g


def _hook_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _check_hook_value(fn, new, old):
    """A gradient returned by a hook must keep the size and dtype of the one it replaces."""
    if new is None or old is None:
        return new
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Tensor or None, but hook {_hook_name(fn)!r} returned "
                        f"{type(new).__name__!r} in its tuple")
    od = old._data if isinstance(old, Tensor) else old
    nd = new._data
    if nd.shape != od.shape:
        raise RuntimeError(f"hook {_hook_name(fn)!r} has changed the size of value (was "
                           f"{list(od.shape)}, got {list(nd.shape)})")
    if nd.dtype != od.dtype:
        raise RuntimeError(f"hook {_hook_name(fn)!r} has changed the type of value (was "
                           f"{od.dtype} got {nd.dtype})")
    return new


def _check_hook_tuple(fn, r, old):
    if not isinstance(r, tuple):
        raise TypeError(f"expected tuple, but hook {_hook_name(fn)!r} returned "
                        f"{type(r).__name__!r}")
    if len(r) != len(old):
        raise RuntimeError(f"hook {_hook_name(fn)!r} has returned an incorrect number of "
                           f"values (got {len(r)}, but expected {len(old)})")
    return tuple(_check_hook_value(fn, n, o) for n, o in zip(r, old))


def _run_tensor_hooks(node, grads, create_graph, journal):
    tph = node._tensor_pre_hooks
    if tph:
        for nr, hooks in tph.items():
            if hooks:
                grads[nr] = _call_tensor_pre_hooks(hooks, grads[nr], create_graph)
    rgh = node._retains_grad_hooks
    if rgh:
        for nr, fn in rgh.items():
            if grads[nr] is not None:
                t = fn.tensor_ref() if hasattr(fn, "tensor_ref") else None
                if t is not None:  # the non-leaf's .grad is rolled back too on failure
                    journal.entries.append((t, t._grad, None))
                fn(_to_tensor(grads[nr]))


def _call_pre_hooks(node, grads, create_graph):
    tgrads = tuple(_to_tensor(g) for g in grads)
    for fn in tuple(node._pre_hooks.values()):
        r = fn(tgrads)
        if r is not None:
            tgrads = _check_hook_tuple(fn, r, tgrads)
    return [_from_tensor(g, create_graph) for g in tgrads]


def _call_post_hooks(node, outs, grads, create_graph, batch_nd=0):
    # PyTorch validates a node's outputs (sums away broadcasting, casts to the input's
    # dtype) before its post hooks run: a hook sees grad_inputs of its inputs' shapes
    # (e.g. a module's deprecated backward hook on ``x @ w.t() + b`` sees b's shape)
    for i, (child, nr) in enumerate(zip(node._next_nodes, node._next_nrs)):
        g = outs[i] if i < len(outs) else None
        if child is None or g is None:
            continue
        data = g._data if isinstance(g, Tensor) else g
        if not isinstance(data, _ndarray):
            continue
        shape, dt = child._out_meta[nr]
        if data.shape != shape and data.shape[batch_nd:] != shape:
            g = _sum_to_shape(node, i, g, data.shape, shape, batch_nd)
            data = g._data if isinstance(g, Tensor) else g
        if data.dtype != dt:
            if create_graph and isinstance(g, Tensor):
                g = _cast(g, dt, True)
            else:
                g = _cast(data, dt, False)
        outs[i] = g
    tin = tuple(_to_tensor(g) for g in outs)
    tout = tuple(_to_tensor(g) for g in grads)
    for fn in tuple(node._post_hooks.values()):
        r = fn(tin, tout)
        if r is not None:
            tin = _check_hook_tuple(fn, r, tin)
    return [_from_tensor(g, create_graph) for g in tin]
