"""NumPy scalars as operands behave as Python numbers, as in PyTorch (issue 16, s4).

``t * np.float64(2)`` on a tensor that requires grad raised (NumPy converted the Tensor to
an array), ``np.float64(1) - t`` turned float32 into float64 (the scalar was promoted as a
float64 tensor, not as a wrapped number), comparisons with a NumPy scalar raised or
returned a Python bool, and ``torch.add(t, np.float64(2))`` returned NotImplemented.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import run_both

SCALARS = {"float64": np.float64(2.5), "float32": np.float32(0.1), "int64": np.int64(3),
           "int32": np.int32(-2), "bool_": np.bool_(True), "complex128": np.complex128(1j)}

BINARY = {
    "t + s": lambda t, s: t + s, "s + t": lambda t, s: s + t,
    "t - s": lambda t, s: t - s, "s - t": lambda t, s: s - t,
    "t * s": lambda t, s: t * s, "s * t": lambda t, s: s * t,
    "t / s": lambda t, s: t / s, "s / t": lambda t, s: s / t,
    "t ** s": lambda t, s: t ** s, "s ** t": lambda t, s: s ** t,
}
COMPARE = {
    "t < s": lambda t, s: t < s, "s < t": lambda t, s: s < t,
    "t <= s": lambda t, s: t <= s, "s >= t": lambda t, s: s >= t,
    "t > s": lambda t, s: t > s, "t >= s": lambda t, s: t >= s,
    "t == s": lambda t, s: t == s, "s == t": lambda t, s: s == t,
    "t != s": lambda t, s: t != s, "s != t": lambda t, s: s != t,
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("name", BINARY)
def test_numpy_scalar_operand_is_a_number(name, scalar, dtype):
    if scalar == "bool_" and ("**" in name or "-" in name):
        pytest.skip("PyTorch takes np.bool_ as a float (differences.md); graphgrad as a bool")
    if scalar == "complex128" and dtype == "float16":
        pytest.skip("float16 with a complex number: PyTorch's complex32, which graphgrad has not")

    def program(T):
        t = T.tensor([0.5, 1.0, 2.0], dtype=getattr(T, dtype), requires_grad=True)
        r = BINARY[name](t, SCALARS[scalar])
        g, = T.autograd.grad(r.abs().sum(), t)
        return r, g
    run_both(program)


@pytest.mark.parametrize("scalar", ["float64", "float32", "int64"])
@pytest.mark.parametrize("name", COMPARE)
def test_numpy_scalar_in_comparisons(name, scalar):
    def program(T):
        t = T.tensor([0.5, 1.0, 2.5, 3.0], requires_grad=True)
        return COMPARE[name](t, SCALARS[scalar])
    run_both(program)


def test_numpy_scalar_keeps_float32_and_backward_works():
    def program(T):
        t = T.ones(2, requires_grad=True)
        a = np.float64(1) - t
        b = t * np.float64(2)
        (a.sum() + b.sum()).backward()
        return a, b, t.grad
    run_both(program)


def test_numpy_scalar_in_functions():
    def program(T):
        t = T.tensor([1.0, 2.0], requires_grad=True)
        i = T.arange(3)
        return (T.add(t, np.float64(2)), T.mul(t, np.float64(2)), T.sub(t, np.int64(1)),
                T.div(t, np.float32(4)), T.pow(t, np.float64(2)), T.mul(i, np.float64(1.5)),
                T.mul(i, np.int32(2)), T.lt(t, np.float64(1.5)), T.eq(t, np.float32(1)))
    run_both(program)


def test_numpy_scalar_with_integer_and_half_tensors():
    def program(T):
        i = T.arange(3)
        h = T.tensor([1.0, 2.0], dtype=T.float16)
        return (i * np.float64(1.5), np.int32(2) * i, np.float32(2) * h, h - np.float64(0.1),
                (np.int64(3) // T.tensor([2.0, 4.0])).detach(),
                (np.float64(5) % T.tensor([2.0, 3.0])).detach())
    run_both(program)
