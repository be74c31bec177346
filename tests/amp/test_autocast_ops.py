"""Autocast over the whole op table (tests/ops/op_db): under ``autocast("cpu", bfloat16)``
and ``("cpu", float16)``, with float32 inputs, every op's output dtypes and the gradient
dtypes of its float32 leaves equal PyTorch's (samples PyTorch rejects under autocast are
skipped)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import torch
from tests.ops.op_db import OP_DB
from tests.ops.opinfo import dtype_name, flat_outputs, materialize, stable_seed, to_numpy

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # (the ops' own warnings)

CASES = [pytest.param(op, dt, id=f"{op.name}-{dt}") for op in OP_DB
         for dt in ("bfloat16", "float16")]


def _run(lib, op, s, dt):
    args, kwargs, ins = materialize(s, lib, "float32")
    with lib.autocast("cpu", dtype=getattr(lib, dt)):
        outs = flat_outputs(op.call(lib, args, kwargs))
    return outs, ins


_TOL = {"bfloat16": 2 ** -7, "float16": 2 ** -10}


def _assert_close(g, t, dt, what):
    """Values within a few roundings of the half dtype (of the output's magnitude)."""
    if dtype_name(t) in ("bfloat16", "float16"):
        g, t = g.float(), t.float()
    gn, tn = to_numpy(g).astype(np.complex128), to_numpy(t).astype(np.complex128)
    assert gn.shape == tn.shape, what
    finite = np.isfinite(tn)
    scale = np.abs(tn[finite]).max() if finite.any() else 1.0
    tol = 4 * _TOL[dt] * max(scale, 1.0)
    np.testing.assert_allclose(gn, tn, rtol=0, atol=tol, equal_nan=True, err_msg=what)


def _casts(outs):
    """How many ToCopyBackward0 nodes (autocast's casts) the outputs' graph holds."""
    seen, stack, n = set(), [o.grad_fn for o in outs if o.grad_fn is not None], 0
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        n += type(fn).__name__ == "ToCopyBackward0"
        stack.extend(f for f, _ in fn.next_functions)
    return n


def _grads(lib, outs, ins):
    diff = [o for o in outs if o.requires_grad and dtype_name(o).startswith("float")]
    if not diff or not ins:
        return None
    cots = [lib.ones_like(o) for o in diff]
    return lib.autograd.grad(diff, ins, cots, allow_unused=True)


# ops whose autocast dtypes differ on purpose (docs/differences.md)
_AUTOCAST_DIFFERENCES = {   # ops-point
    "linalg.pinv": "PyTorch's pinv kernel ends in a matmul that autocast lowers (a bfloat16 "
                   "result from float32 inputs); graphgrad's pinv is one op on no list",
}


@pytest.mark.parametrize("op,dt", CASES)
def test_autocast_dtypes_match_torch(op, dt):
    if op.name in _AUTOCAST_DIFFERENCES:
        pytest.skip(_AUTOCAST_DIFFERENCES[op.name])
    ran = 0
    for s in op.samples(np.random.default_rng(stable_seed(op.name))):
        try:
            t_outs, t_ins = _run(torch, op, s, dt)
        except Exception:   # PyTorch rejects the sample under autocast (e.g. bf16 LAPACK)
            continue
        g_outs, g_ins = _run(gg, op, s, dt)
        ran += 1
        assert [dtype_name(o) for o in g_outs] == [dtype_name(o) for o in t_outs], s
        if not (op.name == "nn.functional.scaled_dot_product_attention"
                and "attn_mask" in s.kwargs and s.kwargs["attn_mask"].arr.dtype.kind == "f"):
            # (graphgrad's half-precision attention casts a float mask to float32 itself,
            # PyTorch's adds it in its own dtype: one more ToCopyBackward0, same values)
            assert _casts(g_outs) == _casts(t_outs), f"casts in the graph of {s}"
        for g, t in zip(g_outs, t_outs):
            _assert_close(g, t, dt, f"{op.name} {s}")
        try:
            t_grads = _grads(torch, t_outs, t_ins)
        except Exception:
            continue
        g_grads = _grads(gg, g_outs, g_ins)
        if t_grads is None:
            continue
        assert [None if g is None else dtype_name(g) for g in g_grads] == \
            [None if t is None else dtype_name(t) for t in t_grads], f"grads of {s}"
    if not ran:
        pytest.skip("PyTorch rejects every sample under autocast")
