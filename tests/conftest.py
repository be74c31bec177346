"""Shared helpers: the PyTorch oracle and ``run_both``, the differential-test harness.

``run_both(program)`` runs ``program(lib)`` once with ``lib = graphgrad`` and
once with ``lib = torch`` and compares what the two runs return, recursively:

- tensors: dtype (the name after the dot), shape, ``requires_grad``,
  ``is_leaf``, ``type(grad_fn).__name__`` and values (``assert_allclose``
  with a tolerance chosen by dtype);
- backward nodes: their class names; dtypes: their names;
- tuples/lists/dicts: element by element; numbers: approximately; the rest: ``==``;
- an exception raised by the program: both libraries must raise the same
  type (the messages are not compared, and are free to differ).

It returns the two results ``(ours, theirs)`` for any further checks.

PyTorch is the oracle, not a dependency. Without it, the differential tests are
skipped and graphgrad's own invariant tests still run: a test is marked ``torch``
at collection when its code (nested functions and lambdas included, and the
helpers of the suite it calls) names or imports ``torch``, something of torch's or
``run_both``/``assert_same``, when a parameter is one of torch's objects, or when
it takes the ``torch`` fixture or the ``lib`` fixture's torch case. Without
PyTorch, ``torch`` below is a stand-in that skips whatever test (or, at import,
module) touches it, so an unmarked use still skips rather than fails.
``pytest -m "not torch"`` runs the invariant tests alone.
"""
from __future__ import annotations

import inspect
import math
import types

import numpy as np
import pytest

import graphgrad

NO_TORCH = "PyTorch (the test oracle) is not installed: differential test skipped"


class _MissingTorch:
    """Stands in for ``torch`` (and, through attribute reads, for any of its names) when
    PyTorch is not installed: names can be bound (``TF = torch.nn.functional``) and passed
    as parameters, but calling, iterating, indexing or testing one skips the test that
    does it (or the module, at import time)."""

    def __init__(self, name="torch"):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):  # protocols probed by copy, inspect, pytest ...
            raise AttributeError(name)
        return _MissingTorch(f"{self._name}.{name}")

    def _skip(self, *args, **kwargs):
        raise pytest.skip.Exception(f"{NO_TORCH} ({self._name})", allow_module_level=True)

    __call__ = __iter__ = __getitem__ = __bool__ = __len__ = __enter__ = _skip

    def __repr__(self):
        return f"<{self._name}: PyTorch not installed>"


try:
    import torch
except ImportError:
    torch = _MissingTorch()
HAVE_TORCH = not isinstance(torch, _MissingTorch)

TOL = {  # dtype name -> (rtol, atol)
    "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2),
    "float32": (1e-5, 1e-6), "complex64": (1e-5, 1e-6),
    "float64": (1e-10, 1e-12), "complex128": (1e-10, 1e-12),
}


class Raised:
    """What a program "returned" when it raised: only the exception type is compared."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f"Raised({type(self.exc).__name__}: {self.exc})"


def dtype_name(d):
    return str(d).rsplit(".", 1)[-1]


def is_tensor(x):
    return isinstance(x, (graphgrad.Tensor, torch.Tensor))


def to_numpy(t):
    """Values of a graphgrad or torch tensor as a NumPy array (bfloat16 as float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach().resolve_conj().resolve_neg()  # lazy conj/neg views hold no values
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.numpy()
    a = t.detach().numpy()
    return a.astype(np.float32) if dtype_name(t.dtype) == "bfloat16" else a


def node_name(fn):
    return None if fn is None else type(fn).__name__


def assert_same(ours, theirs, path="result"):
    """Compare a graphgrad result with a torch result (see the module docstring)."""
    if isinstance(ours, Raised) or isinstance(theirs, Raised):
        assert isinstance(ours, Raised) and isinstance(theirs, Raised), \
            f"{path}: graphgrad gave {ours!r}, torch gave {theirs!r}"
        # builtin types must be identical; each library's own classes (GradcheckError,
        # LinAlgError) must have the same name and builtin base
        same = type(ours.exc) is type(theirs.exc) or (
            type(ours.exc).__name__ == type(theirs.exc).__name__
            and type(ours.exc).__mro__[1] is type(theirs.exc).__mro__[1])
        assert same, f"{path}: graphgrad raised {ours!r}, torch raised {theirs!r}"
        return
    if is_tensor(ours) or is_tensor(theirs):
        assert isinstance(ours, graphgrad.Tensor), f"{path}: graphgrad gave {type(ours)}"
        assert isinstance(theirs, torch.Tensor), f"{path}: torch gave {type(theirs)}"
        d = dtype_name(theirs.dtype)
        assert dtype_name(ours.dtype) == d, f"{path}: dtype {ours.dtype} vs {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), \
            f"{path}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad differs"
        assert ours.is_leaf == theirs.is_leaf, f"{path}: is_leaf differs"
        assert node_name(ours.grad_fn) == node_name(theirs.grad_fn), \
            f"{path}: grad_fn {node_name(ours.grad_fn)} vs {node_name(theirs.grad_fn)}"
        rtol, atol = TOL.get(d, (0, 0))
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=path)
        return
    if isinstance(ours, (graphgrad.dtype, torch.dtype)):
        assert dtype_name(ours) == dtype_name(theirs), f"{path}: {ours} vs {theirs}"
        return
    if hasattr(ours, "next_functions") or hasattr(theirs, "next_functions"):
        assert node_name(ours) == node_name(theirs), f"{path}: node {ours} vs {theirs}"
        return
    if isinstance(ours, dict):
        assert isinstance(theirs, dict) and ours.keys() == theirs.keys(), \
            f"{path}: keys {list(ours)} vs {list(theirs)}"
        for k in ours:
            assert_same(ours[k], theirs[k], f"{path}[{k!r}]")
        return
    if isinstance(ours, (tuple, list)):
        assert isinstance(theirs, (tuple, list)), f"{path}: {ours!r} vs {theirs!r}"
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} vs {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{path}[{i}]")
        return
    if isinstance(ours, float) or isinstance(theirs, float):
        assert type(ours) is type(theirs), f"{path}: {ours!r} vs {theirs!r}"
        assert ours == theirs or math.isclose(ours, theirs, rel_tol=1e-6, abs_tol=1e-9) or (
            math.isnan(ours) and math.isnan(theirs)), f"{path}: {ours!r} vs {theirs!r}"
        return
    assert type(ours) is type(theirs) and ours == theirs, f"{path}: {ours!r} vs {theirs!r}"


def _run(program, lib):
    try:
        return program(lib)
    except Exception as exc:  # noqa: BLE001 - compared by type
        return Raised(exc)


def run_both(program):
    """Run ``program(lib)`` on graphgrad and on torch; assert the results agree."""
    if not HAVE_TORCH:
        pytest.skip(NO_TORCH)
    ours = _run(program, graphgrad)
    theirs = _run(program, torch)
    assert_same(ours, theirs)
    return ours, theirs


@pytest.fixture(params=["graphgrad", "torch"])
def lib(request):
    """Parametrise a test over both libraries (for checks on each one's own behaviour)."""
    if request.param == "graphgrad":
        return graphgrad
    if not HAVE_TORCH:
        pytest.skip(NO_TORCH)
    return torch


@pytest.fixture(name="torch")
def torch_fixture():
    """PyTorch, for a test that takes it as an argument; skips the test without it."""
    if not HAVE_TORCH:
        pytest.skip(NO_TORCH)
    return torch


# --- Marking the differential tests ------------------------------------------------

_HARNESS = (run_both, assert_same)


def _is_torchs(obj):
    """Whether ``obj`` is torch (or its stand-in), one of its modules or something defined in it."""
    if obj is torch or isinstance(obj, _MissingTorch):
        return True
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
    else:
        name = getattr(obj, "__module__", None)
        if not isinstance(name, str):
            name = getattr(type(obj), "__module__", "")
    return name == "torch" or name.startswith("torch.")


def _code_uses_oracle(code, namespace, seen):
    """Whether ``code`` (run in ``namespace``), a code object nested in it or a function of
    the test suite it calls names torch, something of torch's or the harness."""
    for name in code.co_names:
        if name == "torch" or name.startswith("torch."):  # a global, or a local import
            return True
        obj = namespace.get(name)
        if obj is None:
            continue
        if any(obj is h for h in _HARNESS) or _is_torchs(obj):
            return True
        if (isinstance(obj, types.FunctionType) and obj.__module__.startswith("tests.")
                and obj.__module__ != __name__  # (this file's own helpers: by identity)
                and obj.__code__ not in seen):  # a helper of the test suite
            seen.add(obj.__code__)
            if _code_uses_oracle(obj.__code__, obj.__globals__, seen):
                return True
    for c in code.co_consts:
        if isinstance(c, types.CodeType) and c not in seen:
            seen.add(c)
            if _code_uses_oracle(c, namespace, seen):
                return True
    return False


_FUNCTION_USES_ORACLE = {}  # test function's code -> bool (shared by its parametrisations)


def _needs_torch(item):
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "torch" in item.fixturenames or ("lib" in item.fixturenames
                                        and params.get("lib") == "torch"):
        return True
    if any(_is_torchs(v) for v in params.values()):
        return True
    func = getattr(item, "function", None)
    func = getattr(getattr(func, "hypothesis", None), "inner_test", func)  # @given's test
    func = inspect.unwrap(func) if func is not None else None
    code = getattr(func, "__code__", None)
    if code is None:
        return False
    if code not in _FUNCTION_USES_ORACLE:
        _FUNCTION_USES_ORACLE[code] = _code_uses_oracle(code, func.__globals__, {code})
    return _FUNCTION_USES_ORACLE[code]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "torch: a differential test, run against PyTorch (set automatically at "
        "collection; skipped when PyTorch is not installed)")


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason=NO_TORCH)
    for item in items:
        if item.get_closest_marker("torch") or _needs_torch(item):
            item.add_marker("torch")
            if not HAVE_TORCH:
                item.add_marker(skip)
