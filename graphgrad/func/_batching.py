"""vmap's batching transform: batched tensors, levels, and the per-op batching rules.

A value batched at vmap level ``L`` is a ``BatchedTensor``: a Tensor whose ``_value`` is
the *physical* tensor with the batch dim in front (``[B, *logical]``) and whose ``_data``
is a view of example 0 -- so everything that only looks at shape, dtype or layout
(``x.shape``, ``x.dim()``, argument checks of the public functions) sees the logical
tensor.  Nested vmaps nest the wrappers: the value of a level-2 BatchedTensor may be a
level-1 BatchedTensor.

Each vmap level is an interposer (NOTE [interposition] in ops/interpose.py): every table
op whose arguments hold a BatchedTensor of that level (the highest level among the
arguments) is replaced by its batching rule, which runs the op *once* on the physical
values (dims shifted by one, ranks aligned, sizes prefixed with the batch size, ...) and
wraps the result again.  Ops inside a rule run through the interposers again, so lower
levels (outer vmaps) batch them in their turn.  An op without a rule runs once per
example and the results are stacked (``_fallback``), with PyTorch's performance warning
naming the op.

Autograd runs on the physical tensors: the wrappers themselves never enter a graph.
``graphgrad.func`` transforms called inside vmap differentiate the physical function
(``batched_transform`` in vmap.py).
"""
from __future__ import annotations

import threading
import warnings

import numpy as np

from .._core.state import tls
from .._tensor import random as _rand
from .._tensor.creation import arange as _arange
from .._tensor.tensor import Tensor
from .. import autograd as _autograd
from ..autograd import function as _function
from ..ops.api import conversion as _conversion
from ..ops.api import indexing as _indexing
from ..ops.api.copies import stack as _stack
from ..ops.dispatch import binary as _binary, dispatch as _dispatch, unary as _unary
from ..ops.inplace import dispatch_inplace as _dispatch_inplace
from ..ops.interpose import Composite, interposing

__all__ = ["BatchedTensor", "is_batched", "add_batch_dim", "remove_batch_dim", "levels",
           "FALLBACK_COUNTS"]

_state = threading.local()
FALLBACK_COUNTS = {}      # op name -> how many times the per-example loop ran (tests)


def levels():
    """The active vmap levels of this thread, outermost first: [(level, size, randomness)]."""
    s = getattr(_state, "levels", None)
    if s is None:
        s = _state.levels = []
    return s


# ====================================================================== the wrapper
class BatchedTensor(Tensor):
    """A tensor batched at one vmap level (see the module docstring)."""

    def __repr__(self, *, tensor_contents=None):
        return (f"BatchedTensor(lvl={self._level}, bdim=0, value=\n"
                f"    {Tensor.__repr__(self._value)}\n)")

    __str__ = __repr__

    # autograd state is the physical value's
    @property
    def requires_grad(self):
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._value.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        self._value.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._value.grad_fn

    @property
    def is_leaf(self):
        return self._value.is_leaf

    def detach(self):
        return _wrap(self._value.detach(), self._level)

    def backward(self, *args, **kwargs):
        raise RuntimeError(
            "vmap: It looks like you're calling .backward() or autograd.grad() on a batched "
            "tensor inside vmap. This is not supported; use graphgrad.func.grad / vjp / jacrev "
            "inside vmap instead (vmap(grad(f)) gives per-sample gradients).")

    def _data_dependent(self, what):
        raise RuntimeError(
            f"vmap: It looks like you're attempting to use {what} on a Tensor inside vmap "
            "(data-dependent control flow or a Python number from a batched value), which "
            "vmap does not support. Write the computation with tensor ops instead "
            "(e.g. graphgrad.where instead of an if).")

    def item(self):
        self._data_dependent("item()")

    def tolist(self):
        self._data_dependent("tolist()")

    def numpy(self, *, force=False):
        self._data_dependent("numpy()")

    def __bool__(self):
        self._data_dependent("bool()")

    def __float__(self):
        self._data_dependent("float()")

    def __int__(self):
        self._data_dependent("int()")

    def __array__(self, *a, **k):
        self._data_dependent("a NumPy conversion")


class _LogicalArray(np.ndarray):
    """The ``_data`` of a BatchedTensor: example 0's view, for the shape, dtype and layout
    checks of the public functions.  Its values are not the batch's, so computing with them
    outside a table op (where the batching rules run) would silently give example 0's
    answer for every example: NumPy functions and ufuncs on it raise instead."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise RuntimeError(
            f"vmap: {ufunc.__name__} on the raw values of a batched tensor: this function "
            "computes outside graphgrad's op table, which vmap cannot batch. Call it outside "
            "vmap, or write it with tensor ops.")

    def __array_function__(self, func, types, args, kwargs):
        if func in _LOGICAL_OK:
            return super().__array_function__(func, types, args, kwargs)
        if func in _SHAPE_ONLY:  # (a fresh array of the logical shape: no value is read)
            return super().__array_function__(func, types, args, {**kwargs, "subok": False})
        raise RuntimeError(
            f"vmap: numpy.{func.__name__} on the raw values of a batched tensor: this "
            "function computes outside graphgrad's op table, which vmap cannot batch. Call "
            "it outside vmap, or write it with tensor ops.")


_LOGICAL_OK = {np.shape, np.ndim, np.size, np.result_type, np.may_share_memory,
               np.shares_memory}
_SHAPE_ONLY = {np.zeros_like, np.ones_like, np.empty_like, np.full_like}


def _wrap(value, level):
    """``value`` (``[B, *logical]``) as a BatchedTensor of ``level``."""
    t = object.__new__(BatchedTensor)
    d = value._data
    if d.shape[0]:
        v = d[0, ...]  # (a 0-d array, not a NumPy scalar, for a logical 0-d value)
    else:
        v = np.zeros(d.shape[1:], d.dtype)
    lv = v.view(_LogicalArray)
    # every example's values, for the argument checks of the public functions (index
    # bounds): ops.interpose.all_values
    lv._all_values = getattr(d, "_all_values", d)
    t._data = lv
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._vc = None
    t._value = value
    t._level = level
    return t


def is_batched(x, level=None):
    return isinstance(x, BatchedTensor) and (level is None or x._level == level)


def add_batch_dim(x, in_dim, level):
    """``x`` batched along ``in_dim`` at ``level`` (the dim moved to the front, a view)."""
    if in_dim != 0:
        x = x.movedim(in_dim, 0)
    return _wrap(x, level)


def remove_batch_dim(x, level, size, out_dim):
    """The plain tensor of ``level`` for an output, the batch dim at ``out_dim``; an output
    not batched at ``level`` is expanded."""
    if is_batched(x, level):
        v = x._value
    else:
        v = x.unsqueeze(0).expand((size,) + tuple(x.shape))
    if out_dim != 0:
        nd = v.dim()
        if not -nd <= out_dim < nd:
            raise IndexError(f"vmap: out_dim={out_dim} is out of range for an output with "
                             f"{nd - 1} dims (expected -{nd} <= out_dim < {nd})")
        v = v.movedim(0, out_dim)
    return v


# ====================================================================== helpers
def _max_level(args, kwargs):
    m = -1
    for a in args:
        if a.__class__ is BatchedTensor:
            if a._level > m:
                m = a._level
        elif isinstance(a, (list, tuple)):
            for b in a:
                if b.__class__ is BatchedTensor and b._level > m:
                    m = b._level
    for a in kwargs.values():
        if a.__class__ is BatchedTensor and a._level > m:
            m = a._level
    return m


def _phys(x, level):
    """The physical value at ``level`` (batch in front) or None when not batched there."""
    if x.__class__ is BatchedTensor and x._level == level:
        return x._value
    return None


def _ldim(x):
    """The logical rank of a tensor argument (Python scalars: 0)."""
    return x._data.ndim if isinstance(x, Tensor) else 0


def _align(v, lrank, rank):
    """Physical ``v`` (``[B, *l]`` with ``len(l) == lrank``) with singleton dims inserted
    after the batch dim up to logical rank ``rank``."""
    if lrank < rank:
        v = v.reshape((v.shape[0],) + (1,) * (rank - lrank) + tuple(v.shape[1:]))
    return v


def _expand(x, level, size):
    """Physical value of ``x`` at ``level``, expanded to the batch if it is not batched."""
    v = _phys(x, level)
    if v is not None:
        return v
    return x.unsqueeze(0).expand((size,) + tuple(x.shape))


def _shift(d, nd):
    """A logical dim (of a rank-``nd`` tensor) as a physical dim: negative ones stay
    (counted from the end), others move past the batch dim."""
    if d is None:
        return None
    if isinstance(d, (list, tuple)):
        return type(d)(_shift(e, nd) for e in d)
    d = int(d)
    return d if d < 0 else d + 1


# ====================================================================== the entries
_ENTRIES = {_dispatch: "out", _unary: "out", _binary: "out", _dispatch_inplace: "inplace"}
# set by the modules that define them (they import this one)
RULE_FOR = [None]        # _batching_rules.rule_for
FUNCTION_APPLY = [None]  # _batching_function.vmap_apply
COMPOSITE_RULES = {}     # composite name -> rule(args, kwargs, level): _row_matmul.py's linear
AUTOGRAD_HOOKS = [None, None]   # vmap.py's hooks for autograd.backward / autograd.grad


def _run(op, kind, args):
    """The op once more from the top of the interposer chain (lower levels batch it).
    When this level is the only interposer (one vmap, no profiler or autocast), there is
    nobody to go through: the entry runs the op directly."""
    chain = tls.interposers
    if len(chain) == 1 and chain[0].__class__ is _Level:
        tls.interpose_skip = True   # (consumed by the entry's interposition test)
    if kind == "inplace":
        return _dispatch_inplace(op, *args)
    return _dispatch(op, *args)


# ====================================================================== interposer
class _Level:
    """The interposer of one vmap level."""

    def __init__(self, level, size, randomness):
        self.level, self.size, self.randomness = level, size, randomness

    def __call__(self, op, call, args, kwargs):
        if _max_level(args, kwargs) != self.level:
            return call(args, kwargs)
        if op.__class__ is Composite:   # (its ops are batched one by one, unless a rule
            rule = COMPOSITE_RULES.get(op.name)   # takes the whole composite)
            if rule is not None:
                res = rule(args, kwargs, self)
                if res is not NotImplemented:
                    return res
            return call(args, kwargs)
        entry = getattr(call, "entry", None)
        kind = _ENTRIES.get(entry)
        if kind is not None:
            sig = args[1:]
        else:   # a generated entry (graphgrad.sin(input, out=), Tensor.__mul__(x0, x1))
            kind, sig = "out", args
        if (entry is _binary or _is_operator(entry)) and \
                any(a.__class__ is np.ndarray for a in sig):
            # (an ndarray operand: NotImplemented, as the unbatched binary/operator says, so
            # that NumPy's reflected operator hands it back as a Tensor through
            # Tensor.__array_ufunc__)
            return NotImplemented
        out = kwargs.get("out") if kwargs else None
        res = batch_op(op, kind, tuple(sig), self)
        if out is not None:
            out.copy_(res)
            return out
        return res


def _is_operator(entry):
    name = getattr(entry, "__name__", "")
    return name.startswith("__") and name.endswith("__")


def batch_op(op, kind, sig, lv):
    """Run table op ``op`` (``kind`` "out" or "inplace") on signature arguments ``sig``
    holding BatchedTensors of ``lv.level``."""
    level = lv.level
    nt = len(op.tensor_params)
    if kind == "inplace":
        if _phys(sig[0], level) is None:
            raise RuntimeError(
                f"vmap: {op.name}_(self, *extra_args) is not possible because there exists a "
                "Tensor `other` in extra_args that has more elements than `self`. This "
                "happened due to `other` being vmapped over but `self` not being vmapped "
                f"over in a vmap. Please try to use out-of-place operators instead of "
                f"{op.name}_.")
    rule = RULE_FOR[0](op)
    if rule is not None:
        res = rule(op, kind, list(sig), nt, lv)
        if res is not NotImplemented:
            return res
    return _fallback(op, kind, sig, nt, lv)


def _fallback(op, kind, sig, nt, lv):
    """The per-example loop: the op once per batch entry, results stacked."""
    level, size = lv.level, lv.size
    FALLBACK_COUNTS[op.name] = FALLBACK_COUNTS.get(op.name, 0) + 1
    warnings.warn(
        f"There is a performance drop because we have not yet implemented the batching rule "
        f"for {op.name}. Please file us an issue on GitHub so that we can prioritize its "
        "implementation.", UserWarning, stacklevel=4)
    phys = [_phys(a, level) if isinstance(a, Tensor) else None for a in sig]
    lists = {}
    for i, a in enumerate(sig):
        if isinstance(a, (list, tuple)) and any(_phys(b, level) is not None for b in a):
            lists[i] = [_phys(b, level) for b in a]
    outs = []
    for b in range(size):
        args_b = list(sig)
        for i, p in enumerate(phys):
            if p is not None:
                args_b[i] = p[b]
        for i, ps in lists.items():
            args_b[i] = type(sig[i])(p[b] if p is not None else x for p, x in zip(ps, sig[i]))
        r = _run(op, kind, args_b)
        outs.append(r)
    if kind == "inplace":
        return sig[0]
    stack = _stack
    first = outs[0] if outs else None
    if isinstance(first, tuple):
        stacked = [_wrap(stack([o[j] for o in outs]), level) for j in range(len(first))]
        return type(first)(*stacked) if hasattr(type(first), "_fields") else tuple(stacked)
    if size == 0:
        raise RuntimeError(f"vmap: {op.name} has no batching rule and the batch is empty")
    return _wrap(stack(outs), level)


class level_scope:
    """Enter one vmap level: push it and its interposer."""

    def __init__(self, size, randomness):
        self.size, self.randomness = size, randomness

    def __enter__(self):
        ls = levels()
        self.level = (ls[-1][0] + 1) if ls else 1
        ls.append((self.level, self.size, self.randomness))
        _hooks(+1)
        self.lv = _Level(self.level, self.size, self.randomness)
        self.cm = interposing(self.lv)
        self.cm.__enter__()
        return self.level

    def __exit__(self, *exc):
        try:
            self.cm.__exit__(*exc)
        finally:
            levels().pop()
            _hooks(-1)
        return False


_active = [0]               # vmap levels active in all threads
_active_lock = threading.Lock()


def _hooks(delta):
    """Install the random-op check (numpy_rng) and autograd.Function's vmap hook while any
    thread has a vmap level (both look at the calling thread's levels)."""
    with _active_lock:
        _active[0] += delta
        on = _active[0] > 0
        _rand.vmap_random_check = _random_check if on else None
        _rand.vmap_random_batch = _random_batch if on else None
        _function._vmap_hook = FUNCTION_APPLY[0] if on else None
        _conversion.vmap_index_hook = index_hook if on else None
        _indexing.vmap_index_hook = index_hook if on else None
        _autograd.vmap_backward_hook = AUTOGRAD_HOOKS[0] if on else None
        _autograd.vmap_grad_hook = AUTOGRAD_HOOKS[1] if on else None


def _key_items(key):
    return key if isinstance(key, (tuple, list)) else (key,)


def index_hook(self, key, value, setting, accumulate=False):
    """``self[key]`` / ``self[key] = value`` (``setting`` True) / ``index_put_``
    (``"put"``) / ``index_put`` (``"put_out"``) when a BatchedTensor is among the indices
    (the index op takes indices as arrays, so the ordinary path would read example 0's)."""
    items = _key_items(key)
    level = -1
    for k in items:
        if k.__class__ is BatchedTensor and k._level > level:
            level = k._level
    if level < 0:
        return NotImplemented
    for x in (self, value):
        if x.__class__ is BatchedTensor and x._level > level:
            level = x._level
    lv = next((x for x in levels() if x[0] == level), None)
    if lv is None:
        return NotImplemented
    size = lv[1]
    ps = _phys(self, level)
    if setting in ("put", "put_out"):
        FALLBACK_COUNTS["index_put"] = FALLBACK_COUNTS.get("index_put", 0) + 1
        warnings.warn("There is a performance drop because we have not yet implemented the "
                      "batching rule for index_put. Please file us an issue on GitHub so that "
                      "we can prioritize its implementation.", UserWarning, stacklevel=3)
        if setting == "put_out":
            ps = _expand(self, level, size).clone()
        elif ps is None:
            raise RuntimeError(
                "vmap: index_put_(self, ...) is not possible because the index or the value "
                "is batched but `self` is not. Please use out-of-place index_put instead.")
        pv = _phys(value, level) if isinstance(value, Tensor) else None
        for b in range(size):
            kb = tuple(_phys(k, level)[b] if _phys(k, level) is not None else k for k in items)
            ps[b].index_put_(kb, pv[b] if pv is not None else value, accumulate)
        return self if setting == "put" else _wrap(ps, level)
    if setting:
        if ps is None:
            raise RuntimeError(
                "vmap: index_put_(self, ...) is not possible because the index or the value is "
                "batched but `self` is not. Please use out-of-place indexing instead.")
        pv = _phys(value, level) if isinstance(value, Tensor) else None
        for b in range(size):
            kb = tuple(_phys(k, level)[b] if _phys(k, level) is not None else k for k in items)
            ps[b][kb if isinstance(key, tuple) or len(kb) > 1 else kb[0]] = \
                pv[b] if pv is not None else value
        return self
    if not isinstance(key, tuple) and isinstance(key, Tensor) and \
            key._data.dtype.kind in "iu":
        # x[idx]: one gather over the batch -- p[arange(B)[:, None...], idx]
        p = ps if ps is not None else self.unsqueeze(0).expand((size,) + tuple(self.shape))
        idx = _phys(key, level)
        ar = _arange(size).reshape((size,) + (1,) * (idx.dim() - 1))
        return _wrap(p[(ar, idx)], level)
    FALLBACK_COUNTS["index"] = FALLBACK_COUNTS.get("index", 0) + 1
    warnings.warn("There is a performance drop because we have not yet implemented the "
                  "batching rule for index. Please file us an issue on GitHub so that we can "
                  "prioritize its implementation.", UserWarning, stacklevel=3)
    outs = []
    for b in range(size):
        kb = tuple(_phys(k, level)[b] if _phys(k, level) is not None else k for k in items)
        sb = ps[b] if ps is not None else self
        outs.append(sb[kb if isinstance(key, tuple) else kb[0]])
    return _wrap(_stack(outs), level)


def _random_batch():
    """A random tensor drawn from a shape inside vmap: None (one draw) unless this thread's
    levels include randomness="different" ones; then their sizes (outermost first) and how
    to wrap the draw, batched at those levels (each example its own values)."""
    ls = getattr(_state, "levels", None)
    if not ls:
        return None
    diff = [(lev, size) for lev, size, r in ls if r == "different"]
    if not diff:
        return None

    def wrap(t):
        for lev, _ in diff:
            t = _wrap(t, lev)
        return t
    return tuple(size for _, size in diff), wrap


def _random_check():
    ls = getattr(_state, "levels", None)
    if ls and any(r == "error" for _, _, r in ls):
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use "
            "the 'same' or 'different' randomness flags on vmap or perform the randomness "
            "operation out of vmap")


def _out(r, level):
    if isinstance(r, Tensor):
        return _wrap(r, level)
    if isinstance(r, tuple):
        items = [_out(x, level) for x in r]
        return type(r)(*items) if hasattr(type(r), "_fields") else tuple(items)
    if isinstance(r, list):
        return [_out(x, level) for x in r]
    return r


def _done(r, kind, sig, level):
    return sig[0] if kind == "inplace" else _out(r, level)
