"""The checks every table of tests/numpy runs on one sample: ``f(np, *args)`` with
``np`` numpy and with graphgrad.numpy -- values and dtypes equal NumPy's, plain data gives
exactly NumPy's result, reverse-mode (vjp) and forward-mode (jvp) derivatives match
central finite differences (float64), and, when the sample names a torch version, the
gradients equal torch's."""
from __future__ import annotations

import numpy as np

import graphgrad
import graphgrad.numpy as gnp
from graphgrad.func import jvp, vjp, vmap

EPS = 1e-6


def flat(out):
    if isinstance(out, (tuple, list)):
        return [y for x in out for y in flat(x)]
    return [out]


def as_np(x):
    if isinstance(x, graphgrad.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def tensors(args):
    return [graphgrad.tensor(a) if isinstance(a, np.ndarray) else a for a in args]


def check_values(f, args):
    want = flat(f(np, *args))
    plain = flat(f(gnp, *args))   # NumPy data: NumPy's own result
    assert len(plain) == len(want)
    for p, w in zip(plain, want):
        assert type(p) is type(w)
        np.testing.assert_array_equal(p, w)
    got = flat(f(gnp, *tensors(args)))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, graphgrad.Tensor) or not isinstance(w, np.ndarray) or \
            w.dtype.kind not in "fc", type(g)
        g = as_np(g)
        assert g.shape == np.shape(w), (g.shape, np.shape(w))
        assert g.dtype == np.asarray(w).dtype, (g.dtype, np.asarray(w).dtype)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _diff_split(args):
    idx = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype == np.float64]
    def with_args(xs):
        full = list(args)
        for i, x in zip(idx, xs):
            full[i] = x
        return full
    return idx, with_args


def _numeric(f, args, idx, with_args, tangents):
    plus = [args[i] + EPS * t for i, t in zip(idx, tangents)]
    minus = [args[i] - EPS * t for i, t in zip(idx, tangents)]
    fp = flat(f(np, *with_args(plus)))
    fm = flat(f(np, *with_args(minus)))
    return [(np.asarray(a, np.float64) - np.asarray(b, np.float64)) / (2 * EPS)
            for a, b in zip(fp, fm)]


def check_grads(f, args, rng, torch_f=None, torch=None):
    idx, with_args = _diff_split(args)
    assert idx, "no float64 argument to differentiate"
    primals = [graphgrad.tensor(args[i]) for i in idx]
    consts = tensors(args)

    def g(*xs):
        full = list(consts)
        for i, x in zip(idx, xs):
            full[i] = x
        return tuple(o for o in flat(f(gnp, *full))
                     if isinstance(o, graphgrad.Tensor) and o.dtype.is_floating_point)

    tangents = [rng.standard_normal(args[i].shape) for i in idx]
    numeric = _numeric(f, args, idx, with_args, tangents)
    numeric = [n for n in numeric if n.dtype.kind == "f" and n.dtype == np.float64]
    # forward mode
    _, tan_out = jvp(g, tuple(primals), tuple(graphgrad.tensor(t) for t in tangents))
    assert len(tan_out) == len(numeric)
    for got, want in zip(tan_out, numeric):
        np.testing.assert_allclose(as_np(got), want, rtol=1e-5, atol=1e-6)
    # reverse mode: <u, J v> both ways
    outs, vjp_fn = vjp(g, *primals)
    cots = [rng.standard_normal(tuple(o.shape)) for o in outs]
    vjps = vjp_fn(tuple(graphgrad.tensor(c) for c in cots))
    lhs = sum(float(np.sum(as_np(v) * t)) for v, t in zip(vjps, tangents))
    rhs = sum(float(np.sum(c * n)) for c, n in zip(cots, numeric))
    assert abs(lhs - rhs) <= 1e-5 * (1 + abs(rhs)), (lhs, rhs)
    _check_second_order(g, primals, cots, tangents)
    if torch_f is not None:
        tp = [torch.tensor(args[i], requires_grad=True) for i in idx]
        tfull = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        for i, t in zip(idx, tp):
            tfull[i] = t
        touts = flat(torch_f(torch, *tfull))
        touts = [o for o in touts if o.dtype.is_floating_point]
        assert len(touts) == len(cots)
        tg = torch.autograd.grad(touts, tp, [torch.tensor(c) for c in cots], allow_unused=True)
        for ours, theirs in zip(vjps, tg):
            theirs = np.zeros(tuple(ours.shape)) if theirs is None else theirs.numpy()
            np.testing.assert_allclose(as_np(ours), theirs, rtol=1e-9, atol=1e-10)


def _check_second_order(g, primals, cots, tangents):
    """Forward-over-reverse: the JVP of ``x -> vjp(g, x)(u)`` along ``v`` equals the
    central difference of that VJP (a Hessian-vector product for a scalar ``g``)."""
    u = tuple(graphgrad.tensor(c) for c in cots)

    def vjp_at(*xs):
        return vjp(g, *xs)[1](u)

    _, hv = jvp(vjp_at, tuple(primals), tuple(graphgrad.tensor(t) for t in tangents))
    h = 1e-5
    plus = vjp_at(*[p + h * graphgrad.tensor(t) for p, t in zip(primals, tangents)])
    minus = vjp_at(*[p - h * graphgrad.tensor(t) for p, t in zip(primals, tangents)])
    for got, a, b in zip(hv, plus, minus):
        want = (as_np(a) - as_np(b)) / (2 * h)
        np.testing.assert_allclose(as_np(got), want, rtol=1e-4, atol=1e-5)


def check_vmap(f, args):
    """``vmap`` over a batch of two perturbed copies of the float64 arguments gives each
    example's result (the functions run on BatchedTensors through the batching rules)."""
    idx = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype == np.float64]
    consts = tensors(args)
    batches = [np.stack([args[i], args[i] * 0.9 + 0.05]) for i in idx]

    def g(*xs):
        full = list(consts)
        for i, x in zip(idx, xs):
            full[i] = x
        return tuple(o for o in flat(f(gnp, *full)) if isinstance(o, graphgrad.Tensor))

    got = vmap(g)(*[graphgrad.tensor(b) for b in batches])
    for k in range(2):
        full = list(args)
        for i, b in zip(idx, batches):
            full[i] = b[k]
        want = [w for w in flat(f(gnp, *tensors(full))) if isinstance(w, graphgrad.Tensor)]
        assert len(want) == len(got)
        for gg, w in zip(got, want):
            np.testing.assert_allclose(as_np(gg)[k], as_np(w), rtol=1e-12, atol=1e-12)
