"""graphgrad.numpy's elementwise functions: values and dtypes equal NumPy's, derivatives
in both modes equal finite differences, gradients equal torch's where torch has the op."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from tests.conftest import torch
from tests.numpy._harness import check_grads, check_values, check_vmap

R = np.random.default_rng(0)
A = R.standard_normal((3, 4))
B = R.standard_normal((3, 4))
ROW = R.standard_normal(4)
POS = R.uniform(0.5, 2.0, (3, 4))
UNIT = R.uniform(-0.9, 0.9, (3, 4))
BIG = R.uniform(1.2, 3.0, (3, 4))

# (name, domain of the argument, torch's name or None)
UNARY = [
    ("sin", A, "sin"), ("cos", A, "cos"), ("tan", UNIT, "tan"), ("arcsin", UNIT, "asin"),
    ("arccos", UNIT, "acos"), ("arctan", A, "atan"), ("sinh", A, "sinh"),
    ("cosh", A, "cosh"), ("tanh", A, "tanh"), ("arcsinh", A, "asinh"),
    ("arccosh", BIG, "acosh"), ("arctanh", UNIT, "atanh"), ("exp", A, "exp"),
    ("exp2", A, "exp2"), ("expm1", A, "expm1"), ("log", POS, "log"), ("log2", POS, "log2"),
    ("log10", POS, "log10"), ("log1p", POS, "log1p"), ("sqrt", POS, "sqrt"),
    ("negative", A, "neg"), ("positive", A, None), ("absolute", A, "abs"), ("abs", A, "abs"),
    ("fabs", A, "abs"), ("square", A, "square"), ("reciprocal", POS, "reciprocal"),
    ("cbrt", POS, None), ("deg2rad", A, "deg2rad"), ("rad2deg", A, "rad2deg"),
    ("radians", A, "deg2rad"), ("degrees", A, "rad2deg"), ("sinc", A, "sinc"),
    ("sign", A, "sign"), ("floor", A, "floor"), ("ceil", A, "ceil"), ("trunc", A, "trunc"),
    ("fix", A, "trunc"), ("rint", A, "round"), ("round", A, "round"), ("around", A, "round"),
    ("conj", A, "conj"), ("conjugate", A, "conj"), ("real", A, "real"), ("imag", A, None),
]
BINARY = [
    ("add", A, B, "add"), ("subtract", A, B, "sub"), ("multiply", A, ROW, "mul"),
    ("divide", A, POS, "div"), ("true_divide", A, POS, "div"), ("power", POS, A, "pow"),
    ("float_power", POS, B, "pow"), ("maximum", A, B, "maximum"),
    ("minimum", A, ROW, "minimum"), ("fmax", A, B, "fmax"), ("fmin", A, B, "fmin"),
    ("arctan2", A, B, "atan2"), ("hypot", A, B, "hypot"), ("logaddexp", A, B, "logaddexp"),
    ("logaddexp2", A, B, "logaddexp2"), ("mod", A, POS, "remainder"),
    ("remainder", A, POS, "remainder"), ("fmod", A, POS, "fmod"), ("copysign", A, B, None),
]


def _torch_unary(name):
    return None if name is None else (lambda t, x: getattr(t, name)(x))


@pytest.mark.parametrize("name,x,tname", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, x, tname):
    f = lambda np_, x: getattr(np_, name)(x)   # noqa: E731
    check_values(f, (x,))
    check_vmap(f, (x,))
    check_vmap(f, (x,))
    if name in ("floor", "ceil", "trunc", "fix", "rint", "round", "around", "sign"):
        tname = None   # (zero derivative; torch agrees, finite differences too)
    check_grads(f, (x,), np.random.default_rng(1), _torch_unary(tname), torch)


@pytest.mark.parametrize("name,x,y,tname", BINARY, ids=[b[0] for b in BINARY])
def test_binary(name, x, y, tname):
    f = lambda np_, x, y: getattr(np_, name)(x, y)   # noqa: E731
    check_values(f, (x, y))
    if name != "copysign":   # (graphgrad's signbit reads the data: vmap refuses)
        check_vmap(f, (x, y))
    tf = None if tname is None else (lambda t, x, y: getattr(t, tname)(x, y))
    check_grads(f, (x, y), np.random.default_rng(2), tf, torch)


@pytest.mark.parametrize("name", ["add", "multiply", "power", "maximum", "arctan2"])
def test_binary_with_python_scalar(name):
    f = lambda np_, x: getattr(np_, name)(x, 1.5) + getattr(np_, name)(2.0, x)   # noqa: E731
    check_values(f, (POS,))
    check_grads(f, (POS,), np.random.default_rng(3))


def test_operators_between_arrays_and_tensors():
    """Data arrays meet parameter Tensors in ported code: ``x - t`` works either side."""
    f = lambda np_, w: np_.sum((A - w) * ROW / (POS + w ** 2) @ np_.ones(4))   # noqa: E731
    check_values(f, (B,))
    check_grads(f, (B,), np.random.default_rng(4))


def test_where_clip():
    f = lambda np_, x, y: np_.where(x > 0, x * y, np_.sin(y)) + np_.clip(x, -0.5, 0.5)
    check_values(f, (A, B))
    check_grads(f, (A, B), np.random.default_rng(5),
                lambda t, x, y: t.where(x > 0, x * y, t.sin(y)) + t.clip(x, -0.5, 0.5), torch)
    g = lambda np_, x, lo: np_.clip(x, lo, 0.6)   # noqa: E731  (a differentiable bound)
    check_values(g, (A, ROW * 0.1))
    check_grads(g, (A, ROW * 0.1), np.random.default_rng(6))


def test_type_promotion_follows_numpy():
    i = np.arange(6).reshape(2, 3)
    for f in (lambda np_, x: np_.sin(x), lambda np_, x: np_.sqrt(x + 1),
              lambda np_, x: np_.abs(-x), lambda np_, x: np_.multiply(x, 2),
              lambda np_, x: np_.divide(x, 2), lambda np_, x: np_.add(x, np.float32(1)),
              lambda np_, x: x > 2, lambda np_, x: np_.power(x, 2)):
        check_values(f, (i,))
    f32 = np.ones(3, np.float32)
    check_values(lambda np_, x: np_.exp(x) * 2.0, (f32,))          # Python float: weak
    check_values(lambda np_, x: np_.add(x, np.float64(1)), (f32,))  # NumPy scalar: strong
    check_values(lambda np_, x: np_.add(x, np.ones(3)), (f32,))


def test_predicates_are_boolean_tensors():
    x = np.array([1.0, np.nan, np.inf, -2.0])
    for name in ("isnan", "isinf", "isfinite", "signbit"):
        check_values(lambda np_, x: getattr(np_, name)(x), (x,))


def test_errors_have_numpy_types():
    t = graphgrad.tensor(A)
    with pytest.raises(ValueError, match="could not be broadcast"):
        gnp.add(t, np.ones(3))
    with pytest.raises(ValueError, match="could not be broadcast"):
        np.add(A, np.ones(3))
    with pytest.raises(ValueError):
        gnp.power(graphgrad.tensor([2, 3]), -1)
    with pytest.raises(ValueError):
        np.power(np.array([2, 3]), -1)
    with pytest.raises(NotImplementedError, match="out"):
        gnp.sin(t, out=np.empty((3, 4)))
    with pytest.raises(ValueError, match="both or neither"):
        gnp.where(t > 0, t)
