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
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphgrad

torch = pytest.importorskip("torch")

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
    ours = _run(program, graphgrad)
    theirs = _run(program, torch)
    assert_same(ours, theirs)
    return ours, theirs


@pytest.fixture(params=["graphgrad", "torch"])
def lib(request):
    """Parametrise a test over both libraries (for checks on each one's own behaviour)."""
    return graphgrad if request.param == "graphgrad" else torch


@pytest.fixture(autouse=True)
def _no_hooks_seen_yet():
    """Start every test as a fresh process would: no hook registered yet, so plain
    backwards run the engine's sequence-order loop until the test itself registers one
    (the flag is process-wide and never reset by graphgrad; engine NOTE [Sequence order])."""
    from graphgrad._core.state import HOT
    HOT.hooks = False
    yield
