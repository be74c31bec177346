"""A small pytree: nested tuples, lists, dicts and namedtuples of leaves.

Enough for the transforms' inputs and outputs (PyTorch's ``torch.utils._pytree``
rules: everything that is not a container, None included, is a leaf; dicts keep their
insertion order).
"""
from __future__ import annotations

__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "tree_map"]


class TreeSpec:
    """The structure of a pytree: ``kind`` (None for a leaf), a context (dict keys, the
    namedtuple class) and the children's specs."""

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind, context, children):
        self.kind = kind
        self.context = context
        self.children = children
        if kind is None:
            self.num_leaves = 1
        else:
            n = 0
            for c in children:
                n += c.num_leaves
            self.num_leaves = n

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind == other.kind
                and self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, len(self.children)))

    def __repr__(self):
        if self.kind is None:
            return "*"
        inner = ", ".join(repr(c) for c in self.children)
        if self.kind == "tuple":
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == "list":
            return f"[{inner}]"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in
                                   zip(self.context, self.children)) + "}"
        return f"{self.context.__name__}({inner})"


LEAF = TreeSpec(None, None, ())


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)``."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(x, leaves):
    cls = x.__class__
    if cls not in _CONTAINERS and not isinstance(x, (list, tuple, dict)):
        leaves.append(x)   # (the common case first: a leaf)
        return LEAF
    if isinstance(x, list):
        return TreeSpec("list", None, tuple([_flatten(v, leaves) for v in x]))
    if isinstance(x, tuple):
        if _is_namedtuple(x):
            return TreeSpec("namedtuple", type(x), tuple([_flatten(v, leaves) for v in x]))
        return TreeSpec("tuple", None, tuple([_flatten(v, leaves) for v in x]))
    keys = tuple(x)
    return TreeSpec("dict", keys, tuple([_flatten(x[k], leaves) for k in keys]))


_CONTAINERS = {list, tuple, dict}


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    out = _unflatten(it, spec)
    return out


def _unflatten(it, spec):
    kind = spec.kind
    if kind is None:
        return next(it)
    vals = [next(it) if c is LEAF else _unflatten(it, c) for c in spec.children]
    if kind == "tuple":
        return tuple(vals)
    if kind == "list":
        return vals
    if kind == "dict":
        return dict(zip(spec.context, vals))
    return spec.context(*vals)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)
