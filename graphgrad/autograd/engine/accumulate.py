"""Gradient accumulation: validation against input metadata (sum away broadcasting, cast
the dtype), accumulation into a leaf's ``.grad`` with PyTorch's layout contract, and the
journal that restores every ``.grad`` when a backward fails.
"""
from __future__ import annotations

import sys
import threading
import numpy as np

from ..._tensor.tensor import Tensor

_wrap = Tensor._wrap
_grad_lock = threading.RLock()


# NOTE [buffer ownership]: the engine adds a gradient into a buffered array in place, and
# accumulation steals a fresh gradient for .grad, only when no one else holds the array.
# It asks the interpreter: ``sys.getrefcount(a) <= 3`` for an array held by one list slot
# and one local (plus the call's argument).  CPython does not promise these counts across
# versions, so the probe below checks, on the running interpreter, that they mean what the
# engine assumes (3 when owned, more when shared); if not, ``refcount`` reports every
# array as shared: the engine then always adds out of place (correct, a little slower).
def _refcount_means_ownership():
    slot = [np.ones(2)]
    a = slot[0]
    owned = sys.getrefcount(a)
    alias = a  # noqa: F841 -- one more holder
    shared = sys.getrefcount(a)
    return owned <= 3 < shared


def _always_shared(a):
    return 1 << 30


OWNERSHIP_BY_REFCOUNT = _refcount_means_ownership()
refcount = sys.getrefcount if OWNERSHIP_BY_REFCOUNT else _always_shared

def _sum_to_shape(node, i, g, gs, shape, batch_nd):
    from ...ops import formulas as F
    out = gs[batch_nd:]
    ok = len(out) >= len(shape) and all(
        s == 1 or s == o for s, o in zip(shape[::-1], out[::-1]))
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(gs)} but expected shape compatible with {list(shape)}")
    return F.sum_to(g, shape, len(out))


def _cast(g, dt, create_graph):
    if create_graph:
        from ...ops import formulas as F
        if g._data.dtype.kind == "c" and dt.kind != "c":
            g = F.real(g)
        return F.cast(g, dt) if g._data.dtype != dt else g
    if g.dtype.kind == "c" and dt.kind != "c":
        g = g.real
    # PyTorch's to(dtype) keeps a dense layout and makes anything else (an expanded
    # gradient, say) row-major; NumPy's astype would keep a broadcast array's odd order
    return g.astype(dt) if _dense(g) else g.astype(dt, order="C")


class _Journal:
    """Undo log for ``.grad`` so that a failing backward leaves no partial update."""

    __slots__ = ("entries",)

    def __init__(self):
        self.entries = []

    def rollback(self):
        for var, old_grad, old_data in reversed(self.entries):
            var._grad = old_grad
            if old_data is not None:
                old_grad._data = old_data


def _accumulate_grad(node, g, create_graph, journal):
    """AccumulateGrad: add ``g`` into ``variable.grad`` (seed 004 "default gradient layout")."""
    var = node.variable
    if g is None or not var._requires_grad:
        return  # (a leaf detached or set not to require grad since: no .grad, as PyTorch)
    # the read-modify-write of .grad is atomic across threads (PyTorch locks each leaf's
    # AccumulateGrad): two backwards into one leaf would otherwise lose updates
    _grad_lock.acquire()  # (acquire/release: half the cost of a with statement)
    try:
        old = var._grad
        if old is None:
            if create_graph:
                # a copy that obeys the layout contract, recorded (CopyBackwards) like PyTorch's
                # clone_obey_contract, so the new .grad is differentiable but not g itself
                from ...ops.api.inplace import copy_
                new = copy_(_wrap(_empty_for_grad(var._data)), g)
            else:
                # steal a freshly computed gradient that obeys the layout contract, copy one
                # that may alias something else or is laid out otherwise
                d = var._data
                if g.base is None and refcount(g) <= 3 and g.flags.writeable and \
                        _obeys_layout(g, d):
                    new = _wrap(g)
                elif _whole_view_of_fresh(g) and refcount(g) <= 3 and _obeys_layout(g, d):
                    # a transpose of a fresh product (a Linear weight's gradient arrives
                    # through TBackward0): take the product itself, not a 4 MB copy
                    new = _wrap(g.base)
                else:
                    new = _empty_for_grad(d)
                    np.copyto(new, g)
                    new = _wrap(new)
            journal.entries.append((var, None, None))
            var._grad = new
        elif create_graph:
            journal.entries.append((var, old, None))
            var._grad = old + (g if isinstance(g, Tensor) else _wrap(g))
        else:
            # in place for the Tensor object (same .grad, keeping its grad_fn if it has one),
            # the array swapped (same layout) so that a rollback is exact
            od = old._data
            journal.entries.append((var, old, od))
            if od.shape == g.shape:
                old._data = np.add(od, g, out=np.empty_like(od))
            else:
                old._data = od + g
            old._bump_version()
    finally:
        _grad_lock.release()
    if var._post_acc_hooks:
        for fn in tuple(var._post_acc_hooks.values()):
            if fn(var) is not None:
                raise RuntimeError(
                    "Tensor post accumulate grad hooks should return None (the hook "
                    f"{getattr(fn, '__name__', fn)!r} returned a value; modify tensor.grad "
                    "in place instead).")


def _whole_view_of_fresh(g):
    """Whether ``g`` is a view covering all of an array nothing else holds, with the same
    shape and strides as that array (a transpose of a transpose): then the array itself
    can become the .grad."""
    b = g.base
    return (b is not None and b.base is None and b.shape == g.shape and b.strides == g.strides
            and b.dtype == g.dtype and b.flags.writeable and refcount(b) <= 3
            and b.__array_interface__["data"][0] == g.__array_interface__["data"][0])


def _dense(d):
    """Non-overlapping and dense: some order of the dims (positive strides) is contiguous."""
    if d.flags.c_contiguous or d.flags.f_contiguous:
        return True
    expected = d.itemsize
    for stride, n in sorted((s, n) for s, n in zip(d.strides, d.shape) if n > 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _obeys_layout(g, d):
    """PyTorch's layout contract for a leaf's .grad: the leaf's strides when the leaf is
    non-overlapping and dense, row-major otherwise (sizes-1 dims' strides do not count)."""
    if d.flags.c_contiguous or not _dense(d):
        return g.flags.c_contiguous
    return all(gs == ds for gs, ds, n in zip(g.strides, d.strides, d.shape) if n > 1)


def _empty_for_grad(d):
    """An uninitialised array for a new .grad of a leaf holding ``d``, laid out as the
    contract wants (``empty_like`` keeps the order of a dense array's dims)."""
    if d.flags.c_contiguous or not _dense(d):
        return np.empty(d.shape, d.dtype)
    return np.empty_like(d)
