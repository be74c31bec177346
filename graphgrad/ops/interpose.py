"""Interposers: code that runs around every op call while it is active (the profiler,
autocast, selective checkpointing), as PyTorch's dispatcher keys and RecordFunction do.

NOTE [interposition]: every entry of a table op (``dispatch``, ``unary``, ``binary``,
``dispatch_inplace`` and the generated entries) starts with

    if not HOT.fast and tls.interposers:  (and the call is not the chain's own)
        return interposed(op, <the entry>, args, kwargs)

so with no interposer active the hot path pays one flag test it already pays
(``HOT.fast`` is False whenever any thread has an interposer, NOTE in _core/state.py).
``interposed`` runs the thread's interposers, outermost first; each is called as
``interposer(op, call, args, kwargs)`` and must return ``call(args, kwargs)``'s result
(or its own, e.g. a cached one), and may change ``args``/``kwargs`` on the way (autocast
casts them).  The last ``call`` re-enters the entry with ``tls.interpose_skip`` set,
which the entry's test consumes, so the op runs once; ops that run *inside* it (the
casts of an interposer, the ops of a composite) are interposed in their turn.

``op`` is the table's ``OpDef`` (``op.name`` is PyTorch's overload name, e.g.
``"mul.Tensor"``) or, for a composite public function marked ``@interposable``
(``F.linear``: PyTorch dispatches it as one op, graphgrad runs it as several), a
``Composite`` with its ``name``.
"""
from __future__ import annotations

import functools
from contextlib import contextmanager

from .._core.state import HOT, tls

__all__ = ["interposed", "interposable", "interposing", "Composite"]


class Composite:
    """The ``op`` an interposer sees for a composite public function (``F.linear``)."""

    __slots__ = ("name", "fn")

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def __repr__(self):
        return f"<composite op {self.name}>"


def interposed(op, fn, args, kwargs, reenter=True):
    """Run ``fn(*args, **kwargs)``, the call of ``op``, through the active interposers.
    ``reenter``: ``fn`` is an entry that begins with the interposition test (NOTE
    [interposition]), so its own call is marked to pass that test once."""
    chain = tls.interposers

    def call(i, args, kwargs):
        if i == len(chain):
            if reenter:
                tls.interpose_skip = True
            return fn(*args, **kwargs)
        nxt = lambda a, k: call(i + 1, a, k)  # noqa: E731
        nxt.entry = fn   # the op's entry (vmap's batching rules re-enter it)
        return chain[i](op, nxt, args, kwargs)

    return call(0, tuple(args), dict(kwargs))


def all_values(d):
    """The values an argument check must look at for the array ``d`` of a tensor: ``d``
    itself, or, for a value vmap batches (func/_batching.py), every example's values, since
    its ``d`` shows only the logical shape and reading its values raises."""
    return getattr(d, "_all_values", d)


def interposable(name):
    """Mark a composite public function as one op for interposers (NOTE [interposition]):
    ``@interposable("linear")``.  With none active it costs one call frame and a flag test."""
    def deco(fn):
        op = Composite(name, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if HOT.fast or not tls.interposers:
                return fn(*args, **kwargs)
            return interposed(op, fn, args, kwargs, reenter=False)

        wrapper.__graphgrad_composite__ = op
        return wrapper
    return deco


@contextmanager
def interposing(interposer):
    """Make ``interposer`` the innermost active interposer of this thread while the block runs."""
    prev = tls.interposers
    tls.interposers = prev + (interposer,)
    tls.refresh()
    try:
        yield interposer
    finally:
        tls.interposers = prev
        tls.refresh()
