"""nn.DataParallel on a CPU-only machine: PyTorch forwards every call to the wrapped module."""
import numpy as np
import pytest

import graphgrad



def _run(lib):
    lib.manual_seed(0)
    inner = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
    with lib.no_grad():
        for i, p in enumerate(inner.parameters()):
            p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) / 10 - i)
    net = lib.nn.DataParallel(inner, device_ids=[0, 1])
    x = lib.arange(12, dtype=lib.float32).reshape(4, 3) / 7
    out = net(x)
    out.sum().backward()
    return (out.detach().numpy(), inner[0].weight.grad.numpy(), sorted(net.state_dict()),
            net.device_ids, net.module is inner, type(out.grad_fn).__name__)


def test_forward_backward_and_state_dict_as_torch(torch):
    ours, theirs = _run(graphgrad), _run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2:] == theirs[2:]


def test_functional_data_parallel_needs_a_gpu(torch):
    for lib in (graphgrad, torch):
        with pytest.raises(RuntimeError, match="device type could not be determined"):
            lib.nn.parallel.data_parallel(lib.nn.Linear(2, 2), lib.ones(1, 2))
