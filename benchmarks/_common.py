"""Helpers shared by the workload modules.

Workload module interface (every ``wN_*.py`` defines these):

``NAME``        short id, e.g. ``"W1"``.
``TITLE``       one-line description for the table.
``GRAD_NAMES``  names of the gradients returned by ``run_graph``/``run_numpy``
                (used in correctness-check messages).
``TOL``         ``dict(rtol=..., atol=...)``; ``atol`` is *relative to the
                largest absolute value of the reference gradient*.
``TARGETS``     tuple of ``(baseline, max_ratio)`` with baseline ``"torch"`` or
                ``"numpy"``: the goal for graphgrad/baseline (median times).
``REPS``        ``{"quick": n, "full": n}`` maximum alternating repetitions.
``BUDGET``      ``{"quick": s, "full": s}`` seconds after which the alternating
                loop stops early (once ``MIN_REPS`` repetitions are done).

``make_data(seed)``         -> dict of NumPy arrays (inputs, parameters).
``build(module, data)``     -> ``state`` for ``run_graph`` (untimed: turns
                               the arrays into ``module`` tensors).
``run_graph(module, state)``-> tuple of gradients as ``module`` tensors.  TIMED.
                               Builds a fresh graph every call.
``run_numpy(data)``         -> tuple of gradients as NumPy arrays.  TIMED.
                               Hand-written forward + backward.
``check_data(seed)`` (optional) -> extra data dict on which the correctness
                               check is repeated (e.g. a shorter W1 chain whose
                               gradient has not underflowed to zero).
``extras(ctx)`` (optional)  -> list of strings: extra measurements (peak
                               memory, reference timings) shown under the table.
"""

import importlib

import numpy as np

MIN_REPS = {"quick": 3, "full": 5}


def submodule(module, dotted):
    """``submodule(torch, "nn.functional")`` -> ``torch.nn.functional``.

    Falls back to importing ``<module>.<dotted>`` in case the package does not
    import its sub-packages eagerly.
    """
    obj = module
    try:
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj
    except AttributeError:
        return importlib.import_module(module.__name__ + "." + dotted)


def leaf(module, array):
    """A fresh leaf tensor with ``requires_grad=True`` holding a copy of array."""
    return module.tensor(array, requires_grad=True)


def const(module, array):
    """A tensor that does not require grad (inputs, targets, closed-over data)."""
    return module.tensor(array)


def to_numpy(t):
    """Convert a tensor of any slot (or an ndarray) to an ndarray."""
    if isinstance(t, np.ndarray):
        return t
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "numpy"):
        return np.asarray(t.numpy())
    return np.asarray(t)


class CheckFailed(AssertionError):
    pass


def check(workload, module, state, data):
    """Run ``run_graph`` once and compare it with ``run_numpy``.

    If the workload has ``check_data``, the comparison is repeated on that
    data too (with a freshly built state).  Raises ``CheckFailed`` with a
    per-gradient message on mismatch; returns a short string with the worst
    relative error otherwise.
    """
    msg = _check_one(workload, module, state, data, "")
    if hasattr(workload, "check_data"):
        extra = workload.check_data(0)
        msg += "; " + _check_one(
            workload, module, workload.build(module, extra), extra, "check_data: "
        )
    return msg


def _check_one(workload, module, state, data, prefix):
    got = workload.run_graph(module, state)
    ref = workload.run_numpy(data)
    names = workload.GRAD_NAMES
    if len(got) != len(ref) or len(ref) != len(names):
        raise CheckFailed(
            f"{workload.NAME}: {prefix}expected {len(names)} gradients, got {len(got)}"
        )
    rtol = workload.TOL["rtol"]
    worst = 0.0
    problems = []
    for name, g, r in zip(names, got, ref):
        if g is None:
            problems.append(f"{name}: gradient is None")
            continue
        g = to_numpy(g)
        if g.shape != r.shape:
            problems.append(f"{name}: shape {g.shape} != expected {r.shape}")
            continue
        scale = float(np.max(np.abs(r))) or 1.0
        atol = workload.TOL["atol"] * scale
        err = float(np.max(np.abs(g.astype(np.float64) - r)))
        worst = max(worst, err / scale)
        if not np.all(np.isfinite(g)) or not np.allclose(g, r, rtol=rtol, atol=atol):
            problems.append(
                f"{name}: max abs err {err:.3g} (max |ref| {scale:.3g}, "
                f"rtol {rtol:g}, atol {atol:.3g})"
            )
    if problems:
        raise CheckFailed(f"{workload.NAME}: {prefix}" + "; ".join(problems))
    return f"{prefix}max err / max|ref| = {worst:.1e}"
