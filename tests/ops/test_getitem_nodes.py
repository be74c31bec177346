"""Basic indexing's nodes as PyTorch's: a slice alone is a SliceBackward0 even over the
whole dim (x[:], x[0:n]); inside a tuple, slices over a whole dim make no node, so a key
of nothing else is an AliasBackward0 (x[:, 0:n], x[(slice(None),)]), and the other
entries make theirs (x[1, 0:n] is a SelectBackward0, x[None, 0:n] an UnsqueezeBackward0)."""
import pytest

import graphgrad as gg

KEYS = [slice(0, 3), slice(None), slice(0, 100), slice(-3, None), slice(0, 3, 1),
        (slice(0, 3),), (slice(None),), (slice(0, 3), slice(None)), (slice(None), slice(0, 4)),
        (slice(0, 3), slice(0, 4)), (Ellipsis, slice(0, 4)), (None, slice(0, 3)),
        (1, slice(0, 4)), (slice(0, 3), 1), (slice(0, 4), slice(0, 2)), (slice(1, 3), slice(None))]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_node_and_gradient(torch, key):
    def run(lib):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        y = x[key]
        (y * y).sum().backward()
        return y.grad_fn.name(), y.detach().numpy().tolist(), x.grad.numpy().tolist()
    assert run(gg) == run(torch)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_graph(torch, key):
    def run(lib):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        v = lib.tensor(2.0, requires_grad=True)
        y = x * 1
        y[key] = v
        (y * y).sum().backward()
        return y.grad_fn.name(), y.detach().numpy().tolist(), x.grad.numpy().tolist(), v.grad.item()
    assert run(gg) == run(torch)


# a slice written with a negative start is a slice even when it covers the dim
NEGATIVE = [(slice(-3, None), slice(None)), (slice(None), slice(-4, None)),
            (slice(-100, None), slice(None)), (None, slice(-3, None)), (slice(None), slice(-5, None)),
            slice(-3, None), slice(-100, None), (Ellipsis, slice(-4, None))]


@pytest.mark.parametrize("key", NEGATIVE, ids=repr)
def test_negative_start_full_slice(torch, key):
    test_getitem_node_and_gradient(torch, key)
    test_setitem_graph(torch, key)


def _history(fn):
    """The names of ``fn``'s graph below it, depth first, leaves' accumulators included."""
    return [None if f is None else (f.name(), _history(f)) for f, _ in fn.next_functions]


@pytest.mark.parametrize("case", ["same-shape", "row-by-1d", "slice-by-1d", "strip-1",
                                  "0d-by-slice", "expand-stripped", "0d", "strip-to-0d"])
def test_setitem_value_history(torch, case):
    """t[key] = v as PyTorch's setitem: v of the view's shape is copied as it is; of another
    shape it is viewed without its leading size-1 dims (ViewBackward0) and expanded
    (ExpandBackward0) first; a 0-d v fills. graphgrad reshaped v when its first dim was 1
    (even of the view's shape) and let copy_ broadcast."""
    def run(lib):
        x = lib.zeros(3, 2, requires_grad=True).clone()
        v = lib.tensor([1.5, -2.0], requires_grad=True)
        key, val = {"same-shape": (0, lambda: v), "row-by-1d": ((slice(0, 2),), lambda: v),
                    "slice-by-1d": (slice(0, 1), lambda: v), "strip-1": (0, lambda: v[None]),
                    "0d-by-slice": ((0, 0), lambda: v[0:1]),
                    "expand-stripped": (slice(0, 2), lambda: v[None]),
                    "0d": ((0, 0), lambda: v[1]), "strip-to-0d": (1, lambda: v[0:1])}[case]
        x[key] = val()
        (x * lib.arange(1.0, 7.0).reshape(3, 2)).sum().backward()
        return _history(x.grad_fn), x.detach().numpy().tolist(), v.grad.numpy().tolist()
    assert run(gg) == run(torch)


@pytest.mark.parametrize("case", ["setitem-same-memory", "fill-own-element",
                                  "fill-slice-own-element", "setitem-own-element",
                                  "masked-fill-own-element", "index-fill-own-element"])
def test_write_of_a_tensor_of_the_same_memory(torch, case):
    """A write whose value is the written memory itself: w6[0] = w5 with w6[0] and w5 the
    same memory laid out alike is a full overlap, which PyTorch allows, and the 0-d value of
    fill_, masked_fill_ and index_fill_ is read as a number before the write (a.fill_(a[1])
    is allowed); graphgrad raised its partial-overlap error (fuzz seed 1564432)."""
    def run(lib):
        a = lib.arange(3.0)
        if case == "setitem-same-memory":
            w5 = lib.tensor([[0.49]]).unsqueeze(-1)
            w6 = w5.unsqueeze(3)
            w6[0] = w5
            a = w6
        elif case == "fill-own-element":
            a.fill_(a[1])
        elif case == "fill-slice-own-element":
            a[1:2].fill_(a[1])
        elif case == "setitem-own-element":
            a[0:1] = a[1]
        elif case == "masked-fill-own-element":
            a.masked_fill_(a > 0, a[1])
        else:
            a.index_fill_(0, lib.tensor([0, 2]), a[1])
        return a.numpy().tolist()
    assert run(gg) == run(torch)


@pytest.mark.parametrize("case", ["whole-0d", "element-of-0d-view", "imag-of-itself"])
def test_setitem_of_a_0d_value_into_a_0d_view_is_copy(torch, case):
    """A 0-d value into a 0-d view is copy_ in PyTorch's setitem (fill_ only when the shapes
    differ): t[...] = v of a 0-d t is CopyBackwards, and c.imag[...] = c, a complex 0-d c
    into its own imaginary part, is refused as a partial overlap; graphgrad filled (fuzz
    seed 1725284)."""
    def run(lib):
        v = lib.tensor(3.0, requires_grad=True)
        try:
            if case == "whole-0d":
                r = lib.tensor(2.0, requires_grad=True) * 1
                r[...] = v
            elif case == "element-of-0d-view":
                r = lib.ones(2, requires_grad=True) * 1
                r[1] = v
            else:
                r = lib.tensor(1.0 + 2.0j)
                r.imag[...] = r
        except RuntimeError as e:
            return type(e).__name__
        r.backward(lib.ones_like(r)) if r.requires_grad else None
        return r.grad_fn.name(), r.tolist(), v.grad.item()
    assert run(gg) == run(torch)
