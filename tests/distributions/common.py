"""Runs a program on graphgrad.distributions and on torch.distributions and compares what it
returns: tensors by value (NaN where NaN, by dtype tolerance), dtype name and shape; other
values by ==.  Gradients are compared as the tensors the program returns."""
from __future__ import annotations

import numpy as np

import graphgrad

TOL = {"float64": (1e-9, 1e-11), "float32": (1e-5, 1e-6)}


def _cmp(ours, theirs, path, tol):
    if hasattr(theirs, "detach") and hasattr(theirs, "dtype"):
        assert isinstance(ours, graphgrad.Tensor), f"{path}: {type(ours)} is not a Tensor"
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], \
            f"{path}: dtype {ours.dtype} vs {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), \
            f"{path}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        a = np.asarray(ours.detach().numpy(), dtype=np.float64)
        b = theirs.detach().double().numpy()
        rtol, atol = tol or TOL.get(str(theirs.dtype).split(".")[-1], (1e-9, 1e-11))
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), f"{path}: {len(ours)} vs {len(theirs)} items"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _cmp(o, t, f"{path}[{i}]", tol)
    elif isinstance(theirs, dict):
        assert set(ours) == set(theirs), path
        for k in theirs:
            _cmp(ours[k], theirs[k], f"{path}[{k!r}]", tol)
    elif isinstance(theirs, float):
        assert np.isclose(ours, theirs, equal_nan=True), f"{path}: {ours} vs {theirs}"
    else:
        assert str(ours).replace("graphgrad", "torch") == str(theirs), \
            f"{path}: {ours!r} vs {theirs!r}"


def compare(program, tol=None):
    """``program(lib)`` on graphgrad and torch; asserts the results agree; returns ours."""
    import torch
    ours = program(graphgrad)
    theirs = program(torch)
    _cmp(ours, theirs, "result", tol)
    return ours


def raised(program, lib):
    """The exception ``program(lib)`` raises (None if it returns)."""
    try:
        program(lib)
    except Exception as e:  # noqa: BLE001
        return e
    return None
