"""nn.Threshold and F.threshold_ (the op itself is in the OpInfo table)."""
import numpy as np

import graphgrad


def _run(lib):
    x = lib.tensor([-1.0, 0.5, 2.0, float("nan")], requires_grad=True)
    m = lib.nn.Threshold(0.5, 7.0)
    y = m(x)
    z = x * 1
    w = lib.nn.functional.threshold_(z, 0.5, -2.0)
    (y.sum() + w.sum()).backward()
    return (y.detach().numpy(), w.detach().numpy(), x.grad.numpy(), repr(m),
            repr(lib.nn.Threshold(0.1, 20, inplace=True)), type(y.grad_fn).__name__,
            type(w.grad_fn).__name__, w is z, z._version)


def test_module_and_inplace_as_torch(torch):
    ours, theirs = _run(graphgrad), _run(torch)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_array_equal(a, b)
    assert ours[3:] == theirs[3:]
