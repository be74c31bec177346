"""``graphgrad.autocast`` against ``torch.autocast`` on the CPU: a training step's values,
nesting, state restored on exit and on errors, per-thread state, the weight-cast cache,
the promote policy, unsupported dtypes and devices, the deprecated spellings, custom_fwd /
custom_bwd, and seed 003 §10.4's mixed-precision loop (the op table is covered in
test_autocast_ops.py)."""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both, torch

HALF = ["bfloat16", "float16"]


def _np(t):
    return (t.float() if str(t.dtype).endswith(("bfloat16", "float16")) else t).detach().numpy()


def _casts(*outs):
    """The distinct ToCopyBackward0 nodes (autocast's casts) in the outputs' graph."""
    seen, stack, n = set(), [o.grad_fn for o in outs], 0
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        n += type(fn).__name__ == "ToCopyBackward0"
        stack.extend(f for f, _ in fn.next_functions)
    return n


# ------------------------------------------------------------------ a training step

def _step(lib, dt, seed=0):
    rng = np.random.default_rng(seed)
    w1 = lib.tensor(rng.standard_normal((16, 8)).astype(np.float32) * 0.3, requires_grad=True)
    b1 = lib.tensor(rng.standard_normal(16).astype(np.float32) * 0.1, requires_grad=True)
    w2 = lib.tensor(rng.standard_normal((4, 16)).astype(np.float32) * 0.3, requires_grad=True)
    b2 = lib.tensor(rng.standard_normal(4).astype(np.float32) * 0.1, requires_grad=True)
    x = lib.tensor(rng.standard_normal((32, 8)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 4, 32))
    F = lib.nn.functional
    with lib.autocast("cpu", dtype=getattr(lib, dt)):
        h = F.relu(F.linear(x, w1, b1))
        logits = F.linear(h, w2, b2)
        loss = F.cross_entropy(logits, y)
    loss.backward()
    return h, logits, loss, [w1, b1, w2, b2]


@pytest.mark.parametrize("dt", HALF)
def test_linear_relu_cross_entropy_step_matches_torch(dt):
    gh, glog, gloss, gparams = _step(gg, dt)
    th, tlog, tloss, tparams = _step(torch, dt)
    tol = {"bfloat16": 2e-2, "float16": 3e-3}[dt]
    for g, t in ((gh, th), (glog, tlog), (gloss, tloss)):
        assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(g), _np(t), rtol=tol, atol=tol)
    assert str(gloss.dtype) == "graphgrad.float32"       # cross_entropy runs in float32
    assert str(glog.dtype) == f"graphgrad.{dt}"
    for g, t in zip(gparams, tparams):
        assert g.grad.dtype == gg.float32 and t.grad.dtype == torch.float32
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=5 * tol, atol=tol)
    # the graph: the same casts (ToCopyBackward0) as PyTorch's
    assert _casts(gloss) == _casts(tloss)
    assert type(gloss.grad_fn).__name__ == type(tloss.grad_fn).__name__


# ------------------------------------------------------------------ nesting and state

def _nesting(lib):
    a = lib.ones(2, 2)
    out = []
    with lib.autocast("cpu"):
        out.append(lib.mm(a, a).dtype)
        with lib.autocast("cpu", enabled=False):
            out.append(lib.mm(a, a).dtype)
            out.append(lib.is_autocast_enabled("cpu"))
            with lib.autocast("cpu", dtype=lib.float16):
                out.append(lib.mm(a, a).dtype)
                out.append(lib.get_autocast_dtype("cpu"))
            out.append(lib.get_autocast_dtype("cpu"))
        out.append(lib.mm(a, a).dtype)
        out.append(lib.is_autocast_enabled("cpu"))
        out.append(lib.is_autocast_enabled())          # (no argument: CUDA's)
    out.append(lib.mm(a, a).dtype)
    out.append(lib.is_autocast_enabled("cpu"))
    return out


def test_nesting_disable_and_dtype_change():
    run_both(_nesting)


def _restored_on_error(lib):
    a = lib.ones(2, 2)
    try:
        with lib.autocast("cpu", dtype=lib.float16, cache_enabled=False):
            raise KeyError("inside")
    except KeyError:
        pass
    return [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"),
            lib.is_autocast_cache_enabled(), lib.mm(a, a).dtype]


def test_state_restored_on_exception():
    run_both(_restored_on_error)
    from graphgrad._core.state import ALL_THREADS, tls
    assert tls.interposers == () and ALL_THREADS.plain


def test_state_is_per_thread():
    seen = {}

    def other():
        seen["enabled"] = gg.is_autocast_enabled("cpu")
        seen["dtype"] = gg.mm(gg.ones(2, 2), gg.ones(2, 2)).dtype

    with gg.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert gg.mm(gg.ones(2, 2), gg.ones(2, 2)).dtype == gg.bfloat16
    assert seen == {"enabled": False, "dtype": gg.float32}


def _set_functions(lib):
    out = []
    lib.set_autocast_enabled("cpu", True)
    try:
        out.append(lib.mm(lib.ones(1, 1), lib.ones(1, 1)).dtype)
        lib.set_autocast_dtype("cpu", lib.float16)
        out.append(lib.mm(lib.ones(1, 1), lib.ones(1, 1)).dtype)
    finally:
        lib.set_autocast_enabled("cpu", False)
        lib.set_autocast_dtype("cpu", lib.bfloat16)
    out.append(lib.mm(lib.ones(1, 1), lib.ones(1, 1)).dtype)
    lib.set_autocast_cache_enabled(False)
    out.append(lib.is_autocast_cache_enabled())
    lib.set_autocast_cache_enabled(True)
    out.append(lib.autocast_increment_nesting())
    out.append(lib.autocast_decrement_nesting())
    lib.clear_autocast_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out += [lib.is_autocast_cpu_enabled(), lib.get_autocast_cpu_dtype(),
                lib.get_autocast_dtype("cuda"), lib.get_autocast_dtype("xpu")]
    out.append(lib.amp.is_autocast_available("cpu"))
    out.append(lib.amp.is_autocast_available("cuda"))
    return out


def test_set_get_functions():
    run_both(_set_functions)


def test_deprecated_cpu_queries_warn():
    for lib in (gg, torch):
        with pytest.warns(DeprecationWarning, match="is_autocast_enabled"):
            lib.is_autocast_cpu_enabled()
        with pytest.warns(DeprecationWarning, match="get_autocast_dtype"):
            lib.get_autocast_cpu_dtype()


# ------------------------------------------------------------------ policies

def _policies(lib):
    bf, f32, f64 = (lib.ones(2, 2, dtype=d) for d in (lib.bfloat16, lib.float32, lib.float64))
    i = lib.ones(2, 2, dtype=lib.int64)
    out = []
    with lib.autocast("cpu"):
        out.append(lib.cat([bf, f32]).dtype)      # promote: float32 wins
        out.append(lib.cat([bf, bf]).dtype)
        out.append(lib.stack([f32, bf]).dtype)
        out.append(lib.cat([f64, bf]).dtype)      # float64 is not cast
        out.append(lib.mm(f64, f64).dtype)        # lower precision: float64 is not cast
        out.append(lib.mm(bf, f32).dtype)
        out.append(lib.sin(bf).dtype)             # on no list: input dtypes
        out.append(lib.sin(f32).dtype)
        out.append((bf + f32).dtype)
        out.append(lib.prod(bf).dtype)            # fp32
        out.append(lib.nn.functional.mse_loss(bf, bf).dtype)
        out.append(lib.nn.functional.linear(f32, f32, f32).dtype)
        out.append(lib.matmul(i, i).dtype)        # integers are not cast
        out.append((f32 @ f32).dtype)
        out.append(lib.einsum("ij,jk->ik", f32, f32).dtype)
        out.append(lib.einsum("ij,jk->ijk", f32, f32).dtype)
        # operands of different dtypes: cast as PyTorch's bmm (contraction) / mul would
        out.append(lib.einsum("ij,jk->ik", bf, f32).dtype)
        out.append(lib.einsum("ij,jk->ijk", bf, f32).dtype)
        out.append(lib.einsum("ij,jk,k->i", f32, bf, f32[0]).dtype)
        out.append(lib.einsum(bf, [0, 1], f32, [1, 2]).dtype)
        out.append(lib.tensordot(bf, bf, 1).dtype)
        out.append(lib.addmm(f32, bf, f32).dtype)
        out.append(lib.bmm(bf[None], f32[None]).dtype)
        out.append(bf.mm(f32).dtype)
    return out


def test_tensordot_of_different_dtypes_raises_under_autocast_too():
    def prog(lib):
        with lib.autocast("cpu"):
            return lib.tensordot(lib.ones(2, 2, dtype=lib.bfloat16), lib.ones(2, 2), 1)
    run_both(prog)


def test_policies():
    run_both(_policies)


def test_promote_of_the_other_half_type_raises_as_torch():
    def prog(lib):
        h = lib.ones(2, dtype=lib.float16)
        with lib.autocast("cpu"):
            return lib.cat([h, h])
    run_both(prog)


# ------------------------------------------------------------------ the weight-cast cache

def _cache(lib, cache_enabled):
    F = lib.nn.functional
    w = lib.ones(3, 2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    x = lib.ones(4, 2)
    with lib.autocast("cpu", cache_enabled=cache_enabled):
        o1, o2 = F.linear(x, w, b), F.linear(x, w, b)
        o3 = lib.mm(w, w.t())
        wv = w[:2]                                  # a view: never cached
        o4, o5 = lib.mm(wv, wv.t()), lib.mm(wv, wv.t())
        with lib.autocast("cpu"):                   # nested regions share the cache
            o6 = F.linear(x, w, b)
    with lib.autocast("cpu", cache_enabled=cache_enabled):
        o7 = F.linear(x, w, b)                      # a new region: a new cast
    return [_casts(o1, o2), _casts(o1, o3), _casts(o4, o5), _casts(o1, o6), _casts(o1, o7)]


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_weight_cast_cache(cache_enabled):
    ours, theirs = run_both(lambda lib: _cache(lib, cache_enabled))
    if cache_enabled:
        assert ours == [2, 3, 4, 2, 4]


def test_cache_is_cleared_on_exit():
    w = gg.ones(3, 3, requires_grad=True)
    from graphgrad.amp.autocast_mode import _state
    with gg.autocast("cpu"):
        gg.mm(w, w)
        assert len(_state.cache) == 1
        with gg.autocast("cpu", enabled=False):
            pass
        assert len(_state.cache) == 1
    assert not _state.cache


def test_casts_are_differentiable_and_grads_come_back_float32():
    def prog(lib):
        w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        with lib.autocast("cpu"):
            y = lib.mm(x, w)
        y.sum().backward()
        return y, y.grad_fn.next_functions[1][0], w.grad, x.grad
    run_both(prog)


# ------------------------------------------------------------------ bad input, devices

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_unsupported_dtype_warns_and_disables(dtype):
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of "
                                             "torch.bfloat16, torch.float16") as rec:
            ac = lib.autocast("cpu", dtype=getattr(lib, dtype))
        with ac:
            assert not lib.is_autocast_enabled("cpu")
            assert lib.mm(lib.ones(1, 1), lib.ones(1, 1)).dtype == lib.float32
        assert "Disabling autocast" in str(rec[0].message)


def test_cuda_warns_and_disables():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            ac = lib.autocast("cuda")
        with ac:
            assert not lib.is_autocast_enabled("cuda")
            assert lib.get_autocast_dtype("cuda") == lib.float16
            assert lib.mm(lib.ones(1, 1), lib.ones(1, 1)).dtype == lib.float32


def test_bad_device_types():
    run_both(lambda lib: lib.autocast("foo"))
    run_both(lambda lib: lib.autocast(lib.device("cpu")))
    run_both(lambda lib: lib.get_autocast_dtype("bar"))
    run_both(lambda lib: lib.amp.is_autocast_available("cpu"))
    run_both(lambda lib: lib.amp.is_autocast_available("meta"))


def test_decorator_and_bad_decorator_use():
    def prog(lib):
        @lib.autocast("cpu")
        def f(a):
            return lib.mm(a, a), lib.is_autocast_enabled("cpu")
        r = f(lib.ones(2, 2))
        return r, lib.is_autocast_enabled("cpu")
    run_both(prog)
    run_both(lambda lib: lib.autocast("cpu")(3))


def test_cpu_amp_autocast_is_deprecated():
    for lib in (gg, torch):
        with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cpu', args...\)"):
            ac = lib.cpu.amp.autocast()
        with ac:
            assert lib.is_autocast_enabled("cpu")
            assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        with pytest.warns(FutureWarning):
            with lib.cpu.amp.autocast(dtype=lib.float16):
                assert lib.mm(lib.ones(1, 1), lib.ones(1, 1)).dtype == lib.float16


def test_amp_autocast_is_torch_autocast():
    assert gg.amp.autocast is gg.autocast


# ------------------------------------------------------------------ custom Functions

def _custom(lib, cast_inputs):
    class MyMM(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.state = lib.is_autocast_enabled("cpu")
            return a.mm(b)

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            ctx.bwd_state = lib.is_autocast_enabled("cpu")
            return grad.mm(b.t()), a.t().mm(grad)

    a = lib.ones(2, 2, requires_grad=True)
    with lib.autocast("cpu"):
        y = MyMM.apply(a, a)
    y.sum().backward()
    return y.dtype, a.grad.dtype, y.grad_fn.state if hasattr(y.grad_fn, "state") else None


@pytest.mark.parametrize("cast_inputs", [None, "float32"])
def test_custom_fwd_bwd(cast_inputs):
    run_both(lambda lib: _custom(lib, None if cast_inputs is None else lib.float32))


def test_custom_fwd_needs_a_str_device_type():
    run_both(lambda lib: lib.amp.custom_fwd(device_type=1))
    run_both(lambda lib: lib.amp.custom_bwd(device_type=None))


# ------------------------------------------------------------------ seed 003 §10.4

def test_seed_003_mixed_precision_loop_on_cpu():
    """Seed 003 §10.4's loop with device_type="cpu" (and the GradScaler when it exists)."""
    def loop(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 3))
        rng = np.random.default_rng(1)
        w = [lib.tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3)
             for p in model.parameters()]
        with lib.no_grad():
            for p, v in zip(model.parameters(), w):
                p.copy_(v)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        criterion = lib.nn.CrossEntropyLoss()
        scaler = lib.amp.GradScaler("cpu") if hasattr(lib.amp, "GradScaler") and \
            hasattr(gg.amp, "GradScaler") else None
        dataloader = [(lib.tensor(rng.standard_normal((4, 8)).astype(np.float32)),
                       lib.tensor(rng.integers(0, 3, 4))) for _ in range(3)]
        losses = []
        for x, y in dataloader:
            optimizer.zero_grad()
            with lib.autocast(device_type="cpu", dtype=lib.bfloat16):
                output = model(x)
                loss = criterion(output, y)
            assert output.dtype == lib.bfloat16 and loss.dtype == lib.float32
            if scaler is None:
                loss.backward()
                optimizer.step()
            else:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            losses.append(loss.item())
        return losses, [p.detach().numpy().copy() for p in model.parameters()]

    (gl, gp), (tl, tp) = loop(gg), loop(torch)
    np.testing.assert_allclose(gl, tl, rtol=3e-2, atol=3e-2)
    for g, t in zip(gp, tp):
        np.testing.assert_allclose(g, t, rtol=3e-2, atol=3e-2)


# ------------------------------------------------------------------ nn modules

MODULES = {
    "LSTM": lambda nn: nn.LSTM(4, 3, batch_first=True),
    "LSTM-2-layers-bidirectional": lambda nn: nn.LSTM(4, 3, num_layers=2, bidirectional=True),
    "LSTM-proj": lambda nn: nn.LSTM(4, 3, proj_size=2),
    "GRU": lambda nn: nn.GRU(4, 3),
    "RNN": lambda nn: nn.RNN(4, 3),
    "LSTMCell": lambda nn: nn.LSTMCell(4, 3),
    "MultiheadAttention": lambda nn: nn.MultiheadAttention(4, 2, batch_first=True),
    "TransformerEncoderLayer": lambda nn: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0,
                                                                     batch_first=True),
    "Linear-LayerNorm": lambda nn: nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3)),
    "Linear-BatchNorm": lambda nn: nn.Sequential(nn.Flatten(0, 1), nn.Linear(4, 3),
                                                 nn.BatchNorm1d(3)),
    "Linear-GroupNorm": lambda nn: nn.Sequential(nn.Linear(4, 6), nn.GroupNorm(1, 5)),
    "Conv1d-GELU": lambda nn: nn.Sequential(nn.Conv1d(2, 3, 3), nn.GELU()),
}


def _module_dtypes(lib, name, dt):
    lib.manual_seed(0)
    m = MODULES[name](lib.nn)
    x = lib.tensor(np.random.default_rng(0).standard_normal((2, 5, 4)).astype(np.float32))
    if name.startswith("Conv1d"):
        x = x[:, :2]
    with lib.autocast("cpu", dtype=getattr(lib, dt)):
        if name == "MultiheadAttention":
            out = m(x, x, x)
        elif name == "LSTMCell":
            out = m(x[0])
        else:
            out = m(x)
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) for o in
            (o if isinstance(o, tuple) else (o,)) if o is not None]
    sum(o.float().sum() for o in outs).backward()
    return ([str(o.dtype).split(".")[-1] for o in outs],
            [str(p.grad.dtype).split(".")[-1] for p in m.parameters() if p.grad is not None])


@pytest.mark.filterwarnings("ignore:LSTM with projections")
@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("dt", HALF)
def test_module_output_and_gradient_dtypes(name, dt):
    if name.startswith("LSTM") and name != "LSTM-proj" and dt == "float16":
        pytest.skip("PyTorch's oneDNN LSTM has no float16 primitive on every CPU")
    assert _module_dtypes(gg, name, dt) == _module_dtypes(torch, name, dt)


@pytest.mark.parametrize("dt", HALF)
def test_layer_norm_of_a_half_input_with_float32_parameters(dt):
    """PyTorch's "mixed type" layer_norm (an autocast Linear's output into a float32
    LayerNorm): the result in the input's dtype, float32 parameter gradients."""
    rng = np.random.default_rng(3)
    xa, wa, ga = (rng.standard_normal(s).astype(np.float32) for s in ((4, 6), 6, (4, 6)))
    res = []
    for lib in (gg, torch):
        half = getattr(lib, dt)
        x = lib.tensor(xa).to(half).requires_grad_()
        w, b = lib.tensor(wa, requires_grad=True), lib.zeros(6, requires_grad=True)
        y = lib.nn.functional.layer_norm(x, (6,), w, b)
        y.backward(lib.tensor(ga).to(half))
        res.append([y, x.grad, w.grad, b.grad])
    tol = {"bfloat16": 3e-2, "float16": 4e-3}[dt]
    for g, t in zip(*res):
        assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(g), _np(t), rtol=tol, atol=tol)
    run_both(lambda lib: lib.nn.functional.layer_norm(      # bias in the half type: error
        lib.ones(2, 3, dtype=getattr(lib, dt)), (3,), lib.ones(3), lib.zeros(3).to(
            getattr(lib, dt))))


def test_bad_argument_types():
    def enter_with_str_dtype(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ac = lib.autocast("cpu", dtype="bfloat16")
        with ac:
            pass
    run_both(enter_with_str_dtype)
    run_both(lambda lib: [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")])
    run_both(lambda lib: lib.set_autocast_enabled("cpu", "yes"))
    run_both(lambda lib: lib.set_autocast_cache_enabled(1))
    run_both(lambda lib: lib.set_autocast_dtype("cpu", "half"))
