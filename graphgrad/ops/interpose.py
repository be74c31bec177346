"""Interposers: code that runs around every op call while it is active (the profiler,
autocast, selective checkpointing), as PyTorch's dispatcher keys and RecordFunction do.

NOTE [interposition]: every entry of a table op (``dispatch``, ``unary``, ``binary``,
``dispatch_inplace`` and the generated entries) starts with

    if not ALL_THREADS.plain and tls.interposers:  (and the call is not the chain's own)
        return interposed(op, <the entry>, args, kwargs)

so with no interposer active the hot path pays one flag test it already pays
(``ALL_THREADS.plain`` is False whenever any thread has an interposer, NOTE in _core/state.py).
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

from time import perf_counter_ns as _clock

from .._core.state import ALL_THREADS, tls
from .._tensor.tensor import Tensor as _Tensor

__all__ = ["interposed", "interposable", "interposing", "Composite", "Timer"]


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
    if len(chain) == 1:  # (the usual case, e.g. the profiler alone: one frame less)
        timer = chain[0]
        if timer.__class__ is Timer:  # time the call here: no frame for the interposer
            before = timer.before
            if before is not None:
                info = before(op, args, kwargs)
            if reenter:
                tls.interpose_skip = True
            t0 = _clock()
            r = fn(*args, **kwargs) if kwargs else fn(*args)
            t1 = _clock()
            if before is not None:
                timer.append((op, t0, t1, timer.seq_of(r), timer.after(info, r, args), fn))
            elif r.__class__ is _Tensor:
                g = r._grad_fn
                timer.append((op, t0, t1, -1 if g is None else g._seq, None, fn))
            else:
                timer.append((op, t0, t1, timer.seq_of(r), None, fn))
            return r
        if reenter:
            def call(args, kwargs):
                tls.interpose_skip = True
                return fn(*args, **kwargs) if kwargs else fn(*args)
        else:
            def call(args, kwargs):
                return fn(*args, **kwargs) if kwargs else fn(*args)
        call.entry = fn   # the op's entry (vmap's batching rules re-enter it)
        return chain[0](op, call, args, kwargs)

    def call(i, args, kwargs):
        if i == len(chain):
            if reenter:
                tls.interpose_skip = True
            return fn(*args, **kwargs)
        nxt = lambda a, k: call(i + 1, a, k)  # noqa: E731
        nxt.entry = fn   # the op's entry (vmap's batching rules re-enter it)
        return chain[i](op, nxt, args, kwargs)

    return call(0, tuple(args), dict(kwargs))


class Timer:
    """An interposer that only times each call (the profiler's, autograd/profiler.py):
    alone on its thread, ``interposed`` runs the call itself between two timestamps and
    appends ``(op, t0, t1, sequence number of the output's node or -1, info, entry)``
    with ``append``; under other interposers it is called like any interposer (``entry``
    is then None).  ``seq_of(result)``: the number for a result that is not one Tensor;
    ``before(op, args, kwargs)`` (optional) is called before the call and
    ``after(its value, result, args)`` gives ``info`` (else None)."""

    __slots__ = ("append", "seq_of", "before", "after")

    def __init__(self, append, seq_of, before=None, after=None):
        self.append = append
        self.seq_of = seq_of
        self.before = before
        self.after = after

    def __call__(self, op, call, args, kwargs):
        before = self.before
        if before is not None:
            info = before(op, args, kwargs)
        t0 = _clock()
        r = call(args, kwargs)
        t1 = _clock()
        self.append((op, t0, t1, self.seq_of(r),
                     self.after(info, r, args) if before is not None else None, None))
        return r


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
            if ALL_THREADS.plain or not tls.interposers:
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
