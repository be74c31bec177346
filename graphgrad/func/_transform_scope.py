"""The pieces every transform of eager_transforms.py uses: argnums handling, NumPy
arguments, the checks of inputs and outputs, and ``_Scope``, a transform call's stand-ins
for its differentiated inputs (eager_transforms.py's docstring tells how they keep a
transform's differentiation apart from the caller's)."""
from __future__ import annotations

import numpy as np

from .._core.state import tls
from .._tensor.creation import as_tensor
from .._tensor.tensor import Tensor
from ..autograd import forward_ad as fwAD
from ..autograd.engine.task import reaches_other_leaf as _reaches_other_leaf
from ..ops.forward_mode import tangent_of as _tangent_of
from ._pytree import tree_flatten, tree_unflatten

_wrap = Tensor._wrap


# ----------------------------------------------------------------- argnums, numpy, checks
def _normalize_argnums(argnums, num_args):
    def one(a):
        if isinstance(a, bool) or not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if not -num_args <= a < num_args:
            raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")
        return a % num_args

    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return one(argnums)
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        out = tuple(one(a) for a in argnums)
        if len(set(out)) != len(out):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return out
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _check_argnums_type(argnums):
    if isinstance(argnums, bool) or not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _select(args, argnums):
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[a] for a in argnums)


def _replace(args, argnums, new):
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for a, v in zip(argnums, new):
            args[a] = v
    return tuple(args)


_ARRAY, _SCALAR = 1, 2   # _from_numpy's flags (both true): an ndarray, a NumPy/Python scalar


def _numpy_kind(x):
    if isinstance(x, np.ndarray):
        return _ARRAY
    if isinstance(x, np.generic) or type(x) is float:
        return _SCALAR
    return 0


def _from_numpy(leaves):
    """Leaves with ndarrays, NumPy scalars and Python floats (the arguments of HIPS
    autograd programs) turned into Tensors, and which were: a flag per leaf, 0 for the
    others, ``_ARRAY`` or ``_SCALAR`` (both true)."""
    flags = [_numpy_kind(x) for x in leaves]
    if not any(flags):
        return leaves, flags
    return [as_tensor(np.array(x)) if f else x for x, f in zip(leaves, flags)], flags


def _to_numpy(x, kind=_ARRAY):
    """``x`` as an ndarray -- a NumPy scalar when it is 0-d and belongs to a scalar argument
    (``kind == _SCALAR``), as HIPS autograd gives."""
    if isinstance(x, Tensor):
        x = x.detach()._data
        return x[()] if kind == _SCALAR else x
    return x


def _numpy_tree(tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([_to_numpy(x) for x in leaves], spec)


def _args_from_numpy(args):
    """The positional arguments with their ndarrays and NumPy scalars turned into Tensors
    (the function sees Tensors everywhere once the caller works with NumPy); Python floats
    that are not differentiated stay floats."""
    leaves, spec = tree_flatten(args)
    flags = [isinstance(x, (np.ndarray, np.generic)) for x in leaves]   # (not Python floats)
    if not any(flags):
        return args
    return tree_unflatten([as_tensor(np.array(x)) if f else x for x, f in zip(leaves, flags)],
                          spec)


def _check_leaves(leaves):
    for x in leaves:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")


def _check_outputs(flat_out, api):
    if not flat_out:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           "(got output = an empty structure)")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


def _split_aux(out, api):
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    for x in tree_flatten(out[1])[0]:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{api}: Expected tensors in aux (the auxiliary output), got "
                               f"unsupported type {type(x)}")
    return out


def _zeros(shape, dtype):
    return _wrap(np.zeros(shape, dtype))


# ----------------------------------------------------------------- the transform's scope
def reaches_other_leaf(tensors, internal):
    """Whether the graph of ``tensors`` reaches a leaf that requires grad whose ``id`` is
    not in ``internal`` (a transform's stand-ins)."""
    fns = []
    for t in tensors:
        if isinstance(t, Tensor) and t._requires_grad:
            fn = t._grad_fn
            if fn is None:
                if id(t) not in internal:
                    return True
            else:
                fns.append(fn)
    return _reaches_other_leaf(fns, internal)


class _Scope:
    """One transform call: its stand-ins for the differentiated inputs, and what the
    caller's grad mode was (see the module docstring)."""

    __slots__ = ("ext_grad", "internal", "keep", "originals")

    def __init__(self):
        self.ext_grad = tls.grad_enabled
        self.internal = set()   # ids of the fresh leaves
        self.keep = []          # holds them (and the stand-ins) so that their ids stay unique
        self.originals = {}     # id(stand-in) -> the caller's tensor

    def fresh(self, t):
        """A differentiable stand-in for the caller's ``t`` (call under grad mode)."""
        if self.ext_grad and t._requires_grad:
            c = t.view_as(t)   # keeps the caller's graph (and t's tangent)
        else:
            c = t.detach()
            c.requires_grad_(True)
            self.internal.add(id(c))
            self.keep.append(c)
            lvl = tls.fw_level
            if lvl is not None:
                tan = _tangent_of(t, lvl)
                if tan is not None:
                    c = fwAD.make_dual(c, tan)
        self.keep.append(c)
        self.originals[id(c)] = t
        return c

    def reaches_external(self, tensors):
        """Whether the graph of ``tensors`` reaches a leaf that is not one of our stand-ins
        (so a caller's tensor -- or an outer transform's stand-in -- depends on them)."""
        if not self.ext_grad:
            return False
        return reaches_other_leaf(tensors, self.internal)

    def need_graph(self, tensors):
        return tls.fw_level is not None or self.reaches_external(tensors)

    def export(self, t, external=None):
        """What the caller gets for ``t``: the caller's own tensor for a stand-in, ``t``
        itself when its graph matters outside, else ``t`` detached (keeping its
        forward-mode tangent).  ``external``: whether ``t``'s graph reaches outside, when
        the caller knows already."""
        if not isinstance(t, Tensor):
            return t
        orig = self.originals.get(id(t))
        if orig is not None:
            return orig
        if not t._requires_grad:
            return t
        if external is None:
            external = self.reaches_external((t,))
        if external:
            return t
        d = t.detach()
        lvl = tls.fw_level
        if lvl is not None:
            tan = _tangent_of(t, lvl)
            if tan is not None:
                d = fwAD.make_dual(d, self.export(tan))
        return d

    def export_tree(self, tree):
        leaves, spec = tree_flatten(tree)
        return tree_unflatten([self.export(x) for x in leaves], spec)
