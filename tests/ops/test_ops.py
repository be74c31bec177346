"""Generic op tests driven by the op table (tests/ops/op_db): add an OpInfo, get every check.

Each check runs the same program on graphgrad and on PyTorch (the oracle) for
every sample of an op, in float64, float32 and (where supported) complex128:
forward values/dtypes/shapes; the VJP against PyTorch and against central
finite differences; double backward; the JVP (forward_ad) against PyTorch
and finite differences; batched tangents (and their forward-over-reverse)
against a loop of unbatched JVPs; batched gradients against a row-by-row
loop; the in-place variant (values and version, and its node name and input
gradients against PyTorch); non-differentiable outputs; each output's node name
and whether it is a view; contiguity of outputs and of ``autograd.grad``
results wherever PyTorch's are contiguous; every op on int64 inputs.
"""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.ops.api_ops import API_OPS
from tests.ops.op_db import OP_DB
from tests.ops.opinfo import (A, I, dtype_name, flat_outputs, materialize, to_numpy,
                              tolerances)
from tests.ops.opinfo import stable_seed as _stable_seed
from tests.conftest import HAVE_TORCH, torch

if HAVE_TORCH:
    torch.set_default_dtype(torch.float32)

CASES = [pytest.param(op, dt, id=f"{op.name}-{dt}")
         for op in OP_DB for dt in op.dtypes + (("complex128",) if op.complex else ())]


def _rng(op, dtype):
    return np.random.default_rng(_stable_seed(op.name, dtype))


def _samples(op, dtype):
    return op.samples(np.random.default_rng(_stable_seed(op.name)))


def _skip(op, check):
    if check in op.skips:
        pytest.skip(op.skips[check])


def _assert_close(a, b, op, dtype, what):
    rtol, atol = tolerances(op, dtype)
    if a is None or b is None:
        assert a is None and b is None, f"{what}: one side is None ({a is None}, {b is None})"
        return
    an, bn = to_numpy(a), to_numpy(b)
    assert an.shape == bn.shape, f"{what}: shape {an.shape} != torch {bn.shape}"
    np.testing.assert_allclose(an, bn, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def _diff_outputs(op, outs):
    return [i for i, o in enumerate(outs)
            if i not in op.nondiff_outputs and dtype_name(o).startswith(("float", "complex"))]


def _cotangent(rng, t, dtype):
    shape = tuple(t.shape)
    c = rng.standard_normal(shape)
    if dtype_name(t).startswith("complex"):
        c = c + 1j * rng.standard_normal(shape)
    return c.astype({"float32": np.float32, "float64": np.float64}.get(
        dtype_name(t), np.complex128))


@pytest.mark.parametrize("op,dtype", CASES)
def test_forward(op, dtype):
    """Values, dtypes and shapes equal PyTorch's."""
    for s in _samples(op, dtype):
        ga, gk, _ = materialize(s, gg, dtype, requires_grad=False)
        ta, tk, _ = materialize(s, torch, dtype, requires_grad=False)
        gout, tout = flat_outputs(op.call(gg, ga, gk)), flat_outputs(op.call(torch, ta, tk))
        assert len(gout) == len(tout), f"{s}: {len(gout)} outputs, torch {len(tout)}"
        for i, (g, t) in enumerate(zip(gout, tout)):
            assert dtype_name(g) == dtype_name(t), f"{s} output {i}: dtype {g.dtype} vs {t.dtype}"
            _assert_close(g, t, op, dtype, f"{op.name} {s} output {i}")


def _vjp(lib, op, s, dtype, rng_seed, create_graph=False):
    args, kwargs, ins = materialize(s, lib, dtype)
    outs = flat_outputs(op.call(lib, args, kwargs))
    idx = _diff_outputs(op, outs)
    rng = np.random.default_rng(rng_seed)
    cots = [lib.tensor(_cotangent(rng, outs[i], dtype)) for i in idx]
    douts = [outs[i] for i in idx]
    grads = lib.autograd.grad(douts, ins, cots, allow_unused=True, create_graph=create_graph)
    return ins, douts, cots, grads, args, kwargs


@pytest.mark.parametrize("op,dtype", CASES)
def test_vjp_vs_torch(op, dtype):
    if not op.grad:
        pytest.skip("not differentiable")
    _skip(op, "vjp")
    for k, s in enumerate(_samples(op, dtype)):
        gg_grads = _vjp(gg, op, s, dtype, k)[3]
        t_grads = _vjp(torch, op, s, dtype, k)[3]
        for i, (a, b) in enumerate(zip(gg_grads, t_grads)):
            if a is None and b is not None and not to_numpy(b).any():
                continue  # PyTorch materialised zeros where graphgrad says "unused"
            _assert_close(a, b, op, dtype, f"{op.name} {s} grad of input {i}")


@pytest.mark.parametrize("op", [o for o in OP_DB if o.grad and o.fd and "float64" in o.dtypes],
                         ids=lambda o: o.name)
def test_vjp_finite_differences(op):
    """graphgrad's VJP equals central differences of <cotangent, f(x)> (float64)."""
    _skip(op, "fd")
    eps = 1e-6
    for k, s in enumerate(_samples(op, "float64")):
        ins, douts, cots, grads, args, kwargs = _vjp(gg, op, s, "float64", k)

        def loss():
            with gg.no_grad():
                outs = flat_outputs(op.call(gg, args, kwargs))
                idx = _diff_outputs(op, outs)
                return sum(float((outs[i]._data * c._data).sum()) for i, c in zip(idx, cots))
        for i, (x, g) in enumerate(zip(ins, grads)):
            num = np.zeros(x._data.shape)
            flat = x._data.reshape(-1)
            for j in range(flat.size):
                old = flat[j]
                flat[j] = old + eps
                hi = loss()
                flat[j] = old - eps
                lo = loss()
                flat[j] = old
                num.reshape(-1)[j] = (hi - lo) / (2 * eps)
            ana = np.zeros_like(num) if g is None else g._data
            np.testing.assert_allclose(ana, num, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{op.name} {s}: d/d input {i}")


@pytest.mark.parametrize("op,dtype", CASES)
def test_double_backward_vs_torch(op, dtype):
    if not (op.grad and op.gradgrad):
        pytest.skip("no double backward")
    _skip(op, "gradgrad")
    for k, s in enumerate(_samples(op, dtype)):
        res = []
        for lib in (gg, torch):
            ins, douts, cots, grads, _, _ = _vjp(lib, op, s, dtype, k, create_graph=True)
            rng = np.random.default_rng(100 + k)
            terms = []
            for g in grads:
                if g is not None and g.requires_grad:
                    w = lib.tensor(_cotangent(rng, g, dtype))
                    terms.append((g * w).sum() if not g.is_complex() else (g * w).sum().real)
            if not terms:
                res.append(None)
                continue
            total = terms[0]
            for t in terms[1:]:
                total = total + t
            res.append(lib.autograd.grad(total, ins, allow_unused=True))
        if res[0] is None or res[1] is None:
            continue
        for i, (a, b) in enumerate(zip(*res)):
            if a is None and b is not None and not to_numpy(b).any():
                continue
            _assert_close(a, b, op, dtype, f"{op.name} {s} 2nd-order grad of input {i}")


def _jvp(lib, op, s, dtype, seed):
    fwAD = lib.autograd.forward_ad
    args, kwargs, ins = materialize(s, lib, dtype)
    for t in ins:
        t.requires_grad_(False)
    rng = np.random.default_rng(seed)
    tangents = [lib.tensor(_cotangent(rng, t, dtype)) for t in ins]
    with fwAD.dual_level():
        duals = {id(t): fwAD.make_dual(t, tan) for t, tan in zip(ins, tangents)}

        def sub(v):
            if id(v) in duals:
                return duals[id(v)]
            if isinstance(v, (list, tuple)):
                return type(v)(sub(x) for x in v)
            return v
        outs = flat_outputs(op.call(lib, tuple(sub(a) for a in args),
                                    {k: sub(v) for k, v in kwargs.items()}))
        idx = _diff_outputs(op, outs)
        res = [fwAD.unpack_dual(outs[i]).tangent for i in idx]
        res = [None if t is None else t.clone() for t in res]
    return res, args, kwargs, ins, tangents


@pytest.mark.parametrize("op,dtype", CASES)
def test_jvp_vs_torch(op, dtype):
    if not (op.grad and op.fwd_ad):
        pytest.skip("no forward AD")
    _skip(op, "jvp")
    for k, s in enumerate(_samples(op, dtype)):
        a, *_ = _jvp(gg, op, s, dtype, k)
        b, *_ = _jvp(torch, op, s, dtype, k)
        for i, (x, y) in enumerate(zip(a, b)):
            if x is None and y is not None and not to_numpy(y).any():
                continue
            _assert_close(x, y, op, dtype, f"{op.name} {s} tangent of output {i}")


@pytest.mark.parametrize("op", [o for o in OP_DB if o.grad and o.fwd_ad and o.fd
                                and "float64" in o.dtypes], ids=lambda o: o.name)
def test_jvp_finite_differences(op):
    _skip(op, "jvp")
    _skip(op, "fd")
    eps = 1e-6
    for k, s in enumerate(_samples(op, "float64")):
        tans, args, kwargs, ins, tangents = _jvp(gg, op, s, "float64", k)

        def f(sign):
            saved = [x._data.copy() for x in ins]
            for x, t in zip(ins, tangents):
                x._data[...] = x._data + sign * eps * t._data
            with gg.no_grad():
                outs = flat_outputs(op.call(gg, args, kwargs))
                res = [outs[i]._data.copy() for i in _diff_outputs(op, outs)]
            for x, v in zip(ins, saved):
                x._data[...] = v
            return res
        hi, lo = f(1), f(-1)
        for i, (t, h, l) in enumerate(zip(tans, hi, lo)):
            num = (h - l) / (2 * eps)
            ana = np.zeros_like(num) if t is None else t._data
            np.testing.assert_allclose(ana, num, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{op.name} {s}: tangent of output {i}")


# ops whose JVP may still take the batched-tangent fallback (one unbatched JVP per batch
# entry, stacked): test_batched_jvp fails when any other op needs it, so a missing or
# broken batch rule cannot hide behind the fallback.  Internal op names (OPS keys).
FW_FALLBACK_OPS = frozenset()


def test_every_jvp_declares_how_it_takes_batched_tangents():
    """Every op with a JVP says how it takes batched tangents (``batched_jvp`` in defop, or
    an ELEMENTWISE rule): the fallback is for custom Functions, not for the table."""
    from graphgrad.ops.derivatives.copies import _cat_op, _stack_op
    from graphgrad.ops.registry import ELEMENTWISE, OPS
    _cat_op(5), _stack_op(5)   # the per-arity entries are made on first use
    missing = sorted(name for name, op in OPS.items() if op.jvp is not None
                     and op.batched_jvp is None and op.jvp is not ELEMENTWISE)
    assert set(missing) <= FW_FALLBACK_OPS, f"no batched_jvp: {missing}"


def _push_tangents(op, s, dtype, tans, row=None, double_backward=False, seed=0):
    """The outputs' tangents of one sample: ``tans`` holds a batch of tangents per input
    (arrays ``(B, *x.shape)``), pushed as one batch (a batched dual level) when ``row`` is
    None, else only entry ``row`` at an ordinary level.  With ``double_backward``, the
    tangents of the gradient instead (forward-over-reverse: a create_graph backward under
    the dual level), with cotangents from ``seed`` that carry tangents too, so that the JVPs
    of the backward formulas see dual gradients as well as dual saved inputs.  Returns
    arrays (None where there is no tangent) and the ops that took the batched fallback."""
    fwAD = gg.autograd.forward_ad
    args, kwargs, ins = materialize(s, gg, dtype)
    if not double_backward:
        for t in ins:
            t.requires_grad_(False)
    B = tans[0].shape[0]
    level = fwAD._batched_dual_level(B) if row is None else fwAD.dual_level()

    def pick(a):
        return gg.tensor(a if row is None else a[row])
    fwAD._fallback_calls.clear()
    with level:
        duals = {id(t): fwAD.make_dual(t, pick(a)) for t, a in zip(ins, tans)}

        def sub(v):
            if id(v) in duals:
                return duals[id(v)]
            if isinstance(v, (list, tuple)):
                return type(v)(sub(x) for x in v)
            return v
        outs = flat_outputs(op.call(gg, tuple(sub(a) for a in args),
                                    {k: sub(v) for k, v in kwargs.items()}))
        idx = _diff_outputs(op, outs)
        if double_backward:
            rng = np.random.default_rng(seed)
            douts = [outs[i] for i in idx if outs[i].requires_grad]
            if not douts:
                return None, set()
            cots = []
            for o in douts:
                c = gg.tensor(_cotangent(rng, o, dtype))
                ct = np.stack([_cotangent(rng, o, dtype) for _ in range(B)])
                cots.append(fwAD.make_dual(c, pick(ct)))
            outs = gg.autograd.grad(douts, ins, cots, allow_unused=True, create_graph=True)
            idx = range(len(outs))
        res = []
        for i in idx:
            t = None if outs[i] is None else fwAD.unpack_dual(outs[i]).tangent
            res.append(None if t is None else np.array(t._data))
    return res, set(fwAD._fallback_calls)


def _check_batched_jvp(op, dtype, double_backward):
    B = 3
    fallbacks = set()
    for k, s in enumerate(_samples(op, dtype)):
        args, kwargs, ins = materialize(s, gg, dtype)
        if not ins:
            continue
        rng = np.random.default_rng(k)
        tans = [np.stack([_cotangent(rng, x, dtype) for _ in range(B)]) for x in ins]
        try:
            rows = [_push_tangents(op, s, dtype, tans, row=b, double_backward=double_backward,
                                   seed=k)[0]
                    for b in range(B)]
        except NotImplementedError:
            continue   # no (double) forward AD for this sample, batched or not
        batched, used = _push_tangents(op, s, dtype, tans, double_backward=double_backward,
                                       seed=k)
        fallbacks |= used
        if rows[0] is None:
            assert batched is None
            continue
        for i, bt in enumerate(batched):
            for b in range(B):
                rt = rows[b][i]
                what = f"{op.name} {s}: output {i}, batch entry {b}"
                if rt is None:
                    assert bt is None or not bt[b].any(), what
                    continue
                assert bt is not None, f"{what}: no batched tangent"
                assert bt.shape == (B,) + rt.shape, f"{what}: shape {bt.shape} vs {rt.shape}"
                np.testing.assert_allclose(bt[b], rt, rtol=1e-10, atol=1e-12, equal_nan=True,
                                           err_msg=what)
    unexpected = fallbacks - FW_FALLBACK_OPS
    assert not unexpected, f"{op.name}: ops without a batch rule (fallback): {sorted(unexpected)}"


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[1] != "float32"])
def test_batched_jvp(op, dtype):
    """B tangents pushed as one batch (a batched dual level) equal B unbatched JVPs."""
    if not (op.grad and op.fwd_ad):
        pytest.skip("no forward AD")
    _skip(op, "jvp")
    _check_batched_jvp(op, dtype, double_backward=False)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[1] != "float32"])
def test_batched_jvp_of_backward(op, dtype):
    """Forward-over-reverse with batched tangents (the JVPs of the backward formulas, as in
    hessian(outer_jacobian_strategy="forward-mode")) equals B unbatched runs."""
    if not (op.grad and op.fwd_ad and op.gradgrad):
        pytest.skip("no forward AD or no double backward")
    _skip(op, "jvp")
    _skip(op, "gradgrad")
    _check_batched_jvp(op, dtype, double_backward=True)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[1] != "float32"])
def test_batched_grad(op, dtype):
    """is_grads_batched=True equals the loop over cotangent rows."""
    if not (op.grad and op.batched):
        pytest.skip("no batched gradient")
    _skip(op, "batched")
    B = 3
    for k, s in enumerate(_samples(op, dtype)):
        args, kwargs, ins = materialize(s, gg, dtype)
        outs = flat_outputs(op.call(gg, args, kwargs))
        idx = _diff_outputs(op, outs)
        if not idx or not ins:
            continue
        rng = np.random.default_rng(k)
        cots = [np.stack([_cotangent(rng, outs[i], dtype) for _ in range(B)]) for i in idx]
        douts = [outs[i] for i in idx]
        batched = gg.autograd.grad(douts, ins, [gg.tensor(c) for c in cots], retain_graph=True,
                                   allow_unused=True, is_grads_batched=True)
        for b in range(B):
            row = gg.autograd.grad(douts, ins, [gg.tensor(c[b]) for c in cots],
                                   retain_graph=True, allow_unused=True)
            for i, (bt, rt) in enumerate(zip(batched, row)):
                if rt is None:
                    assert bt is None or not bt._data[b].any()
                    continue
                np.testing.assert_allclose(bt._data[b], rt._data, rtol=1e-10, atol=1e-12,
                                           err_msg=f"{op.name} {s}: batch row {b} input {i}")


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].inplace])
def test_inplace_variant(op, dtype):
    """``x.op_(...)`` returns x, matches the out-of-place op and bumps the version."""
    for s in _samples(op, dtype):
        args, kwargs, _ = materialize(s, gg, dtype, requires_grad=False)
        expected = op.call(gg, args, kwargs)
        if not isinstance(expected, gg.Tensor) or expected.dtype != args[0].dtype or \
                expected.shape != args[0].shape:
            continue  # in-place needs a result castable to self's shape and dtype
        x = args[0].clone()
        v = x._version
        r = getattr(x, op.inplace)(*args[1:], **kwargs)
        assert r is x
        assert x._version > v
        np.testing.assert_allclose(x._data, expected._data, rtol=1e-12, atol=0, equal_nan=True)


# in-place variants differentiable here where PyTorch's backward raises (docs/differences.md)
_INPLACE_DIFFERENTIABLE_HERE = {"floor_divide", "asinh", "acosh", "atanh"}


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].inplace and
                                      c.values[0].grad])
def test_inplace_variant_graph_vs_torch(op, dtype):
    """``z = x * 1; z.op_(...)``: z's node name, version and the gradients reaching the
    inputs equal PyTorch's."""
    if op.name in _INPLACE_DIFFERENTIABLE_HERE:
        pytest.skip("differentiable here, PyTorch's in-place node raises in backward")
    for s in _samples(op, dtype):
        got = []
        for lib in (gg, torch):
            args, kwargs, ins = materialize(s, lib, dtype)
            z = args[0] * 1
            try:
                getattr(z, op.inplace)(*args[1:], **kwargs)
            except RuntimeError as exc:  # e.g. a result that cannot be cast to z's dtype
                got.append(type(exc))
                continue
            loss = (z.abs() if z.is_complex() else z).sum()
            grads = lib.autograd.grad(loss, ins, allow_unused=True)
            got.append((z.grad_fn.name(), z._version, list(grads)))
        g, t = got
        if not isinstance(t, tuple):
            assert g is t, f"{op.name} {s}: {g} vs torch {t}"
            continue
        assert g[:2] == t[:2], f"{op.name} {s}: (node, version) {g[:2]} vs torch {t[:2]}"
        for i, (a, b) in enumerate(zip(g[2], t[2])):
            _assert_close(a, b, op, dtype, f"{op.name} {s} in-place gradient {i}")


# Ops whose output node is named otherwise on purpose (each in docs/differences.md):
# op name -> (dtypes it applies to, or None for all; why)
_NODE_NAME_DIFFERENCES = {
    "einsum": (None, "one EinsumBackward0 per operand pair (PyTorch: permute/bmm/view nodes)"),
    "einsum_sublist": (None, "as einsum"),
    "conj": (("complex128",), "conj copies (PyTorch: a lazy conjugate view)"),
    "floor_divide": (None, "differentiable, DivBackward2 (PyTorch: no derivative)"),
    "real": (None, "RealBackward0 (PyTorch: view_as_real then SelectBackward0)"),
    "imag": (None, "ImagBackward0 (PyTorch: view_as_real then SelectBackward0)"),
    "real_property": (None, "as real"),
    "imag_property": (None, "as imag"),
    "nn.functional.pad": (None, "circular pad is slices and cat (PyTorch: CopySlices)"),
    "nn.functional.conv1d": (("complex128",), "one complex convolution (PyTorch: 3 real ones "
                                              "and AddBackward0)"),
    "nn.functional.conv2d": (("complex128",), "as conv1d"),
}
_NODE_NAME_DIFFERENCES["vander_increasing"] = (   # ops-point
    None, "a cat of ones and a cumprod (PyTorch: CopySlices; its backward raises)")
_NODE_NAME_DIFFERENCES["linalg.householder_product"] = (   # ops-point
    None, "a composition of matmuls (PyTorch: LinalgHouseholderProductBackward0)")
_NODE_NAME_DIFFERENCES["linalg.tensorinv"] = (   # ops-point
    None, "the inverse is row-major, so its reshape is a view (PyTorch's column-major LAPACK "
          "result: ReshapeAliasBackward0)")

_NODE_NAME_DIFFERENCES.update({   # apifft: ifft / ihfft of a real input end in conj
    name: (("float64", "float32"), "the last node is ConjBackward0 of a copy (PyTorch: a lazy "
                                   "conjugate view; graphgrad's conj copies)")
    for name in ("fft.ifft", "fft.ihfft", "fft.ihfftn")})
_NODE_NAME_DIFFERENCES.update({   # apifft: deprecated forms as linalg composites
    "triangular_solve": (None, "linalg.solve_triangular and a clone (PyTorch: "
                               "TriangularSolveBackward0 for both outputs)"),
    "frobenius_norm": (None, "linalg.vector_norm (PyTorch: at::norm, NormBackward1)")})


def _node_names(lib, op, s, dtype):
    args, kwargs, _ = materialize(s, lib, dtype)
    outs = flat_outputs(op.call(lib, args, kwargs))
    return [(o.grad_fn.name() if o.grad_fn is not None else None, o._base is not None)
            for o in outs]


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].grad])
def test_node_names_and_views_vs_torch(op, dtype):
    """Each output's grad_fn has PyTorch's node name, and is a view exactly where PyTorch's is
    (the name users see in error messages, ``grad_fn`` and ``next_functions``)."""
    known = _NODE_NAME_DIFFERENCES.get(op.name)
    if known is not None and (known[0] is None or dtype in known[0]):
        pytest.skip(f"documented difference: {known[1]}")
    for s in _samples(op, dtype):
        got, want = _node_names(gg, op, s, dtype), _node_names(torch, op, s, dtype)
        assert got == want, f"{op.name} {s}: (node name, is view) {got}, torch {want}"


@pytest.mark.parametrize("op,dtype", CASES)
def test_outputs_are_contiguous_where_pytorchs_are(op, dtype):
    """An output PyTorch returns contiguous is contiguous here too, so that ``.view()`` on
    it works as in PyTorch.  (The other way round is allowed: linalg results are row-major
    where PyTorch's LAPACK results are column-major.)"""
    for s in _samples(op, dtype):
        ga, gk, _ = materialize(s, gg, dtype, requires_grad=False)
        ta, tk, _ = materialize(s, torch, dtype, requires_grad=False)
        gout, tout = flat_outputs(op.call(gg, ga, gk)), flat_outputs(op.call(torch, ta, tk))
        for i, (g, t) in enumerate(zip(gout, tout)):
            if t.is_contiguous():
                assert g.is_contiguous(), f"{op.name} {s} output {i}: strides {g.stride()}"


# the gradient of a column-major matrix operand of mm/addmm comes back column-major in
# PyTorch (so linear's weight gradient, through TBackward0, is row-major); graphgrad's mm
# rules do not see their operands' layout (docs/differences.md)
_GRAD_LAYOUT_DIFFERENCES = {"nn.functional.linear", "matmul",
                            "nn.functional.scaled_dot_product_attention"}
_GRAD_LAYOUT_DIFFERENCES |= {"inner"}   # ops-point: inner is tensordot's mm (as matmul)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].grad])
def test_gradients_are_contiguous_where_pytorchs_are(op, dtype):
    """``autograd.grad`` (row-major cotangents) returns contiguous gradients wherever PyTorch
    does: ``g.view(n, -1)`` on them works as in PyTorch (e.g. a gradient penalty)."""
    if op.name in _GRAD_LAYOUT_DIFFERENCES:
        pytest.skip("documented difference: mm's rules do not follow operand layouts")
    _skip(op, "vjp")
    for s in _samples(op, dtype):
        got = []
        for lib in (gg, torch):
            args, kwargs, ins = materialize(s, lib, dtype)
            outs = [o for o in flat_outputs(op.call(lib, args, kwargs)) if o.requires_grad]
            if not outs or not ins:
                break
            cots = [lib.tensor(np.ones(tuple(o.shape), to_numpy(o).dtype)) for o in outs]
            grads = lib.autograd.grad(outs, ins, cots, allow_unused=True)
            got.append([g is None or g.is_contiguous() for g in grads])
        else:
            for i, (g, t) in enumerate(zip(*got)):
                assert g or not t, f"{op.name} {s}: gradient {i} is not contiguous"


# integer inputs that graphgrad handles otherwise on purpose (docs/differences.md)
_INT_INPUT_DIFFERENCES = {
    "nn.functional.avg_pool2d": "integer inputs raise NotImplementedError",
    "nn.functional.avg_pool1d": "as avg_pool2d: integer inputs raise NotImplementedError",
    **{f"nn.functional.{n}": "as avg_pool2d: integer inputs raise NotImplementedError"
       for n in ("avg_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d")},   # (api3d)
    "nn.functional.layer_norm": "integer weight/bias with float input: error type differs",
    "nn.functional.binary_cross_entropy": "integer weight with float input: error type differs",
    "nn.functional.dropout": "integer inputs are refused",
    "index_add": "a float alpha scales before the cast to the integer result",
    "addcmul": "a float value on integer tensors gives a float result",
    "addmm (nn.functional.linear's op)": "float beta/alpha on integer tensors are refused",
}


def _call_converted(lib, op, s, array):
    """``op`` on sample ``s`` with its float arrays made tensors by ``array(lib, arr)``
    (index arrays stay int64): the outputs, or the exception type raised."""
    def conv(v):
        if isinstance(v, A):
            return array(lib, v.arr)
        if isinstance(v, I):
            return lib.tensor(np.array(v.arr))
        if isinstance(v, (list, tuple)) and any(isinstance(x, (A, I)) for x in v):
            return type(v)(conv(x) for x in v)
        return v
    try:
        return flat_outputs(op.call(lib, tuple(conv(a) for a in s.args),
                                    {k: conv(v) for k, v in s.kwargs.items()}))
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc)


def _assert_same_results(got, want, what, tol):
    """Lists of (dtype name, array) equal in dtypes and shapes, values within ``tol``; or
    the same exception type."""
    if not isinstance(want, list) or not isinstance(got, list):
        assert got is want, f"{what}: {got} vs torch {want}"
        return
    assert [d for d, _ in got] == [d for d, _ in want], f"{what}: dtypes"
    for (_, g), (_, w) in zip(got, want):
        assert g.shape == w.shape, f"{what}: shape {g.shape} vs torch {w.shape}"
        np.testing.assert_allclose(g.astype(np.complex128), w.astype(np.complex128),
                                   rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def _int_call(lib, op, s, dtype):
    def array(lib, arr):
        a = np.round(arr * 3)
        return lib.tensor(a > 0 if dtype == "bool" else a.astype(np.int64))
    outs = _call_converted(lib, op, s, array)
    if not isinstance(outs, list):
        return outs
    return [(dtype_name(o), to_numpy(o)) for o in outs]


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("op", OP_DB, ids=lambda o: o.name)
def test_integer_inputs_vs_torch(op, dtype):
    """Every op on int64 and on bool tensors (the float samples rounded, or > 0): PyTorch's
    result dtype and values (integer division, promotion to the default dtype, counting
    sums of bools, ...), or its exception type."""
    if op.name in _INT_INPUT_DIFFERENCES:
        pytest.skip(_INT_INPUT_DIFFERENCES[op.name])
    for s in _samples(op, "float64"):
        _assert_same_results(_int_call(gg, op, s, dtype), _int_call(torch, op, s, dtype),
                             f"{op.name} {s} on {dtype}", 1e-5)


# half-precision inputs that graphgrad handles otherwise on purpose (docs/differences.md)
_HALF_INPUT_DIFFERENCES = {
    ("float16", name): "NumPy has no complex32: float16 parts give complex64"
    for name in ("complex", "view_as_complex", "view_as_complex_roundtrip", "polar")
}
# PyTorch's float16 transposed convolution depends on the CPU: with AVX512-FP16 (oneDNN)
# it accumulates in float32 and rounds once, without it its slow kernel rounds the
# columns to float16 and adds them in float16 (8 % off where they cancel).  graphgrad
# always computes in float32: test_float16_conv_transpose_rounds_once checks that.
_HALF_INPUT_DIFFERENCES.update({
    ("float16", name): "PyTorch's float16 accumulation depends on the CPU"
    for name in ("nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
                 "nn.functional.conv_transpose3d", "convolution")})   # (api3d: the 3-d one)
_HALF_INPUT_DIFFERENCES.update({   # (api3d)
    ("bfloat16", name): "with output_padding >= stride PyTorch's bfloat16 transposed "
                        "convolution rounds in steps (max error 1.3e-2 against float64 where "
                        "graphgrad's one rounding gives 1.06e-2)"
    for name in ("nn.functional.conv_transpose3d", "convolution")})
_HALF_INPUT_DIFFERENCES.update({   # ops-point
    (dt, name): "PyTorch's half-precision matrix_exp overflows (inf/nan) where graphgrad's "
                "float32 computation does not (docs/differences.md)"
    for dt in ("float16", "bfloat16") for name in ("matrix_exp", "linalg.matrix_exp")})

# one or two bfloat16/float16 roundings apart (both libraries compute in float32 and round
# once; reductions and transcendental functions may still round a last bit differently)
_HALF_TOL = {"float16": 1e-3, "bfloat16": 8e-3}


def _half_call(lib, op, s, dtype):
    outs = _call_converted(lib, op, s, lambda lib, arr: lib.tensor(arr).to(getattr(lib, dtype)))
    if not isinstance(outs, list):
        return outs
    got = []
    for o in outs:
        name = dtype_name(o)
        if name in ("bfloat16", "complex32"):  # NumPy has neither: compare in 32 bits
            o = o.to(lib.complex64 if o.is_complex() else lib.float32)
        got.append((name, to_numpy(o)))
    return got


# ops whose half-precision results may be some steps (units in the last place of the
# half type) from PyTorch's; every other op of the table gives PyTorch's bits exactly
_LIBM = "float32 exp/log/tanh of NumPy and PyTorch (SLEEF) round a last bit differently"
_TAIL = ("PyTorch rounds step by step in the elements left over after its SIMD vectors "
         "(every element of these small samples), once in the vectors")
_HALF_STEPS = {
    # ops-reduce: PyTorch's nansum reduces several dims one after the other, rounding between
    ("bfloat16", "nansum"): (None, "PyTorch's nansum rounds between the dims it reduces"),
    ("bfloat16", "nansum_nan"): (None, "PyTorch's nansum rounds between the dims it reduces"),
    ("float16", "nanmean"): (1, "PyTorch's nansum rounds between the dims it reduces"),
    ("bfloat16", "nanmean"): (None, "PyTorch's nansum rounds between the dims it reduces"),
    ("bfloat16", "nanmean_nan"): (None, "PyTorch's nansum rounds between the dims it reduces"),
    **{(dt, name): (1, _LIBM) for dt in ("float16", "bfloat16") for name in (
        "nn.functional.gelu", "nn.functional.conv2d")},
    **{(dt, name): (2, "PyTorch sums the losses of the batch in another order")
       for dt in ("float16", "bfloat16") for name in (
           "nn.functional.nll_loss", "nn.functional.cross_entropy")},
    **{(dt, name): (steps, _TAIL) for dt, name, steps in (
        ("float16", "sub_alpha", 8), ("float16", "add_alpha", 1), ("float16", "rsqrt", 1),
        ("float16", "nn.functional.binary_cross_entropy_with_logits", 1),
        ("bfloat16", "sub_alpha", 2), ("bfloat16", "rsqrt", 1),
        ("bfloat16", "nn.functional.binary_cross_entropy_with_logits", 3),
        ("bfloat16", "nn.functional.binary_cross_entropy", 1))},
    ("float16", "prod"): (1, "PyTorch multiplies in another order"),
    ("float16", "rsub"): (8, _TAIL), ("bfloat16", "rsub"): (2, _TAIL),   # ops-point
    **{(dt, "special.ndtr"): (
        None, "PyTorch's (1 + erf(x / sqrt 2)) / 2 cancels in the left tail (each step rounded "
              "to the half type); graphgrad's erfc(-x / sqrt 2) / 2 does not "
              "(docs/differences.md); compared within the tolerance")
       for dt in ("float16", "bfloat16")},
    ("bfloat16", "nn.functional.rrelu"): (
        1, "in training PyTorch multiplies by its float32 slope and saves the slope rounded to "
           "bfloat16; graphgrad's result is x times the saved slope (docs/differences.md)"),
    **{(dt, "nn.functional.interpolate(linear)"): (
        1, "PyTorch's vectorised float32 sums of the weighted neighbours (fused multiply-adds) "
           "round a last float32 bit otherwise, which may move the half-precision result")
       for dt in ("float16", "bfloat16")},
    **{(dt, "nn.functional.layer_norm(rows)"): (
        4, "PyTorch sums the float32 statistics in another order (rows of up to 2100 here)")
       for dt in ("float16", "bfloat16")},
    **{(dt, "nn.functional.softmax(blocked)"): (
        1, "PyTorch sums the float32 exponentials of a long row in another order")
       for dt in ("float16", "bfloat16")},
    ("float16", "nn.functional.gelu"): (
        2, "negative tail: PyTorch's float32 0.5 x (1 + erf(x / sqrt 2)) cancels, graphgrad's "
           "erfc form does not (tests/ops/test_half_precision.py compares where PyTorch's "
           "value is the correctly rounded one)"),
    ("float16", "nn.functional.gelu(blocked)"): (
        None, "as nn.functional.gelu's negative tail, on 33800 samples (the same kernel)"),
    ("bfloat16", "nn.functional.gelu(blocked)"): (
        None, "as nn.functional.gelu's far negative tail (docs/differences.md)"),
    ("bfloat16", "round"): (1, "round of a bfloat16 value above 2**7 (PyTorch rounds the "
                               "float32 result's last bit)"),
    ("bfloat16", "nn.functional.gelu"): (
        None, "far negative tail: graphgrad's accurate tiny values, PyTorch's -0.0 "
              "(docs/differences.md)"),
    **{(dt, "scatter_add"): (4, "PyTorch adds the scattered half values in another order")
       for dt in ("float16", "bfloat16")},
    ("float16", "nn.functional.instance_norm"): (
        2, "PyTorch sums the statistics in another order before storing them in float16"),
    ("bfloat16", "nn.functional.instance_norm"): (
        None, "PyTorch sums the statistics in another order before storing them in bfloat16 "
              "(values near 0 then differ by many steps; compared within the tolerance)"),
}
_HALF_INPUT_DIFFERENCES.update({  # apinn
    (dt, "nn.functional.local_response_norm(4-d and more)"): (
        "PyTorch's avg_pool3d (its local_response_norm of 4-D and larger inputs) has no "
        "half-precision CPU kernel (NotImplementedError); graphgrad's pools them as 2-D")
    for dt in ("float16", "bfloat16")})
_HALF_STEPS.update({  # apinn
    ("bfloat16", name): (1, "PyTorch's bfloat16 embedding_bag sums are not float32 sums rounded "
                            "once (nor bfloat16 steps); 58 % of them are")
    for name in ("nn.functional.embedding_bag",
                 "nn.functional.embedding_bag(scale_grad_by_freq)")})


def _ordered_bits(arr, name):
    """Half-precision values as integers in value order (one per representable value,
    +0 and -0 both 0): differences count rounding steps."""
    u = arr.astype(np.float16 if name == "float16" else gg.bfloat16.np) \
        .view(np.uint16).astype(np.int64)
    return np.where(u & 0x8000, -(u & 0x7FFF), u)


def _max_half_steps(got, want):
    steps = 0
    for (name, g), (_, w) in zip(got, want):
        if name not in ("float16", "bfloat16") or g.shape != w.shape:
            continue
        both_nan = np.isnan(g.astype(np.float32)) & np.isnan(w.astype(np.float32))
        d = np.abs(_ordered_bits(g, name) - _ordered_bits(w, name))[~both_nan]
        steps = max(steps, int(d.max(initial=0)))
    return steps


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", OP_DB, ids=lambda o: o.name)
def test_half_precision_inputs_vs_torch(op, dtype):
    """Every op on float16 and on bfloat16 tensors (the float64 samples converted; index
    tensors kept): PyTorch's result dtypes (bfloat16 in, bfloat16 out: no promotion by
    Python scalars, no float32 from kernels NumPy lacks) and shapes, its exception type,
    and its values bit for bit: like PyTorch, graphgrad computes a half-precision op in
    float32 and rounds once (NumPy's float16 steps would round a composite such as
    softmax, layer_norm, gelu or avg_pool2d several times, up to 169 steps from
    PyTorch's).  The ops of _HALF_STEPS may differ by the steps listed there."""
    if (dtype, op.name) in _HALF_INPUT_DIFFERENCES:
        pytest.skip(_HALF_INPUT_DIFFERENCES[dtype, op.name])
    tol = _HALF_TOL[dtype]
    allowed = _HALF_STEPS.get((dtype, op.name), (0, ""))[0]
    for s in _samples(op, "float64"):
        got, want = _half_call(gg, op, s, dtype), _half_call(torch, op, s, dtype)
        what = f"{op.name} {s} on {dtype}"
        _assert_same_results(got, want, what, tol)
        if isinstance(want, list) and allowed is not None:
            steps = _max_half_steps(got, want)
            assert steps <= allowed, f"{what}: {steps} {dtype} steps from PyTorch's values"


@pytest.mark.parametrize("name", ["nn.functional.conv_transpose1d",
                                  "nn.functional.conv_transpose2d"])
def test_float16_conv_transpose_rounds_once(name):
    """float16 transposed convolutions are PyTorch's float32 result on the float16 values,
    rounded once (a reference that does not depend on the CPU PyTorch runs on; one step
    where the float32 sums, added in another order, round to either side)."""
    op = next(o for o in OP_DB if o.name == name)
    for s in _samples(op, "float64"):
        got = _half_call(gg, op, s, "float16")
        want = _call_converted(torch, op, s, lambda lib, arr: lib.tensor(arr).half().float())
        want = [("float16", to_numpy(o).astype(np.float16)) for o in want]
        assert _max_half_steps(got, want) <= 1, f"{name} {s}"


# reductions over a thousand bfloat16 or float16 elements: PyTorch accumulates in float32
# (NumPy's bfloat16 sum would give 256 for a thousand ones, its float16 cumsum drifts by
# tens of steps); input gradients included
_HALF_REDUCTIONS = {
    "sum": lambda L, x: x.sum(),
    "sum_dim": lambda L, x: x.sum(1),
    "sum_dtype": lambda L, x: L.sum(x.to(L.float32), 1, dtype=x.dtype),
    "mean": lambda L, x: x.mean(1),
    "cumsum": lambda L, x: x.cumsum(1),
    "norm": lambda L, x: x.norm(dim=1),
    "logsumexp": lambda L, x: L.logsumexp(x, 1),
    "var": lambda L, x: x.var(1),
    "softmax": lambda L, x: L.softmax(x, 1),
    "log_softmax": lambda L, x: L.log_softmax(x, 1),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (1000,)),
    "mse_loss": lambda L, x: L.nn.functional.mse_loss(x, x.flip(1)),
    "avg_pool2d": lambda L, x: L.nn.functional.avg_pool2d(x.reshape(1, 4, 40, 25), 5),
    "trace": lambda L, x: L.trace(x.reshape(-1, 100)[:100]),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(_HALF_REDUCTIONS))
def test_half_reductions_accumulate_in_float32(name, dtype):
    fn = _HALF_REDUCTIONS[name]
    x = np.random.default_rng(0).uniform(0.5, 1.5, (4, 1000))
    got = []
    for lib in (gg, torch):
        t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        r = fn(lib, t)
        cot = np.cos(np.arange(r.numel()) * 0.7).reshape(tuple(r.shape))
        (r.float() * lib.tensor(cot).float()).sum().backward()
        assert dtype_name(r) == dtype and dtype_name(t.grad) == dtype
        got.append([to_numpy(v.detach().float()) for v in (r, t.grad)])
    tol = _HALF_TOL[dtype]
    for g, w in zip(*got):   # within a rounding (of the largest value: cancellation)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * np.abs(w).max(), err_msg=name)
    if name == "sum":
        assert gg.ones(1000, dtype=gg.bfloat16).sum().item() == 1000


# number bounds of bfloat16 tensors, hit exactly by elements equal to the rounded bound
_BF16_BOUNDS = {
    "clamp_min": lambda L, x: L.clamp(x, min=0.301),
    "clamp_max": lambda L, x: L.clamp(x, max=0.2999),
    "clamp_both": lambda L, x: L.clamp(x, 0.301, 0.6),
    "clamp_min_fn": lambda L, x: L.clamp_min(x, 0.301),
    "clamp_max_fn": lambda L, x: L.clamp_max(x, 0.2999),
    "logit_eps": lambda L, x: L.logit(x, 0.301),
}


@pytest.mark.parametrize("name", list(_BF16_BOUNDS))
def test_bfloat16_gradient_masks_compare_in_bfloat16(name):
    """PyTorch compares a bfloat16 tensor with a number bound in bfloat16: an element equal to
    the rounded bound (0.30078125 for 0.301) is inside it, so its gradient passes."""
    grads = []
    for lib in (gg, torch):
        x = lib.tensor([0.30078125, 0.5, 0.2, 0.69921875]).to(lib.bfloat16).requires_grad_()
        _BF16_BOUNDS[name](lib, x).sum().backward()
        grads.append(to_numpy(x.grad.float()))
    np.testing.assert_array_equal(*grads, err_msg=name)


@pytest.mark.parametrize("batch", [1000, 3])
def test_bfloat16_broadcast_gradients_sum_in_float32(batch):
    """The gradient of a broadcast bfloat16 operand (a bias) is summed over the broadcast
    dims in float32 and rounded once, as PyTorch sums it (in bfloat16, a thousand ones
    would sum to 256)."""
    grads = []
    for lib in (gg, torch):
        b = lib.zeros(4, dtype=lib.bfloat16, requires_grad=True)
        c = lib.zeros(batch, 1, dtype=lib.bfloat16, requires_grad=True)
        x = lib.tensor(np.linspace(0.5, 1.5, batch * 4).reshape(batch, 4)).to(lib.bfloat16)
        (x * 1.5 + b + c).sum().backward()
        assert b.grad.dtype == lib.bfloat16 and c.grad.dtype == lib.bfloat16
        grads.append([to_numpy(g.float()) for g in (b.grad, c.grad)])
    for g, w in zip(*grads):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("op", [o for o in OP_DB if not o.grad or o.nondiff_outputs],
                         ids=lambda o: o.name)
def test_nondifferentiable_outputs(op):
    for s in _samples(op, "float64"):
        args, kwargs, ins = materialize(s, gg, "float64")
        outs = flat_outputs(op.call(gg, args, kwargs))
        for i, o in enumerate(outs):
            if not op.grad or i in op.nondiff_outputs:
                assert not o.requires_grad, f"{op.name} output {i} requires grad"
                assert o.grad_fn is None


def test_every_api_op_is_in_the_table():
    covered = set()
    for op in OP_DB:
        covered.add(op.name)
        covered.update(op.aliases)
    missing = [n for n in API_OPS if n not in covered]
    assert not missing, f"ops of api.md §3 missing from the op table: {missing}"


def test_every_api_op_has_its_inplace_variant_where_pytorch_has_one():
    import torch
    names = {n.split(".")[-1] for n in API_OPS if "." not in n or n.startswith("Tensor.")}
    missing = sorted(n + "_" for n in names
                     if hasattr(torch.Tensor, n + "_") and not hasattr(gg.Tensor, n + "_"))
    assert not missing, f"in-place variants PyTorch has that graphgrad lacks: {missing}"
