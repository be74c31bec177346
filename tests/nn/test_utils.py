"""nn.utils against PyTorch: clip_grad_norm_, clip_grad_value_, get_total_norm,
clip_grads_with_norm_, parameters_to_vector, vector_to_parameters."""
from __future__ import annotations

import math

import pytest

import graphgrad
from tests.conftest import run_both, torch
from tests.nn.module_test_helpers import build_modules, fixed


def model_with_grads(lib, scale=1.0, dtype="float64"):
    m = build_modules(lib).MLP()
    if dtype != "float64":
        m.to(getattr(lib, dtype))
    x = fixed(lib, 6, 3, dtype=dtype)
    (m(x).pow(2).sum() * scale).backward()
    return m


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, -math.inf, 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [0.1, 1e6])
def test_clip_grad_norm(norm_type, max_norm):
    def program(lib):
        m = model_with_grads(lib)
        nt = float(norm_type) if norm_type == "inf" else norm_type
        total = lib.nn.utils.clip_grad_norm_(m.parameters(), max_norm, norm_type=nt)
        return total, [p.grad for p in m.parameters()]
    run_both(program)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_clip_grad_norm_lower_precision(dtype):
    def program(lib):
        m = model_with_grads(lib, dtype=dtype)
        total = lib.nn.utils.clip_grad_norm_(list(m.parameters()), 0.5)
        return total, [p.grad for p in m.parameters()]
    run_both(program)


def test_clip_grad_norm_single_tensor_some_without_grad_and_empty():
    def program(lib):
        m = model_with_grads(lib)
        t = lib.nn.utils.clip_grad_norm_(m.fc1.weight, 0.5)
        m.fc2.bias.grad = None
        t2 = lib.nn.utils.clip_grad_norm_(m.parameters(), 0.25, norm_type=1)
        none = lib.nn.utils.clip_grad_norm_([], 1.0)
        nograd = lib.nn.utils.clip_grad_norm_([lib.nn.Parameter(lib.ones(2))], 1.0)
        return t, t2, none, nograd, [p.grad for p in m.parameters()]
    run_both(program)


def test_clip_grad_norm_empty_generator_warns():
    for lib in (graphgrad, torch):
        with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_nonfinite():
    def program(lib):
        m = model_with_grads(lib)
        m.fc1.weight.grad[0, 0] = math.inf
        try:
            lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
        except RuntimeError as e:
            msg = str(e)
        unchanged = m.fc2.weight.grad.clone()
        total = lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        return msg, unchanged, total, [p.grad for p in m.parameters()]
    run_both(program)


def test_clip_grad_norm_foreach_true_on_cpu():
    def program(lib):
        m = model_with_grads(lib)
        lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0, foreach=True)
    run_both(program)


def test_clip_grad_norm_deprecated_alias():
    for lib in (graphgrad, torch):
        m = model_with_grads(lib)
        with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
            lib.nn.utils.clip_grad_norm(m.parameters(), 1.0)


def test_get_total_norm_and_clip_with_norm():
    def program(lib):
        m = model_with_grads(lib)
        grads = [p.grad for p in m.parameters()]
        total = lib.nn.utils.get_total_norm(grads, norm_type=3.0)
        lib.nn.utils.clip_grads_with_norm_(m.parameters(), 0.5, total)
        return total, [p.grad for p in m.parameters()], lib.nn.utils.get_total_norm([])
    run_both(program)


def test_clip_grad_norm_not_recorded_by_autograd():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        x = fixed(lib, 4, 3)
        (g,) = lib.autograd.grad(m(x).pow(2).sum(), [m.weight], create_graph=True)
        m.weight.grad = g * 1
        total = lib.nn.utils.clip_grad_norm_([m.weight], 0.1)
        return total, m.weight.grad.detach()
    run_both(program)


@pytest.mark.parametrize("clip", [0.05, 10, 0])
def test_clip_grad_value(clip):
    def program(lib):
        m = model_with_grads(lib)
        m.fc2.bias.grad = None
        r = lib.nn.utils.clip_grad_value_(m.parameters(), clip)
        r2 = lib.nn.utils.clip_grad_value_(m.fc1.weight, clip / 2)
        return r, r2, [p.grad for p in m.parameters()]
    run_both(program)


def test_clip_grad_value_foreach_true_on_cpu():
    def program(lib):
        m = model_with_grads(lib)
        lib.nn.utils.clip_grad_value_(m.parameters(), 1.0, foreach=True)
    run_both(program)


def test_parameters_to_vector_and_back():
    def program(lib):
        m = build_modules(lib).MLP()
        vec = lib.nn.utils.parameters_to_vector(m.parameters())
        new = vec.detach() * 2 + 1
        lib.nn.utils.vector_to_parameters(new, m.parameters())
        params = [p for p in m.parameters()]
        with lib.no_grad():
            new[0] = 100.0     # parameters are views of the vector, as in PyTorch
        return (vec, vec.grad_fn, params, [type(p).__name__ for p in params],
                [p.requires_grad for p in params], m.fc1.weight[0, 0])
    run_both(program)


def test_parameters_to_vector_is_differentiable():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        vec = lib.nn.utils.parameters_to_vector(m.parameters())
        (vec * lib.arange(vec.numel(), dtype=lib.float64)).sum().backward()
        return m.weight.grad, m.bias.grad
    run_both(program)


def test_vector_to_parameters_rejects_non_tensor():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        lib.nn.utils.vector_to_parameters([1.0] * 8, m.parameters())
    ours, theirs = run_both(program)
    assert str(ours.exc) == str(theirs.exc) == "expected torch.Tensor, but got: list"


def test_vector_to_parameters_too_short():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        lib.nn.utils.vector_to_parameters(lib.zeros(5, dtype=lib.float64), m.parameters())
    run_both(program)
