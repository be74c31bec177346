"""Run a fuzz program on graphgrad and on PyTorch and list where they differ.

Phases, each compared with PyTorch:
- forward: the statements; every float/complex value at the end (views see later
  in-place changes), and whether each output requires grad;
- grad: ``autograd.grad`` of a random linear functional of the outputs
  (``sum(real((out * W).sum()))``) w.r.t. the leaves that require grad, with
  create_graph=True;
- gradgrad: ``autograd.grad`` of a random linear functional of those gradients;
- jvp: the program again under forward AD, leaves made dual with random tangents;
  the outputs' tangents.

Values match within a tolerance per dtype, NaNs where PyTorch has NaN, infinities of
the same sign. Exceptions: where PyTorch raises, graphgrad must raise the same builtin
type ("error-type"); where graphgrad raises and PyTorch does not: "false-error".
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import torch

import graphgrad
from tests.fuzz.program import Program, namespace

TOL = {"float32": (1e-3, 1e-4), "float64": (1e-7, 1e-9), "complex128": (1e-7, 1e-9),
       "complex64": (1e-3, 1e-4)}


@dataclass
class Mismatch:
    kind: str       # value | nan-pattern | meta | grad | gradgrad | jvp | error-type | false-error
    phase: str      # forward | grad | gradgrad | jvp
    detail: str
    ours: object = None     # the two arrays compared, or the two exceptions
    theirs: object = None

    def __str__(self):
        return f"[{self.kind}/{self.phase}] {self.detail}"


def _np(t):
    if t is None:
        return None
    if getattr(t, "_is_zerotensor", None) is not None and t._is_zerotensor():
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).split(".")[-1])
    if isinstance(t, torch.Tensor):
        t = t.detach().resolve_conj().resolve_neg()
        return t.numpy().copy()
    return np.array(t.detach().numpy())


def _value(t):
    """The values of ``t``, or None where reading them raises (PyTorch: a view of a
    multi-output op whose base was modified in place cannot even be detached)."""
    try:
        return _np(t)
    except Exception:
        return None


def _dtype(t):
    return str(t.dtype).split(".")[-1]


def compare(ours, theirs, where, kind, ref=None):
    """Mismatches between two arrays (``None`` = no tensor). ``ref``: PyTorch's result of
    the same program in float64, for a float32 one: where PyTorch's float32 result is
    itself far from it (an ill-conditioned program: x/x, cancellations), graphgrad's
    may be as far from PyTorch's."""
    if ours is None or theirs is None:
        if (ours is None) != (theirs is None):
            return [Mismatch("meta", kind, f"{where}: graphgrad {'None' if ours is None else 'a tensor'}, "
                                           f"torch {'None' if theirs is None else 'a tensor'}")]
        return []
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return [Mismatch("meta", kind, f"{where}: graphgrad {ours.dtype}{list(ours.shape)}, "
                                       f"torch {theirs.dtype}{list(theirs.shape)}")]
    if ours.dtype.kind not in "fc":
        if not np.array_equal(ours, theirs):
            return [Mismatch("value" if kind == "forward" else kind, kind,
                             f"{where}: {ours} vs torch {theirs}")]
        return []
    rtol, atol = TOL.get(str(ours.dtype), (1e-7, 1e-9))
    if ours.dtype.kind == "c":
        bad_o, bad_t = ~np.isfinite(ours), ~np.isfinite(theirs)
        same_nan = np.array_equal(bad_o, bad_t)
    else:
        bad_o, bad_t = ~np.isfinite(ours), ~np.isfinite(theirs)
        same_nan = (np.array_equal(np.isnan(ours), np.isnan(theirs))
                    and np.array_equal(np.isposinf(ours), np.isposinf(theirs))
                    and np.array_equal(np.isneginf(ours), np.isneginf(theirs)))
    if not same_nan:
        return [Mismatch("nan-pattern", kind, f"{where}: graphgrad {ours.tolist()} vs torch "
                                              f"{theirs.tolist()}", ours, theirs)]
    ok = ~(bad_o | bad_t)
    o, t = ours[ok], theirs[ok]
    if o.size == 0:
        return []
    scale = max(1.0, float(np.abs(t).max()))
    allowed = atol * scale + rtol * np.abs(t)
    if ref is not None and getattr(ref, "shape", None) == theirs.shape:
        with np.errstate(all="ignore"):
            own = np.abs(theirs.astype(ref.dtype) - ref)[ok]
        allowed = allowed + 4 * np.where(np.isfinite(own), own, np.inf)
    if not np.all(np.abs(o - t) <= allowed):
        k = "value" if kind == "forward" else kind
        return [Mismatch(k, kind, f"{where}: graphgrad {ours.tolist()} vs torch "
                                  f"{theirs.tolist()}", ours, theirs)]
    return []


def _weights(seed, phase, i, shape, dtype):
    rng = np.random.default_rng([seed, phase, i])
    w = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        w = w + 1j * rng.standard_normal(shape)
    return w.astype(dtype)


def _functional(lib, tensors, seed, phase):
    total = None
    for i, t in enumerate(tensors):
        if t is None or not t.requires_grad:
            continue
        w = lib.tensor(_weights(seed, phase, i, tuple(t.shape), _dtype(t)))
        term = (t * w).sum()
        if term.is_complex():
            term = term.real
        total = term if total is None else total + term
    return total


class _Raised(Exception):
    def __init__(self, phase, exc):
        self.phase, self.exc = phase, exc


def _leaves(prog, lib, dual=None):
    env = namespace(lib)
    out = []
    for i, lf in enumerate(prog.leaves):
        t = lib.tensor(lf.data.copy(), dtype=getattr(lib, lf.dtype))
        if dual is not None:
            if lf.requires_grad:
                tan = lib.tensor(_weights(prog.seed, 7, i, lf.data.shape, lf.dtype))
                t = dual.make_dual(t, tan)
        elif lf.requires_grad:
            t.requires_grad_(True)
        env[lf.name] = t
        out.append(t)
    return env, out


def execute(prog: Program, lib):
    """Forward, grad and gradgrad of ``prog`` on ``lib``: a dict of results, and the
    phase and exception where it raised."""
    res = {"raised": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            env, leaves = _leaves(prog, lib)
            try:
                for ln in prog.lines:
                    exec(ln, env)
            except Exception as e:
                raise _Raised("forward", e) from e
            outs = [env[n] for n in prog.outputs]
            res["values"] = {n: _value(v) for n, v in env.items()
                             if isinstance(v, lib.Tensor) and not n.startswith("x")}
            res["rg"] = [bool(o.requires_grad) for o in outs]
            rg_leaves = [t for t, lf in zip(leaves, prog.leaves) if lf.requires_grad]
            try:
                L = _functional(lib, outs, prog.seed, 1)
                if L is None or not rg_leaves:
                    return res
                g = lib.autograd.grad(L, rg_leaves, create_graph=True, allow_unused=True)
            except Exception as e:
                raise _Raised("grad", e) from e
            res["grad"] = [_np(x) for x in g]
            res["grad_rg"] = [x is not None and x.requires_grad for x in g]
            try:
                L2 = _functional(lib, g, prog.seed, 2)
                if L2 is None:
                    res["gradgrad"] = [None] * len(g)
                    return res
                gg = lib.autograd.grad(L2, rg_leaves, allow_unused=True)
            except Exception as e:
                raise _Raised("gradgrad", e) from e
            res["gradgrad"] = [_np(x) for x in gg]
        except _Raised as r:
            res["raised"] = (r.phase, r.exc)
    return res


def execute_jvp(prog: Program, lib):
    fwd = lib.autograd.forward_ad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with fwd.dual_level():
                env, _ = _leaves(prog, lib, dual=fwd)
                for ln in prog.lines:
                    exec(ln, env)
                return {"tangents": [_np(fwd.unpack_dual(env[n]).tangent) for n in prog.outputs],
                        "raised": None}
        except Exception as e:
            return {"raised": ("jvp", e)}


def _builtin_base(exc):
    for c in type(exc).__mro__:
        if c.__module__ == "builtins":
            return c
    return Exception


def _exc_str(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:150] if str(e) else ''}"


def _errors(ours, theirs):
    """(mismatches, stop) for the exceptions of one run."""
    if theirs["raised"] is not None:
        tphase, texc = theirs["raised"]
        if ours["raised"] is None:
            return [Mismatch("error-type", tphase, f"torch raised {_exc_str(texc)}; "
                                                   f"graphgrad did not", None, texc)], True
        ophase, oexc = ours["raised"]
        if not isinstance(oexc, _builtin_base(texc)):
            return [Mismatch("error-type", tphase, f"torch raised {_exc_str(texc)}; graphgrad "
                                                   f"raised {_exc_str(oexc)} in {ophase}", oexc,
                             texc)], True
        return [], True
    if ours["raised"] is not None:
        ophase, oexc = ours["raised"]
        return [Mismatch("false-error", ophase, f"graphgrad raised {_exc_str(oexc)}", oexc)], True
    return [], False


def _zeros_for_none(a, b):
    if a is None and b is not None:
        a = np.zeros_like(b)
    if b is None and a is not None:
        b = np.zeros_like(a)
    return a, b


def _in_float64(prog):
    """``prog`` with its float32 leaves in float64 (None if it has none)."""
    if not any(lf.dtype == "float32" for lf in prog.leaves):
        return None
    leaves = [replace(lf, dtype="float64") if lf.dtype == "float32" else lf
              for lf in prog.leaves]
    return replace(prog, leaves=leaves)


def _get(res, key, i=None):
    v = res.get(key) if res else None
    if v is None or i is None:
        return v
    return v.get(i) if isinstance(v, dict) else (v[i] if i < len(v) else None)


def check(prog: Program, jvp=True):
    """All mismatches of ``prog`` between graphgrad and PyTorch."""
    theirs = execute(prog, torch)
    ours = execute(prog, graphgrad)
    p64 = _in_float64(prog)
    ref = execute(p64, torch) if p64 is not None else None
    found = []
    if "values" in theirs and "values" in ours:
        for n, t in theirs["values"].items():
            if t is not None:
                found += compare(ours["values"].get(n), t, n, "forward", _get(ref, "values", n))
        if ours["rg"] != theirs["rg"]:
            found.append(Mismatch("meta", "forward", f"requires_grad of outputs "
                                  f"{prog.outputs}: graphgrad {ours['rg']}, torch {theirs['rg']}"))
    errs, stop = _errors(ours, theirs)
    # a phase that both completed is still compared when a later one raised
    if not any(m.kind == "meta" and m.phase == "forward" for m in found):
        if "grad" in theirs and "grad" in ours:
            for i, (o, t) in enumerate(zip(ours["grad"], theirs["grad"])):
                found += compare(o, t, f"grad[{i}]", "grad", _get(ref, "grad", i))
        if "gradgrad" in theirs and "gradgrad" in ours and theirs["gradgrad"] is not None:
            for i, (o, t) in enumerate(zip(ours["gradgrad"], theirs["gradgrad"])):
                r = _get(ref, "gradgrad", i)
                if r is None and t is not None and ref is not None and "gradgrad" in ref:
                    r = np.zeros(t.shape, np.float64)
                found += compare(*_zeros_for_none(o, t), f"gradgrad[{i}]", "gradgrad", r)
    found += errs
    if jvp and not stop and theirs.get("values") is not None:
        tj = execute_jvp(prog, torch)
        if tj["raised"] is None:
            oj = execute_jvp(prog, graphgrad)
            rj = execute_jvp(p64, torch) if p64 is not None else None
            if oj["raised"] is not None:
                found.append(Mismatch("false-error", "jvp", f"graphgrad raised "
                                                            f"{_exc_str(oj['raised'][1])}",
                                      oj["raised"][1]))
            else:
                for i, (n, o, t) in enumerate(zip(prog.outputs, oj["tangents"], tj["tangents"])):
                    r = _get(rj, "tangents", i)
                    if r is None and t is not None and rj is not None and "tangents" in rj:
                        r = np.zeros(t.shape, np.float64)
                    found += compare(*_zeros_for_none(o, t), f"tangent of {n}", "jvp", r)
    return found
