"""FormulaNode: the backward node class of a table op, its saved values and output metadata.

Each op's node class (``MulBackward0``) is generated from its table entry by
``codegen.nodes.make_node_class``; this module holds what all of them share, and
``FormulaNode._apply``, the reference of the generated ``_apply``/``_step`` (NOTE
[reference path] in ops/dispatch.py; tests/ops/test_codegen_reference.py).
"""
from __future__ import annotations

import numpy as np

from .._tensor.tensor import Tensor
from ..autograd.graph import Node
from ..autograd.saved import SavedVariable
from ..autograd._saved_attrs import public_value
from ..autograd.saved import call_pack_hook
from ..autograd.saved import _LeafRef

_wrap = Tensor._wrap
_new = object.__new__
_ndarray = np.ndarray

# ====================================================================== nodes
class FormulaNode(Node):
    """A backward node whose rules come from the op table.

    What the rules need is saved in the generated class's slots ``_saved0, _saved1, ...``, one
    per saved name.  A slot holds a SavedVariable, a plain value (an attribute, sizes, a
    Python scalar operand, None when no edge needs it), or -- as the generated record
    writes it on the hot path -- a saved tensor *inline*, without a SavedVariable object:
    an input as the Tensor itself with its version in ``_v<i>``, the node's own output
    as its array with the output's version counter in ``_v<i>`` (saved at version 0).
    ``_saved`` turns inline entries into SavedVariables (once, in place) for everything
    off the hot path: hooks, anomaly mode, ``_saved_<name>``, create_graph.
    """

    __slots__ = ("_out_meta",)
    _exact_outs = True  # (the generated rules give one gradient per input, by construction)
    _op = None
    _srcs = ()   # per VJP: tuple of sources, -1 grad, -2 grads, k >= 0 saved slot
    _slots = ()  # the saved-value slot names of the generated class

    @property
    def _saved(self):
        kinds = self._op.save_kinds
        out = []
        for i, name in enumerate(self._slots):
            s = getattr(self, name)
            kind = kinds[i][0]
            if kind == "input" and s.__class__ is Tensor:
                s = _sv_of_input(s, getattr(self, name + "_version"))
                setattr(self, name, s)
            elif kind == "result" and s.__class__ is _ndarray:
                s = _sv_of_result(s, getattr(self, name + "_version"))
                setattr(self, name, s)
            out.append(s)
        return out

    @_saved.setter
    def _saved(self, values):
        for name, v in zip(self._slots, values):
            setattr(self, name, v)

    def _apply(self, grads, mask, create_graph):
        """The rules of the op on the unpacked saved values; the reference the generated
        ``_apply``/``_step`` (``codegen.nodes``) are tested against, and the one that runs
        for ops with several outputs."""
        op = self._op
        grad = grads[0]
        if op.n_outputs != 1:
            if all(g is None for g in grads):
                return [None] * len(self._next_nodes)
            grads = _materialize(grads, self._out_meta, create_graph)
            grad = grads[0]
        elif grad is None:
            return [None] * len(self._next_nodes)
        names = op.save_names
        if create_graph:
            env = [s.unpack(self, names[i]) if s.__class__ is SavedVariable else s
                   for i, s in enumerate(self._saved)]
        else:
            env = [s.unpack_data(self, names[i]) if s.__class__ is SavedVariable else s
                   for i, s in enumerate(self._saved)]
        env.append(grads)   # index -2
        env.append(grad)    # index -1
        rules = op.vjps
        out = [None] * len(rules)
        nodes = self._next_nodes
        all_srcs = self._srcs
        for k in op.vjp_order:   # NOTE [VJP order]
            if (nodes[k] is not None) if mask is None else mask[k]:
                out[k] = rules[k][0](*[env[j] for j in all_srcs[k]])
        return out

    def _get_saved(self, key, raw):
        """``grad_fn._saved_<key>`` / ``_raw_saved_<key>``, as in PyTorch (each generated
        node class has these as properties: no ``__getattr__``, which would slow down
        every attribute read of every node)."""
        op = type(self)._op
        s = self._saved[op.save_names.index(key)]
        if s.__class__ is SavedVariable:
            if raw:
                return _RawSaved(s, self, key)
            return s.unpack(self, key, detached_ok=True)
        if key in op.tensor_params and s is not None:
            s = _wrap(np.asarray(s))  # a wrapped number, as PyTorch shows it
        if raw:
            return None if s is None else _RawSaved(SavedVariable(s, False), self, key)
        return public_value(self, key, s)


class _RawSaved:
    """What ``_raw_saved_<name>`` returns: lets a user register saved-tensor hooks on it."""

    def __init__(self, sv, node, name):
        self._sv, self._node, self._name = sv, node, name

    def register_hooks(self, pack_hook, unpack_hook):
        sv = self._sv
        if sv.data is None and sv.packed is None:
            raise RuntimeError("Trying to register hooks on a saved tensor that has been freed")
        if sv.packed is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor more than once")
        t = sv.unpack(self._node, self._name)
        sv.packed = (call_pack_hook(pack_hook, t.detach() if sv.tensor is None else t, sv.vc),
                     unpack_hook)
        sv.data = None
        if sv.tensor is not None:
            sv.tensor = _LeafRef(sv.tensor)


def _freed_saved_variable():
    sv = SavedVariable.__new__(SavedVariable)
    sv.data = sv.tensor = sv.packed = None
    return sv


_FREED = _freed_saved_variable()  # shared: a freed saved value carries no state


def _sv_of_input(t, version):
    """The SavedVariable of an input saved inline (the tensor at ``version``; a tensor
    without a counter then has never been bumped since, so it gets one at 0)."""
    sv = SavedVariable(t, False)
    sv.version = version
    return sv


def _sv_of_result(data, vc):
    """The SavedVariable of a node's own (single) output saved inline at version 0."""
    sv = _new(SavedVariable)
    sv.data = data
    sv.vc = vc
    sv.version = 0
    sv.packed = sv.fw = sv.tensor = None
    sv.output_nr = 0
    sv.requires_grad = True
    return sv


def _unpack_stale(node, i):
    """Raise the error for an inline saved tensor modified in place since it was saved."""
    return node._saved[i].unpack_data(node, node._op.save_names[i])


def _materialize(grads, meta, create_graph):
    out = list(grads)
    # zeros for the missing gradients carry the same leading batch dims as the given ones
    # (autograd.grad(..., is_grads_batched=True))
    batch = ()
    for g, (shape, _) in zip(out, meta):
        if g is not None:
            gs = g._data.shape if isinstance(g, Tensor) else np.shape(g)
            batch = tuple(gs[:len(gs) - len(shape)])
            break
    for i, g in enumerate(out):
        if g is None:
            shape, dt = meta[i]
            z = np.zeros(batch + tuple(shape), dt)
            out[i] = _wrap(z) if create_graph else z
    return out


def _new_meta(key):
    if len(_OUT_META_CACHE) > 4096:
        _OUT_META_CACHE.clear()
    meta = _OUT_META_CACHE[key] = (key,)
    return meta


# (shape, dtype) -> ((shape, dtype),): one shared _out_meta per output signature, so a
# recorded op keeps no metadata tuples of its own alive (fewer objects for the GC to walk)
_OUT_META_CACHE = {}
_LAST_RECORD_META = [((None, None),)]  # the metadata the last generated record used
