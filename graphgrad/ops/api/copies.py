"""Copies that assemble or rearrange whole tensors: cat/stack (and hstack, vstack,
dstack, atleast_*d), repeat/tile, flip and roll (table entries and public functions).

cat and stack take any number of tensors.  Up to ``_MAX_ARITY`` tensors, one table entry
per arity is made on first use (generated record and node code, like every other op); longer
lists use one op description built for the call and one shared node class (see
``_list_op``), so no table or cache grows with the length of a user's list and a call over
N tensors costs O(N) time and memory.  Dims are stored negative so the rules work on
gradients with leading batch dims.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..node import FormulaNode
from ..dispatch import dispatch
from ..registry import LINEAR, OpDef, defop, export
from .indexing import _finish, _neg, _sum_dims


# ============================================================ cat / stack
# The number of tensors varies per call: one table entry per arity, made on first use (all
# with PyTorch's node name); input k's VJP slices (cat) or selects (stack) its part of grad.
_CAT_OPS, _STACK_OPS = {}, {}


def _contiguous(r):
    # NumPy's concatenate/stack follow their inputs' layout (transposed inputs give a
    # transposed result); PyTorch's cat and stack results are contiguous
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)


def _cat_kernel(*args):
    return _contiguous(np.concatenate(args[:-2], axis=args[-2]))


def _cat_vjp(k):
    def rule(grad, dim, sizes):
        start = sum(sizes[:k])
        return F.slice(grad, dim, start, start + sizes[k], 1)
    return rule


def _batched_list_rule(n, combine, attrs):
    """A batched JVP for cat/stack of ``n`` tensors (the rule's parameters are named, one per
    tensor): the zeros standing in for tensors without a tangent get the batch dims of the
    others, then ``combine(tangents, *attrs)`` (dims are negative: batch-safe)."""
    ts = ", ".join(f"tensors{i}_t" for i in range(n))
    sz = ", ".join(f"tensors{i}_sym_sizes" for i in range(n))
    src = (f"lambda {ts}, {sz}, {', '.join(attrs)}: "
           f"combine(_same_batch(({ts},), ({sz},)), {', '.join(attrs)})")
    return eval(src, {"combine": combine, "_same_batch": _same_batch})  # noqa: S307


def _same_batch(ts, sizes):
    lead = ()
    for t, sz in zip(ts, sizes):
        b = F.batch_shape(t, len(sz))
        if len(b) > len(lead):
            lead = b
    return [t if F.ndim(t) > len(sz) else F.expand(t, lead + tuple(sz))
            for t, sz in zip(ts, sizes)]


def _cat_op(n):
    if n > _MAX_ARITY:
        return _list_op(_CAT_TEMPLATE, n)
    op = _CAT_OPS.get(n)
    if op is None:
        names = [f"tensors{i}" for i in range(n)]
        op = _CAT_OPS[n] = defop(f"cat.{n}({', '.join(names)}, *, dim, sizes)", _cat_kernel,
                                 "CatBackward0", promote=True, jvp=LINEAR,
                                 batched_jvp=_batched_list_rule(
                                     n, lambda ts, dim, sizes: cat(ts, dim), ("dim", "sizes")),
                                 **{p: _cat_vjp(i) for i, p in enumerate(names)})
    return op


def _stack_kernel(*args):
    return _contiguous(np.stack(args[:-1], axis=args[-1]))


def _stack_vjp(k):
    def rule(grad, dim):
        return F.select(grad, dim, k)
    return rule


def _stack_op(n):
    if n > _MAX_ARITY:
        return _list_op(_STACK_TEMPLATE, n)
    op = _STACK_OPS.get(n)
    if op is None:
        names = [f"tensors{i}" for i in range(n)]
        op = _STACK_OPS[n] = defop(f"stack.{n}({', '.join(names)}, *, dim)", _stack_kernel,
                                   "StackBackward0", promote=True, jvp=LINEAR,
                                   batched_jvp=_batched_list_rule(
                                       n, lambda ts, dim: stack(ts, dim), ("dim",)),
                                   **{p: _stack_vjp(i) for i, p in enumerate(names)})
    return op


# ------------------------------------------------------------ long lists
# Generated code per arity would cost O(N) compiled code and a table entry per distinct list
# length (stacking 10,000 tensors took seconds and a gigabyte; 100,000 ran out of memory).
# Beyond _MAX_ARITY tensors the op description is made per call (O(N) small tuples, freed
# with the call) and the node class is shared: its backward slices/selects each input's part
# of the gradient directly, without per-input generated code.
_MAX_ARITY = 16


class _ListNode(FormulaNode):
    """The node of a cat/stack over more than ``_MAX_ARITY`` tensors (any number of edges).

    Its saved values are attributes only (dim, and sizes for cat), so the template op's
    save description (shared by all arities) serves ``_saved`` and ``_saved_<name>``."""

    __slots__ = ()

    def _apply(self, grads, mask, create_graph):
        grad = grads[0]
        nodes = self._next_nodes
        if grad is None:
            return [None] * len(nodes)
        part = self._part
        dim = self._s0
        prep = self._prep(self._s1 if len(self._slots) > 1 else None)
        out = []
        for k in range(len(nodes)):
            if (nodes[k] is not None) if mask is None else mask[k]:
                out.append(part(grad, dim, prep, k))
            else:
                out.append(None)
        return out


def _list_node_class(template, prep, part):
    slots = tuple(f"_s{i}" for i in range(len(template.save_names)))
    attrs = {"__slots__": slots, "_slots": slots, "_op": template, "_srcs": (),
             "_prep": staticmethod(prep), "_part": staticmethod(part),
             "__module__": "graphgrad.autograd.generated"}
    for key in template.save_names:
        attrs["_saved_" + key] = property(lambda self, _k=key: self._get_saved(_k, False))
        attrs["_raw_saved_" + key] = property(lambda self, _k=key: self._get_saved(_k, True))
    return type(template.node_name, (_ListNode,), attrs)


def _cat_offsets(sizes):
    return list(itertools.accumulate(sizes, initial=0))


def _cat_part(grad, dim, offsets, k):
    return F.slice(grad, dim, offsets[k], offsets[k + 1], 1)


def _stack_part(grad, dim, _unused, k):
    return F.select(grad, dim, k)


def _list_op(template, n):
    """``template`` (the 1-tensor entry) widened to ``n`` tensor inputs, for this call only."""
    op = OpDef()
    for f in OpDef.__slots__:
        if hasattr(template, f):
            setattr(op, f, getattr(template, f))
    names = tuple(f"tensors{i}" for i in range(n))
    attrs = template.params[1:]
    op.params = names + attrs
    op.tensor_params = names
    op.tensor_pos = tuple(range(n))
    op.attr_pos = tuple(range(n, n + len(attrs)))
    op.diff_pos = tuple(range(n))
    op.vjps = ((None, ()),) * n   # (the shared node class computes every input's part)
    idx = tuple(n + attrs.index(p) for p in template.save_names)
    op.save_kinds = tuple(("attr", i) for i in idx)
    op.save_needed_by = (frozenset(range(n)),) * len(idx)
    op.save_plan = tuple((1, i, None) for i in idx)
    op.record = None              # the generic record: edges, node, saved attributes
    op.node_cls = _LIST_NODES[template.name]
    op.batched_jvp = _list_batched(template.name)
    op.batched_jvp_params = tuple(f"{p}_t" for p in names) + \
        tuple(f"{p}_sym_sizes" for p in names) + attrs
    return op


def _list_batched(kind):
    def rule(*vals):
        n = (len(vals) - (2 if kind == "cat.1" else 1)) // 2
        ts = _same_batch(vals[:n], vals[n:2 * n])
        if kind == "cat.1":
            return cat(ts, vals[2 * n])
        return stack(ts, vals[2 * n])
    return rule


_CAT_TEMPLATE, _STACK_TEMPLATE = _cat_op(1), _stack_op(1)
_LIST_NODES = {"cat.1": _list_node_class(_CAT_TEMPLATE, _cat_offsets, _cat_part),
               "stack.1": _list_node_class(_STACK_TEMPLATE, lambda _: None, _stack_part)}


def _tensor_list(tensors, fn):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__} ({fn} takes a sequence of tensors)")
    return tensors


@export(method=False)
def cat(tensors, dim=0, *, out=None):
    """Concatenate tensors along an existing dim (CatBackward0), promoting dtypes."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated (use stack, or reshape it to 1-D first)")
    # PyTorch skips 1-D empty tensors when the others have more dims (legacy behaviour)
    kept = [t for t in tensors if t._data.shape != (0,)]
    if not kept:
        kept = tensors
    ref = kept[0]
    nd = ref._data.ndim
    if nd != 1 and len(kept) != len(tensors):
        rt = _dtype.result_type(*tensors)
        if _dtype.result_type(*kept) is not rt:
            kept = [kept[0].to(rt)] + kept[1:]
    else:
        kept = tensors
    d = _wrap_dim(dim, nd)
    rs = ref._data.shape
    for i, t in enumerate(kept):
        ts = t._data.shape
        if len(ts) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                               f"{len(ts)}")
        for j in range(nd):
            if j != d and ts[j] != rs[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {rs[j]} "
                    f"but got size {ts[j]} for tensor number {i} in the list.")
    sizes = tuple(t._data.shape[d] for t in kept)
    return _finish(dispatch(_cat_op(len(kept)), *kept, d - nd, sizes), out)


@export(method=False)
def concat(tensors, dim=0, *, out=None):
    return cat(tensors, dim, out=out)


@export(method=False)
def concatenate(tensors, axis=0, out=None):
    return cat(tensors, axis, out=out)


@export(method=False)
def stack(tensors, dim=0, *, out=None):
    """Stack equally-shaped tensors along a new dim (StackBackward0)."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(s0)} "
                               f"at entry 0 and {list(t._data.shape)} at entry {i}")
    nd = len(s0) + 1
    d = _wrap_dim(dim, nd)
    return _finish(dispatch(_stack_op(len(tensors)), *tensors, d - nd), out)


def _atleast(tensors, n, fn):
    from .shape import reshape, unsqueeze
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
        single = False
    else:
        single = len(tensors) == 1
    res = []
    for t in tensors:
        nd = t._data.ndim
        if nd >= n:
            res.append(t)
        elif nd == 0:
            res.append(reshape(t, (1,) * n))
        elif n == 2 or nd == 2:
            r = unsqueeze(t, 0) if nd == 1 else t
            res.append(unsqueeze(r, -1) if n == 3 else r)
        else:  # 1-d to 3-d
            res.append(unsqueeze(unsqueeze(t, 0), -1))
    return res[0] if single else tuple(res)


@export(method=False)
def atleast_1d(*tensors):
    return _atleast(tensors, 1, "atleast_1d")


@export(method=False)
def atleast_2d(*tensors):
    return _atleast(tensors, 2, "atleast_2d")


@export(method=False)
def atleast_3d(*tensors):
    return _atleast(tensors, 3, "atleast_3d")


def _as_tuple(x):
    r = x
    return r if isinstance(r, tuple) else (r,)


@export(method=False)
def hstack(tensors, *, out=None):
    """Concatenate horizontally: along dim 0 for 1-D tensors, else dim 1."""
    ts = _as_tuple(atleast_1d(list(_tensor_list(tensors, "hstack"))))
    return cat(ts, 0 if ts and ts[0]._data.ndim == 1 else 1, out=out)


@export(method=False)
def vstack(tensors, *, out=None):
    """Concatenate vertically (rows): 1-D tensors become rows."""
    return cat(_as_tuple(atleast_2d(list(_tensor_list(tensors, "vstack")))), 0, out=out)


row_stack = export("row_stack", method=False)(vstack)


@export(method=False)
def dstack(tensors, *, out=None):
    """Concatenate along the third (depth) dim."""
    return cat(_as_tuple(atleast_3d(list(_tensor_list(tensors, "dstack")))), 2, out=out)


# ============================================================ repeat / tile / flip / roll
def _repeat_backward(grad, self_sym_sizes, repeats):
    n = len(repeats)
    sizes = (1,) * (n - len(self_sym_sizes)) + tuple(self_sym_sizes)
    lead = F.batch_shape(grad, n)
    g = F.reshape(grad, lead + tuple(x for r, s in zip(repeats, sizes) for x in (r, s)))
    g = _sum_dims(g, tuple(2 * i - 2 * n for i in range(n)))
    return F.reshape(g, lead + tuple(self_sym_sizes))


REPEAT = defop("repeat(self, *, repeats)", lambda a, repeats: np.tile(a, repeats),
               "RepeatBackward0", self=_repeat_backward, jvp=LINEAR,
               batched_jvp=lambda self_t, self_sym_sizes, repeats: F.repeat(
                   F.pad_batched(self_t, len(self_sym_sizes), len(repeats)),
                   (1,) * F.lead(self_t, len(self_sym_sizes)) + tuple(repeats)))
FLIP = defop("flip(self, *, dims)", lambda a, dims: np.flip(a, dims).copy(), "FlipBackward0",
             self=lambda grad, dims: F.flip(grad, dims), jvp=LINEAR,
             batched_jvp=lambda self_t, self_sym_sizes, dims:
                 F.flip(self_t, F.neg_dims(dims, len(self_sym_sizes))))


def _roll_kernel(a, shifts, dims):
    if dims is None:
        return np.roll(a, shifts[0])  # over the flattened tensor
    return _contiguous(np.roll(a, shifts, dims))


def _roll_backward(grad, self_sym_sizes, shifts, dims):
    back = tuple(-s for s in shifts)
    if dims is None:
        n = len(self_sym_sizes)
        g = F.reshape_to(grad, (F.numel(self_sym_sizes),), n)
        return F.reshape_to(F.roll(g, back, (-1,)), self_sym_sizes, 1)
    return F.roll(grad, back, dims)


def _roll_batched(self_t, self_sym_sizes, shifts, dims):
    nd = len(self_sym_sizes)
    if dims is not None:
        return F.roll(self_t, shifts, F.neg_dims(dims, nd))
    flat = F.reshape_to(self_t, (F.numel(self_sym_sizes),), nd)
    return F.reshape_to(F.roll(flat, shifts, (-1,)), self_sym_sizes, 1)


ROLL = defop("roll(self, *, shifts, dims)", _roll_kernel, "RollBackward0",
             self=_roll_backward, jvp=LINEAR, batched_jvp=_roll_batched)


def _int_list(args, fn):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    try:
        return tuple(int(a) for a in args)
    except TypeError:
        raise TypeError(f"{fn}(): expected a sequence of ints, got {args!r}") from None


@export(function=False)
def repeat(input, *sizes):
    """Tile the tensor ``sizes[i]`` times along each dim (RepeatBackward0)."""
    reps = _int_list(sizes, "repeat")
    if len(reps) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           f"of dimensions of tensor (repeat{reps} on a tensor of shape "
                           f"{list(input._data.shape)})")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension: repeats {list(reps)}")
    return dispatch(REPEAT, input, reps)


@export()
def tile(input, dims):
    """``repeat`` with ``dims`` padded with leading ones to the tensor's ndim."""
    reps = _int_list((dims,) if isinstance(dims, int) else (dims,), "tile")
    nd = input._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    return repeat(input, reps)


def _dims_of(dims, nd, fn):
    wrapped = [_wrap_dim(d, nd) for d in dims]
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims ({fn})")
        seen.add(d)
    return tuple(_neg(d, nd) for d in wrapped) if nd else ()


@export()
def flip(input, *dims):
    """Reverse the order of elements along ``dims`` (a copy)."""
    nd = input._data.ndim
    return dispatch(FLIP, input, _dims_of(_int_list(dims, "flip"), nd, "flip"))


@export()
def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@export()
def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


@export()
def roll(input, shifts, dims=None):
    """Roll elements along ``dims`` (over the flattened tensor when dims is None)."""
    shifts = (shifts,) if isinstance(shifts, int) else _int_list((shifts,), "roll")
    nd = input._data.ndim
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return dispatch(ROLL, input, shifts, None)
    dims = (dims,) if isinstance(dims, int) else _int_list((dims,), "roll")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    return dispatch(ROLL, input, shifts, tuple(_neg(_wrap_dim(d, nd), nd) for d in dims))
