"""vmap over the whole op table (tests/ops/op_db): for every op's first sample, vmap of the
op over a batch of two examples (every tensor argument batched, at dim 0 and at the last
dim) equals the op run per example and stacked, and torch.func.vmap's result; an op that
takes the per-example fallback must be listed in VMAP_FALLBACK_OPS (documented in
docs/func.md)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphgrad
from graphgrad.func import _batching
from tests.conftest import torch
from tests.ops.op_db import OP_DB
from tests.ops.opinfo import A, I, flat_outputs, materialize

B = 2

# table ops without a batching rule yet: vmap runs them once per example (with PyTorch's
# performance warning).  A test fails when any other op falls back.
VMAP_FALLBACK_OPS = {
    "as_strided",         # sizes/strides address one example's storage
    "index_put",          # batched indices
    "embedding",          # only with padding_idx / scale_grad_by_freq and a batched weight
    "embedding_bag",      # the bags come from the offsets' values (apinn)
}

# OpInfos vmap cannot run as a whole (reasons given)
SKIP = {
    "as_strided": "sizes/strides address the storage: with the batch on the last dim the "
                  "per-example fallback reads across examples (documented in docs/func.md)",
    "inplace_on_new_views": "as_strided's storage offset counts from the whole batch's "
                            "storage in the per-example fallback (documented in docs/func.md)",
}


# ops whose public function builds arrays from the index's values before the table op runs
RAISES_WITH_BATCHED_INDEX = {f"index_reduce_{r}" for r in ("prod", "mean", "amax", "amin")}

def _examples(sample):
    """The sample's tensor arguments for example b: differentiable data scaled a little,
    indices and masks unchanged."""
    def per(v, b):
        if isinstance(v, A):
            return A(v.arr * (1.0 + 0.125 * b) if v.arr.dtype.kind != "c" else v.arr)
        return v
    out = []
    for b in range(B):
        args = tuple(per(a, b) for a in sample.args)
        out.append(args)
    return out


def _stack(lib, per_example, j):
    return lib.stack([ex[j] for ex in per_example])


def _tensor_positions(args):
    return [i for i, a in enumerate(args) if isinstance(a, (A, I))]


CASES = [op for op in OP_DB if "float64" in op.dtypes and op.name not in SKIP]


@pytest.mark.parametrize("how", ["dim0", "dim1", "last_dim", "first_only"])
@pytest.mark.parametrize("op", CASES, ids=[o.name for o in CASES])
def test_vmap_op_table(op, how):
    """``how``: every tensor argument batched at dim 0 (in_dims=0), at dim 1 (in_dims=1,
    between an example's first and second dims) or at its last dim (in_dims=-1), or only
    the first one (in_dims=(0, None, ...), the others example 0's)."""
    rng = np.random.default_rng(5)
    samples = op.samples(rng)
    sample = next((s for s in samples if _tensor_positions(s.args) and
                   all(isinstance(a, A) and a.arr.ndim > 0 or isinstance(a, I) and a.arr.ndim > 0
                       or not isinstance(a, (A, I)) for a in s.args)), None)
    if sample is None:
        pytest.skip("no sample with tensor arguments of rank >= 1")
    ex_args = _examples(sample)
    pos = _tensor_positions(sample.args)
    res = {}
    for lib in (graphgrad, torch):
        mats = []
        for args in ex_args:
            s = type(sample)(args, sample.kwargs, sample.name)
            a, k, _ = materialize(s, lib, "float64", requires_grad=False)
            mats.append((a, k))
        kwargs = mats[0][1]
        if how == "first_only":   # the other tensors are example 0's in every example
            mats = [([a if i not in pos[1:] else mats[0][0][i] for i, a in enumerate(m[0])],
                     m[1]) for m in mats]
        dim = {"last_dim": -1, "dim1": 1}.get(how, 0)
        batched = [lib.stack([m[0][i] for m in mats], dim) for i in pos]
        in_dims = tuple(dim if (how != "first_only" or j == 0) else None
                        for j in range(len(pos)))
        if how == "first_only":
            batched = [b if j == 0 else mats[0][0][i] for j, (b, i) in enumerate(zip(batched, pos))]

        def f(*ts, _a=mats[0][0], _k=kwargs):
            full = list(_a)
            for i, t in zip(pos, ts):
                full[i] = t
            return op.call(lib, tuple(full), _k)
        loop = None
        try:
            vm = lib.func.vmap(f, in_dims=in_dims)
            if lib is graphgrad:
                before = dict(_batching.FALLBACK_COUNTS)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = vm(*batched)
                fell = {k for k, v in _batching.FALLBACK_COUNTS.items()
                        if v != before.get(k, 0)}
                loop = [op.call(lib, m[0], m[1]) for m in mats]
            else:
                out = vm(*batched)
        except Exception as e:  # noqa: BLE001
            out = e
        res[lib] = (out, loop)
    ours, loop = res[graphgrad]
    theirs, _ = res[torch]
    if isinstance(theirs, Exception):
        pytest.skip(f"torch.func.vmap cannot run it: {type(theirs).__name__}")
    if op.name in RAISES_WITH_BATCHED_INDEX and how != "first_only":
        # graphgrad computes these ops' index arrays outside the op table: under vmap that
        # would read example 0's indices, so it raises (func/_batching.py _LogicalArray)
        assert isinstance(ours, RuntimeError) and "raw values" in str(ours), ours
        return
    assert not isinstance(ours, Exception), f"graphgrad vmap raised {ours!r}"
    fo, ft = flat_outputs(ours), flat_outputs(theirs)
    assert len(fo) == len(ft)
    per = [flat_outputs(r) for r in loop]
    for j, (o, t) in enumerate(zip(fo, ft)):
        on = o.detach().numpy()
        assert on.shape == tuple(t.shape)
        np.testing.assert_allclose(on, t.detach().resolve_conj().numpy(), rtol=1e-6, atol=1e-8,
                                   equal_nan=True)
        np.testing.assert_allclose(on, np.stack([p[j].detach().numpy() for p in per]),
                                   rtol=1e-6, atol=1e-8, equal_nan=True)
    assert fell <= VMAP_FALLBACK_OPS, f"ops fell back to the per-example loop: {sorted(fell)}"
