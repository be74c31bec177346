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
