"""Test-only modules for the nn.Module tests, built the same way on graphgrad and torch
(until the real layers exist these stand in for them: ``LinearForTests`` is a Linear
written with Parameter and matmul)."""
from __future__ import annotations

import numpy as np


def fixed(lib, *shape, seed=0, dtype="float64"):
    """A deterministic tensor of ``shape`` (same values in both libraries)."""
    rng = np.random.default_rng(seed + 17 * len(shape) + sum(shape))
    return lib.tensor(rng.standard_normal(shape), dtype=getattr(lib, dtype))


def norm_repr(s):
    """A repr with graphgrad's names spelled as torch's (dtype=graphgrad.float64, ...)."""
    return s.replace("graphgrad.", "torch.")


def build_modules(lib):
    """Namespace of small modules defined with ``lib.nn``."""
    nn = lib.nn

    class LinearForTests(nn.Module):
        def __init__(self, n_in, n_out, bias=True, seed=0):
            super().__init__()
            self.in_features = n_in
            self.out_features = n_out
            self.weight = nn.Parameter(fixed(lib, n_out, n_in, seed=seed))
            if bias:
                self.bias = nn.Parameter(fixed(lib, n_out, seed=seed + 1))
            else:
                self.register_parameter("bias", None)

        def forward(self, x):
            y = x @ self.weight.t()
            return y + self.bias if self.bias is not None else y

        def extra_repr(self):
            return (f"in_features={self.in_features}, out_features={self.out_features}, "
                    f"bias={self.bias is not None}")

    class ReLUForTests(nn.Module):
        def __init__(self, inplace=False):
            super().__init__()
            self.inplace = inplace

        def forward(self, x):
            return x.relu_() if self.inplace else x.relu()

        def extra_repr(self):
            return "inplace=True" if self.inplace else ""

    class NormForTests(nn.Module):
        """Has a parameter, a persistent and a non-persistent buffer."""

        def __init__(self, n):
            super().__init__()
            self.scale = nn.Parameter(fixed(lib, n, seed=5))
            self.register_buffer("running_mean", lib.zeros(n, dtype=lib.float64))
            self.register_buffer("scratch", lib.ones(n, dtype=lib.float64), persistent=False)
            self.register_buffer("count", lib.tensor(0))

        def forward(self, x):
            if self.training:
                with lib.no_grad():
                    self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))
                    self.count.add_(1)
            return (x - self.running_mean) * self.scale

    class MLPForTests(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = LinearForTests(3, 4, seed=1)
            self.act = ReLUForTests()
            self.norm = NormForTests(4)
            self.fc2 = LinearForTests(4, 2, seed=2)

        def forward(self, x):
            return self.fc2(self.norm(self.act(self.fc1(x))))

    class NS:
        pass

    ns = NS()
    ns.Linear = LinearForTests
    ns.ReLU = ReLUForTests
    ns.Norm = NormForTests
    ns.MLP = MLPForTests
    return ns
