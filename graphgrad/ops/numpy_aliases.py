"""NumPy's argument names as aliases, as PyTorch's argument parser accepts them.

Every function PyTorch binds from ATen (``torch.sum``, ``Tensor.max``, ``torch.cat``...)
takes ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``; its Python-level
functions (``nn.functional``, ``Tensor.norm``) do not.  ``with_numpy_aliases`` wraps a
published function that has one of those parameters (and no parameter of the alias's
name) so the aliases reach it; other functions are returned as they are.  (PyTorch's
``x=``/``a=``/``x1=`` for ``input=`` and ``x2=`` for ``other=`` are left out: they would
put a wrapper in front of nearly every op, for names code hardly uses; docs/differences.md.)
"""
from __future__ import annotations

import functools

# PyTorch's Python-level functions among the published ones: they take no alias
PYTHON_LEVEL_FUNCTIONS = frozenset(("cdist", "einsum", "norm", "split"))   # torch.<name>
PYTHON_LEVEL_METHODS = frozenset(("norm", "split", "unflatten"))            # Tensor.<name>
# ops-reduce: torch.functional's / torch._tensor's unique and unique_consecutive take no axis=
PYTHON_LEVEL_FUNCTIONS |= {"unique", "unique_consecutive"}
PYTHON_LEVEL_METHODS |= {"unique", "unique_consecutive"}

ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _parameter_names(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    n = code.co_argcount + code.co_kwonlyargcount
    return set(code.co_varnames[:n])


def with_numpy_aliases(fn, name):
    """``fn`` published as ``name``, taking the aliases of its parameters."""
    names = _parameter_names(fn)
    if not names:
        return fn
    aliases = {alias: target for alias, target in ALIASES.items()
               if target in names and alias not in names}
    if not aliases:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            for alias in [k for k in kwargs if k in aliases]:
                target = aliases[alias]
                if target in kwargs:
                    raise TypeError(f"{name}() got both '{target}' and its NumPy alias "
                                    f"'{alias}': pass one of them")
                kwargs[target] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call
