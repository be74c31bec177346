"""How a built-in node's ``_saved_<name>`` attributes read, as in PyTorch.

Two adjustments to what the rules save (both made when an attribute is *read*, so the
forward pays nothing):

- dims: the rules keep some dims negative (counted from the end); PyTorch shows them
  as it stores them, non-negative for a dim given non-negative.  ``_saved_dim`` and
  friends read non-negative here.
- attributes PyTorch's nodes save that graphgrad's rules do not need (``_saved_alpha``
  of an add without ``alpha``, ``MeanBackward0._saved_self_sym_numel``, the operands'
  sizes and strides of ``MmBackward0``...): computed from what the node knows.
"""
from __future__ import annotations

import math
from .saved import _FREED_MSG

_DIM_KEYS = frozenset(("dim", "dim0", "dim1", "dim2", "dims", "dimension"))
# nodes whose dims count in the forward *output* (one dim more than the input)
_DIMS_OF_OUTPUT = frozenset(("UnsqueezeBackward0", "StackBackward0", "UnfoldBackwardBackward0"))


def _input_ndim(node):
    for child, nr in zip(node._next_nodes, node._next_nrs):
        if child is not None:
            return len(child.input_metadata(nr)[0])
    return None


def public_value(node, key, value):
    """The value PyTorch shows for ``node._saved_<key>`` given what the rule saved."""
    if key not in _DIM_KEYS or value is None:
        return value
    if isinstance(value, int):
        if value >= 0:
            return value
    elif isinstance(value, (tuple, list)):
        if not any(isinstance(d, int) and d < 0 for d in value):
            return value
    else:
        return value
    if type(node).__name__ in _DIMS_OF_OUTPUT:
        ndim = len(node._out_meta[0][0])
    else:
        ndim = _input_ndim(node)
    if not ndim:
        return value
    if isinstance(value, int):
        return value % ndim
    return tuple(d % ndim if isinstance(d, int) and d < 0 else d for d in value)


# -- attributes computed on read ------------------------------------------------------
def _operand(node, key, edge):
    """(shape, strides in elements) of a forward operand: from the saved tensor while it
    is held, else from the gradient edge's metadata (row-major strides)."""
    t = None
    if key in type(node)._op.save_names:
        try:
            t = node._get_saved(key, False)
        except RuntimeError:  # freed by a backward
            t = None
    if t is not None and hasattr(t, "_data"):
        d = t._data
        return d.shape, tuple(s // d.itemsize for s in d.strides)
    child, nr = node._next_nodes[edge], node._next_nrs[edge]
    if child is None:
        return None, None
    shape = tuple(child.input_metadata(nr)[0])
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return shape, tuple(reversed(strides))


def _sizes(key, edge):
    return lambda node: _operand(node, key, edge)[0]


def _strides(key, edge):
    # PyTorch saves an operand's strides for that operand's own gradient only: () when the
    # operand does not require grad
    return lambda node: _operand(node, key, edge)[1] if node._next_nodes[edge] is not None \
        else ()


def _numel(node):
    return math.prod(node._get_saved("self_sym_sizes", False))


_EXTRAS = {
    "AddBackward0": {"alpha": lambda node: 1},
    "SubBackward0": {"alpha": lambda node: 1},
    "MeanBackward0": {"self_sym_numel": _numel},
    "MeanBackward1": {"self_sym_numel": _numel},
    "MmBackward0": {"self_sym_sizes": _sizes("self", 0), "self_sym_strides": _strides("self", 0),
                    "mat2_sym_sizes": _sizes("mat2", 1), "mat2_sym_strides": _strides("mat2", 1)},
    "AddmmBackward0": {"mat1_sym_sizes": _sizes("mat1", 1),
                       "mat1_sym_strides": _strides("mat1", 1),
                       "mat2_sym_sizes": _sizes("mat2", 2),
                       "mat2_sym_strides": _strides("mat2", 2)},
}


# PyTorch calls the index output of these nodes "indices"; graphgrad's rules "result1"
for _name in ("MaxBackward0", "MinBackward0", "SortBackward0", "TopkBackward0",
              "CummaxBackward0", "CumminBackward0", "KthvalueBackward0", "ModeBackward0",
              "MedianBackward1", "NanmedianBackward1"):
    _EXTRAS.setdefault(_name, {})["indices"] = lambda node: node._get_saved("result1", False)


# what graphgrad's rules save and PyTorch's nodes do not (their backward reads the target
# shape from elsewhere, or recomputes a constant): no ``_saved_<name>`` for these, so that
# dir(node), and torchviz's show_attrs, list PyTorch's attributes
_HIDDEN = {"ViewBackward0": ("size",), "ExpandBackward0": ("size",),
           "TBackward0": ("self_sym_sizes",), "NativeLayerNormBackward0": ("eps",)}


def hidden_attributes(op):
    """The names of ``op``'s saved values that PyTorch's node does not show."""
    return _HIDDEN.get(op.node_name, ())


def extra_attributes(op):
    """{name: fn(node)} for the ``_saved_<name>`` PyTorch has and ``op``'s rules lack."""
    extras = _EXTRAS.get(op.node_name)
    if not extras:
        return {}
    needs = {"self_sym_numel": "self_sym_sizes", "indices": "result1"}
    return {k: fn for k, fn in extras.items()
            if k not in op.save_names and needs.get(k, k) in op.save_names or
            k not in op.save_names and k not in needs}


# -- attributes PyTorch saves as tensors: freed with the graph ----------------------------
# IndexBackward0 / IndexPutBackward0 keep their index tensors as saved variables in PyTorch,
# so a second backward through them raises "Trying to backward through the graph a second
# time"; graphgrad's rules keep them as a plain attribute, which these node classes free
# (their saved slot becomes the freed marker) when the graph is freed.
_TENSOR_ATTRS = {"IndexBackward0": ("indices",), "IndexPutBackward0": ("indices",)}


def free_tensor_attributes(op, attrs, freed):
    """Wrap the generated ``_step``/``_apply``/``release_variables`` in ``attrs`` of
    ``op``'s node class so that its tensor-like attributes are freed with the graph."""
    names = _TENSOR_ATTRS.get(op.node_name, ())
    slots = tuple(f"_saved{op.save_names.index(n)}" for n in names if n in op.save_names)
    if not slots:
        return

    def check(self):
        for s in slots:
            if getattr(self, s) is freed:
                raise RuntimeError(_FREED_MSG)

    def free(self):
        for s in slots:
            setattr(self, s, freed)

    step, apply, release = attrs.get("_step"), attrs.get("_apply"), attrs["release_variables"]
    if step is not None:
        def _step(self, grads, keep_graph):
            check(self)
            out = step(self, grads, keep_graph)
            if not keep_graph:
                free(self)
            return out
        attrs["_step"] = _step
    if apply is not None:
        def _apply(self, grads, mask, create_graph):
            check(self)
            return apply(self, grads, mask, create_graph)
        attrs["_apply"] = _apply

    def release_variables(self):
        release(self)
        free(self)
    attrs["release_variables"] = release_variables
