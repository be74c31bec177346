"""Batched forward-mode tangents (jacfwd) through an in-place write into a view of a tensor
without a tangent: the base gets a batched zeros tangent and the view's part of it is
written, as with one tangent (the base's tangent was lost: jacfwd gave zeros)."""
import pytest


def _fns(L):
    def view_copy(x):
        y = L.zeros(3, dtype=x.dtype)
        y[1:].copy_(x[:2] * 3)
        return y

    def view_add(x):
        y = L.zeros(3, dtype=x.dtype)
        y[1:] += x[:2]
        return y

    def setitem(x):
        y = L.zeros(3, dtype=x.dtype)
        y[1:] = x[:2] * 3
        return y

    def earlier_view(x):   # a view taken before the base got its tangent reads it
        y = L.zeros(2, 3, dtype=x.dtype)
        v = y[:, 1]
        y[0, 1:] = x[:2]
        return y.sum(0)[:2] + v

    def transposed(x):
        y = L.zeros(3, 2, dtype=x.dtype)
        y.t()[1].copy_(x)
        y[0] += x[0]
        return y
    return {f.__name__: f for f in (view_copy, view_add, setitem, earlier_view, transposed)}


@pytest.mark.parametrize("name", ["view_copy", "view_add", "setitem", "earlier_view",
                                  "transposed"])
def test_jacfwd_through_inplace_view_write(torch, lib, name):
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    jf = lib.func.jacfwd(_fns(lib)[name])(x)
    jr = lib.func.jacrev(_fns(lib)[name])(x)
    assert jf.tolist() == jr.tolist()
