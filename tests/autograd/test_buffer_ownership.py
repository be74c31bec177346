"""NOTE [buffer ownership]: the engine's in-place accumulation is gated on what
sys.getrefcount says, checked at import on the running interpreter; with the fallback (every
array treated as shared) the gradients are the same."""
import numpy as np

import graphgrad
from graphgrad.autograd.engine import accumulate, loop


def test_the_probe_holds_on_this_interpreter():
    assert accumulate.OWNERSHIP_BY_REFCOUNT
    assert accumulate.refcount is __import__("sys").getrefcount


def _grads():
    x = graphgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = graphgrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * w
    z = (y.sin() + y.cos() + y * y).sum() + (x * 3).sum()  # buffers summed several times
    z.backward()
    g = x.grad.numpy().copy(), w.grad.numpy().copy()
    y2 = (x * w).exp().sum()
    y2.backward()  # accumulates into the existing .grad
    return g + (x.grad.numpy(), w.grad.numpy())


def test_fallback_gives_the_same_gradients(monkeypatch):
    expected = _grads()
    monkeypatch.setattr(accumulate, "refcount", accumulate._always_shared)
    monkeypatch.setattr(loop, "refcount", accumulate._always_shared)
    for a, b in zip(_grads(), expected):
        np.testing.assert_array_equal(a, b)


def test_a_gradient_a_custom_function_returns_twice_is_stolen_once(torch):
    """PyTorch's test_no_grad_copy: the array a custom Function returns for two leaves
    becomes one leaf's .grad (not copied for both).  The engine hands this graph from the
    sequence-order loop to the counting loop before the Function runs; the handed-over
    gradients were still referenced by the caller, so both leaves copied."""
    def run(lib):
        class Twice(lib.autograd.Function):
            ptr = None

            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, grad):
                Twice.ptr = grad.data_ptr()
                return grad, grad

        a = lib.randn(5, 6, requires_grad=True)
        b = lib.randn(5, 6, requires_grad=True)
        Twice.apply(a, b)[1][0].backward()
        return [a.grad.data_ptr() == Twice.ptr, b.grad.data_ptr() == Twice.ptr]

    assert sum(run(graphgrad)) == sum(run(torch)) == 1
