"""A bare reverse-mode engine for W3 only: the floor of any Python autograd engine.

Not part of graphgrad and not a usable engine: it exists to measure how close to
hand-written NumPy a Python engine can get on W3 at all.  It records each op as a
tuple on its output, has no dtype promotion, no checks, no version counters, no
hooks, no grad modes, no node objects, and walks the graph with a plain stack,
which is correct only because every intermediate of W3 is used once (no
dependency counting needed).  Its products and elementwise ops are exactly those
of the hand-written NumPy version of W3.
"""

import numpy as np

_new = object.__new__
MM, ADD, TANH = 0, 1, 2


class BareTensor:
    __slots__ = ("data", "fn", "grad", "req")

    def __matmul__(a, b):
        o = _new(BareTensor)
        o.data = a.data @ b.data
        o.grad = None
        o.req = a.req or b.req
        o.fn = (MM, a, b) if o.req else None
        return o

    def __add__(a, b):
        o = _new(BareTensor)
        o.data = a.data + b.data
        o.grad = None
        o.req = a.req or b.req
        o.fn = (ADD, a, b) if o.req else None
        return o

    def __getitem__(a, key):
        o = _new(BareTensor)
        o.data = a.data[key]
        o.grad = o.fn = None
        o.req = False
        return o


def leaf(data, requires_grad=False):
    o = _new(BareTensor)
    o.data = data
    o.fn = o.grad = None
    o.req = requires_grad
    return o


def tanh(a):
    o = _new(BareTensor)
    o.data = r = np.tanh(a.data)
    o.grad = None
    o.req = a.req
    o.fn = (TANH, a, r) if a.req else None
    return o


def backward_sum_of_squares(h):
    """Gradients of ``(h * h).sum()`` into the ``grad`` of the leaves."""
    stack = [(h, 2.0 * h.data)]
    while stack:
        t, g = stack.pop()
        fn = t.fn
        if fn is None:
            if t.req:
                if t.grad is None:
                    t.grad = g
                else:
                    t.grad += g
            continue
        kind, a, b = fn
        if kind == MM:
            if b.req:
                stack.append((b, a.data.T @ g))
            if a.req:
                stack.append((a, g @ b.data.T))
        elif kind == ADD:
            if b.req:
                stack.append((b, g))
            if a.req:
                stack.append((a, g))
        else:
            stack.append((a, g * (1.0 - b * b)))
