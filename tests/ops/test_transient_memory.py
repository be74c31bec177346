"""Temporaries of kernels on a training step's backward path (tracemalloc counts NumPy's
buffers): GELU's backward and an SGD-style ``p.sub_(grad, alpha=lr)``. A regression here is
what pushed the checkpointed MLP's peak up (benchmarks/checkpoint_mlp.py)."""
from __future__ import annotations

import tracemalloc

import numpy as np

import graphgrad as gg
import graphgrad.nn.functional as F

N = 1 << 18  # 1 MiB of float32


def peak_above_start(fn):
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = fn()
        return (tracemalloc.get_traced_memory()[1] - start) / (4 * N), out
    finally:
        tracemalloc.stop()


def test_gelu_backward_needs_three_buffers_of_the_input():
    x = gg.randn(N, requires_grad=True)
    y = F.gelu(x)
    g = gg.randn(N)
    # about three buffers of the input's size at once (NumPy frees each temporary of the
    # formula as soon as the next operation has read it; erfc works on small blocks)
    peak, (dx,) = peak_above_start(lambda: gg.autograd.grad(y, x, g))
    assert peak < 3.2, peak
    xd = x.detach().double().numpy()
    from math import erf, exp, pi, sqrt
    i = np.arange(0, N, 997)
    ref = [0.5 * (1 + erf(v / sqrt(2))) + v * exp(-v * v / 2) / sqrt(2 * pi) for v in xd[i]]
    # (per unit gradient, within erf's ~1.5e-7 as PyTorch's float32 kernel: NOTE [float32 gelu])
    np.testing.assert_allclose(dx.numpy()[i] / g.numpy()[i], np.array(ref), rtol=2e-6,
                               atol=2.5e-7)


def test_sub_and_add_with_alpha_make_one_temporary():
    p, g = gg.randn(N), gg.randn(N)
    expect = p.numpy() - np.float32(1e-3) * g.numpy()
    peak, _ = peak_above_start(lambda: p.sub_(g, alpha=1e-3))
    assert peak < 1.2, peak
    np.testing.assert_array_equal(p.numpy(), expect)
    peak, r = peak_above_start(lambda: gg.add(p, g, alpha=2))
    assert peak < 1.2, peak
    np.testing.assert_array_equal(r.numpy(), p.numpy() + 2 * g.numpy())
