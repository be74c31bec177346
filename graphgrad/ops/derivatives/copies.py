"""The table, copies family: cat/stack per number of inputs, repeat, flip, roll.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/copies.py, public functions in ops/api/copies.py.
"""
from __future__ import annotations

import itertools
import numpy as np

from .. import formulas as F
from ..node import FormulaNode
from ..registry import LINEAR, OpDef, defop
from ..save_plan import SAVE_ATTR
from .indexing import _sum_dims
from ..kernels.copies import _cat_kernel, _flip_kernel, _roll_kernel, _stack_kernel


# ============================================================ cat / stack
# The number of tensors varies per call: one table entry per arity, made on first use (all
# with PyTorch's node name); input k's VJP slices (cat) or selects (stack) its part of grad.
_CAT_OPS, _STACK_OPS = {}, {}


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


def _cat(ts, dim):
    # the batched JVPs concatenate Tensors with the public cat, which picks the entry for
    # their number (reached at call time: the API is the layer above)
    from ..api.copies import cat
    return cat(ts, dim)


def _stack(ts, dim):
    from ..api.copies import stack
    return stack(ts, dim)


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
                                     n, lambda ts, dim, sizes: _cat(ts, dim), ("dim", "sizes")),
                                 **{p: _cat_vjp(i) for i, p in enumerate(names)})
    return op


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
                                       n, lambda ts, dim: _stack(ts, dim), ("dim",)),
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
        dim = self._saved0
        prep = self._prep(self._saved1 if len(self._slots) > 1 else None)
        out = []
        for k in range(len(nodes)):
            if (nodes[k] is not None) if mask is None else mask[k]:
                out.append(part(grad, dim, prep, k))
            else:
                out.append(None)
        return out


def _list_node_class(template, prep, part):
    slots = tuple(f"_saved{i}" for i in range(len(template.save_names)))
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
    op.vjp_order = tuple(range(n))
    idx = tuple(n + attrs.index(p) for p in template.save_names)
    op.save_kinds = tuple(("attr", i) for i in idx)
    op.save_needed_by = (frozenset(range(n)),) * len(idx)
    op.save_plan = tuple((SAVE_ATTR, i, None) for i in idx)
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
            return _cat(ts, vals[2 * n])
        return _stack(ts, vals[2 * n])
    return rule


_CAT_TEMPLATE, _STACK_TEMPLATE = _cat_op(1), _stack_op(1)
_LIST_NODES = {"cat.1": _list_node_class(_CAT_TEMPLATE, _cat_offsets, _cat_part),
               "stack.1": _list_node_class(_STACK_TEMPLATE, lambda _: None, _stack_part)}


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
FLIP = defop("flip(self, *, dims)", _flip_kernel, "FlipBackward0",
             self=lambda grad, dims: F.flip(grad, dims), jvp=LINEAR,
             batched_jvp=lambda self_t, self_sym_sizes, dims:
                 F.flip(self_t, F.neg_dims(dims, len(self_sym_sizes))))


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
