"""GradScaler against ``torch.amp.GradScaler("cpu")``: the scale and growth-tracker trajectory
through injected infs and NaNs, parameters after SGD/Adam steps, ``unscale_`` + clipping,
several optimizers, state_dict / pickle round trips, the kernels, and every misuse error."""
import pickle
import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, torch

RNG = np.random.default_rng(19)
W0 = RNG.standard_normal((4, 3))
B0 = RNG.standard_normal(3)
XS = RNG.standard_normal((40, 5, 4))
# step -> how the gradients go bad: loss times inf, loss times nan, one grad element inf/nan
BAD = {2: "inf_loss", 3: "inf_loss", 7: "nan_grad", 12: "inf_grad", 13: "nan_loss",
       21: "inf_grad", 22: "inf_grad", 23: "inf_grad"}


def _params(lib, dtype):
    dt = getattr(lib, dtype)
    return (lib.tensor(W0, dtype=dt, requires_grad=True),
            lib.tensor(B0, dtype=dt, requires_grad=True))


def _train(lib, opt_name="SGD", dtype="float32", steps=30, clip_every=0, bad=BAD,
           scaler_kw=None):
    w, b = _params(lib, dtype)
    if opt_name == "SGD":
        opt = lib.optim.SGD([w, b], lr=0.01, momentum=0.9)
    else:
        opt = lib.optim.Adam([w, b], lr=0.01)
    kw = {"init_scale": 2.0 ** 10, "growth_interval": 3}
    kw.update(scaler_kw or {})
    scaler = lib.amp.GradScaler("cpu", **kw)
    record = []
    for i in range(steps):
        opt.zero_grad()
        x = lib.tensor(XS[i], dtype=getattr(lib, dtype))
        loss = ((x @ w + b) ** 2).mean()
        how = bad.get(i, "")
        if how == "inf_loss":
            loss = loss * float("inf")
        elif how == "nan_loss":
            loss = loss * float("nan")
        scaler.scale(loss).backward()
        if how in ("inf_grad", "nan_grad"):
            with lib.no_grad():
                w.grad[1, 2] = float("inf") if how == "inf_grad" else float("nan")
        if clip_every and i % clip_every == 0:
            scaler.unscale_(opt)
            lib.nn.utils.clip_grad_norm_([w, b], 1.0)
        ret = scaler.step(opt)
        found = sum(v.item() for v in scaler._found_inf_per_device(opt).values())
        scaler.update()
        record.append((scaler.get_scale(), scaler._get_growth_tracker(), found, ret))
    return record, w.detach().clone(), b.detach().clone(), scaler.state_dict()


def _exact_same(ours, theirs):
    """The scale trajectory must be bit-identical, not merely close."""
    assert [r[:3] for r in ours[0]] == [r[:3] for r in theirs[0]]


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trajectory_through_infs_and_nans(opt_name, dtype):
    ours, theirs = run_both(lambda lib: _train(lib, opt_name, dtype))
    _exact_same(ours, theirs)
    scales = [r[0] for r in ours[0]]
    steps = list(zip(scales, scales[1:]))
    assert any(b < a for a, b in steps) and any(b > a for a, b in steps)  # backed off, grew


def test_trajectory_with_unscale_and_clipping():
    ours, theirs = run_both(lambda lib: _train(lib, "SGD", "float64", clip_every=2))
    _exact_same(ours, theirs)


def test_growth_that_overflows_float32_keeps_the_scale():
    def prog(lib):
        return _train(lib, steps=4, bad={}, scaler_kw={"init_scale": 3e38,
                                                       "growth_interval": 1})[0]
    ours, theirs = run_both(prog)
    assert [r[:3] for r in ours] == [r[:3] for r in theirs]
    assert ours[-1][0] == float(np.float32(3e38))


def test_default_growth_interval_and_factors():
    def prog(lib):
        s = lib.amp.GradScaler("cpu")
        return (s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(),
                s.get_growth_interval(), s.is_enabled(), s._get_growth_tracker(),
                s.state_dict())
    run_both(prog)


def test_setters_change_the_trajectory():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        s = lib.amp.GradScaler("cpu", init_scale=8.0, growth_interval=5)
        s.set_growth_factor(4.0)
        s.set_backoff_factor(0.25)
        s.set_growth_interval(1)
        out = []
        for bad in (False, False, True, False):
            opt.zero_grad()
            loss = (w * w).sum() * (float("inf") if bad else 1.0)
            s.scale(loss).backward()
            s.step(opt)
            s.update()
            out.append(s.get_scale())
        return out, s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval(), w
    run_both(prog)


# ------------------------------------------------------------------ scale()


def test_scale_tensor_and_nested_iterables():
    def prog(lib):
        s = lib.amp.GradScaler("cpu", init_scale=4.0)
        a = lib.tensor([1.0, 2.0], dtype=lib.float64)
        b = lib.tensor([3.0], dtype=lib.float32)
        single = s.scale(a)
        nested = s.scale([a, (b, [a, b])])
        lazy = s.scale(iter([a, b]))
        kinds = (type(nested).__name__, type(nested[1]).__name__, type(nested[1][1]).__name__,
                 type(lazy).__name__)
        return single, nested, list(lazy), kinds
    run_both(prog)


def test_scale_keeps_the_graph_and_grad_is_scaled():
    def prog(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        s = lib.amp.GradScaler("cpu", init_scale=16.0)
        out = s.scale((w * 3).sum())
        out.backward()
        return out, w.grad
    run_both(prog)


@pytest.mark.parametrize("bad", [3, "abc", None])
def test_scale_rejects_non_tensors(bad):
    def prog(lib):
        s = lib.amp.GradScaler("cpu")
        return s.scale([lib.ones(1), bad]) if bad != "abc" else s.scale(bad)
    if bad == "abc":  # torch recurses into str forever; graphgrad rejects it
        with pytest.raises(ValueError, match="Tensor or an iterable"):
            graphgrad.amp.GradScaler("cpu").scale("abc")
        return
    run_both(prog)


def test_disabled_scaler_is_a_pass_through():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.5)
        s = lib.amp.GradScaler("cpu", enabled=False, growth_factor=0.5)  # not validated
        loss = (w * w).sum()
        same = s.scale(loss) is loss
        loss.backward()
        s.unscale_(opt)
        ret = s.step(opt)
        s.update()
        s.load_state_dict({})
        return same, ret, w, s.get_scale(), s.state_dict(), s.is_enabled(), \
            s._get_growth_tracker()
    run_both(prog)


# --------------------------------------------------------------- step()


class _Recorder:
    """A stand-in optimizer: step() returns what it was called with."""

    def __init__(self, params):
        self.param_groups = [{"params": list(params)}]
        self.calls = 0

    def step(self, *args, **kwargs):
        self.calls += 1
        return ("stepped", args, kwargs)


def test_step_returns_the_optimizers_value_and_forwards_arguments():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = _Recorder([w])
        s = lib.amp.GradScaler("cpu")
        s.scale((w * w).sum()).backward()
        ret = s.step(opt, 1, lr=2)
        s.update()
        s.scale((w * w).sum() * float("nan")).backward()
        skipped = s.step(opt, 1)
        s.update()
        return ret, skipped, opt.calls, s.get_scale()
    run_both(prog)


def test_step_with_positional_closure_runs_it():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        s = lib.amp.GradScaler("cpu")

        def closure():
            return lib.tensor(7.0)
        s.scale((w * w).sum()).backward()
        ret = s.step(opt, closure)
        s.update()
        return ret, w
    run_both(prog)


def test_two_optimizers_one_with_inf():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0], requires_grad=True)
        oa, ob = lib.optim.SGD([a], lr=0.1), lib.optim.SGD([b], lr=0.1)
        s = lib.amp.GradScaler("cpu", init_scale=2.0 ** 8, growth_interval=1)
        out = []
        for i in range(4):
            oa.zero_grad()
            ob.zero_grad()
            loss_a = (a * a).sum()
            loss_b = (b * b).sum() * (float("inf") if i == 1 else 1.0)
            s.scale(loss_a + loss_b).backward()
            s.step(oa)
            s.step(ob)
            s.update()
            out.append((s.get_scale(), a.detach().clone(), b.detach().clone()))
        return out
    run_both(prog)


def test_params_without_grad_are_skipped():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        unused = lib.tensor([5.0], requires_grad=True)
        opt = lib.optim.SGD([a, unused], lr=0.1)
        s = lib.amp.GradScaler("cpu")
        s.scale((a * a).sum()).backward()
        s.step(opt)
        s.update()
        return a, unused, unused.grad
    run_both(prog)


def test_unscale_divides_the_grads_once():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        s = lib.amp.GradScaler("cpu", init_scale=3.0)  # 1/3 is inexact in float32
        s.scale((w * w).sum()).backward()
        scaled = w.grad.clone()
        s.unscale_(opt)
        found = s._found_inf_per_device(opt)
        return scaled, w.grad, [str(d) for d in found], list(found.values())
    ours, theirs = run_both(prog)
    # PyTorch multiplies by the float32 reciprocal of the scale
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


# ---------------------------------------------------------------- errors


def _ready(lib, grads=True, dtype=None):
    w = lib.tensor([1.0, 2.0], dtype=dtype or lib.float32, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    s = lib.amp.GradScaler("cpu")
    loss = s.scale((w * w).sum())
    if grads:
        loss.backward()
    return w, opt, s


MISUSE = {
    "unscale twice": lambda lib: (lambda w, o, s: (s.unscale_(o), s.unscale_(o)))(*_ready(lib)),
    "unscale after step": lambda lib: (lambda w, o, s: (s.step(o), s.unscale_(o)))(*_ready(lib)),
    "step twice": lambda lib: (lambda w, o, s: (s.step(o), s.step(o)))(*_ready(lib)),
    "step before scale": lambda lib: lib.amp.GradScaler("cpu").step(
        lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)),
    "unscale before scale": lambda lib: lib.amp.GradScaler("cpu").unscale_(
        lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)),
    "update before scale": lambda lib: lib.amp.GradScaler("cpu").update(),
    "update without step": lambda lib: _ready(lib)[2].update(),
    "step without grads": lambda lib: (lambda w, o, s: s.step(o))(*_ready(lib, grads=False)),
    "closure kwarg": lambda lib: (lambda w, o, s: s.step(o, closure=lambda: 0))(*_ready(lib)),
    "fp16 grads": lambda lib: (lambda w, o, s: s.step(o))(*_ready(lib, dtype=lib.float16)),
    "growth factor": lambda lib: lib.amp.GradScaler("cpu", growth_factor=1.0),
    "backoff factor": lambda lib: lib.amp.GradScaler("cpu", backoff_factor=1.0),
    "empty state dict": lambda lib: lib.amp.GradScaler("cpu").load_state_dict({}),
    "pickle mid-iteration": lambda lib: (lambda w, o, s: (s.unscale_(o), pickle.dumps(s)))(
        *_ready(lib)),
    "new_scale requiring grad": lambda lib: (lambda w, o, s: (s.step(o), s.update(
        lib.tensor(2.0, requires_grad=True))))(*_ready(lib)),
    "new_scale of two elements": lambda lib: (lambda w, o, s: (s.step(o), s.update(
        lib.tensor([2.0, 3.0]))))(*_ready(lib)),
    "new_scale int": lambda lib: (lambda w, o, s: (s.step(o), s.update(4)))(*_ready(lib)),
}


@pytest.mark.parametrize("case", list(MISUSE))
def test_misuse_raises_like_torch(case):
    ours, _ = run_both(MISUSE[case])
    assert type(ours).__name__ == "Raised", case


def test_misuse_leaves_the_grads_unchanged():
    w = graphgrad.tensor([1.0, 2.0], dtype=graphgrad.float16, requires_grad=True)
    v = graphgrad.tensor([1.0], requires_grad=True)
    opt = graphgrad.optim.SGD([v, w], lr=0.1)
    s = graphgrad.amp.GradScaler("cpu", init_scale=4.0)
    s.scale((w.float() * w.float()).sum() + v.sum()).backward()
    with pytest.raises(ValueError, match="FP16"):
        s.step(opt)
    assert v.grad.tolist() == [4.0]  # not unscaled half-way


def test_error_messages_name_the_fix():
    s = graphgrad.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match=r"step.*scaler\.scale\(loss"):
        s.step(graphgrad.optim.SGD([graphgrad.ones(1, requires_grad=True)], lr=0.1))
    w, opt, s = _ready(graphgrad)
    s.step(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last "
                                           r"update\(\)"):
        s.step(opt)
    with pytest.raises(AttributeError, match="float"):
        s.update(4)


# ----------------------------------------------------- state and pickling


def test_state_dict_round_trip_continues_the_trajectory():
    def prog(lib):
        record, w, b, state = _train(lib, "SGD", "float64", steps=14)
        fresh = lib.amp.GradScaler("cpu")
        fresh.load_state_dict(state)
        before_scale = (fresh.get_scale(), fresh._get_growth_tracker(), fresh.state_dict())
        # and into a scaler whose scale tensor already exists
        used = lib.amp.GradScaler("cpu", init_scale=2.0)
        used.scale(lib.ones(1))
        used.load_state_dict(state)
        return state, before_scale, used.state_dict()
    run_both(prog)


def test_pickle_round_trip(lib):
    w, opt, s = _ready(lib)
    s.step(opt)
    s.update(32.0)
    clone = pickle.loads(pickle.dumps(s))
    assert clone.state_dict() == s.state_dict()
    assert clone._scale is None and clone.get_scale() == 32.0
    state = s.__getstate__()
    assert state["_scale"] is None and state["_init_scale"] == 32.0


def test_update_with_new_scale():
    def prog(lib):
        w, opt, s = _ready(lib)
        s.step(opt)
        s.update(0.1)  # a float, rounded to float32
        a = s.get_scale()
        s.scale((w * w).sum()).backward()
        s.step(opt)
        t = lib.tensor(3.5, dtype=lib.float64)
        s.update(t)
        t.fill_(9.0)  # copied, not aliased
        return a, s.get_scale(), s._get_growth_tracker()
    run_both(prog)


# --------------------------------------------------------------- kernels


def test_kernels_match_torch():
    def prog(lib):
        grads = [lib.tensor([1.0, 2.0, 3.0]), lib.tensor([4.0], dtype=lib.float64),
                 lib.tensor([float("inf"), 1.0])]
        found = lib.zeros((), dtype=lib.float32)
        inv = lib.tensor(0.25, dtype=lib.float32)
        lib._amp_foreach_non_finite_check_and_unscale_(grads[:2], found, inv)
        clean = found.item()
        lib._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
        scale = lib.tensor(8.0, dtype=lib.float32)
        tracker = lib.zeros((), dtype=lib.int32)
        traj = []
        for f in (0.0, 0.0, 1.0, 0.0, 0.0, 0.0):
            lib._amp_update_scale_(scale, tracker, lib.tensor(f, dtype=lib.float32), 2.0, 0.5, 2)
            traj.append((scale.item(), tracker.item()))
        return grads, clean, found, traj
    run_both(prog)


# ------------------------------------------------------- devices and aliases


def test_cpu_amp_grad_scaler_is_deprecated_alias():
    def prog(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = lib.cpu.amp.GradScaler(init_scale=8.0, growth_interval=3)
        cats = [x.category.__name__ for x in w]
        return cats, s.get_scale(), s.get_growth_interval(), \
            isinstance(s, lib.amp.GradScaler), s._device
    run_both(prog)


def test_cuda_device_warns_and_disables_like_torch_without_cuda():
    def prog(lib):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            s = lib.amp.GradScaler("cuda")
        return s.is_enabled(), s.get_scale()
    run_both(prog)


@pytest.mark.parametrize("name", ["GradScaler", "autocast"])
def test_cuda_amp_names_raise_clearly(name):
    import graphgrad.cuda.amp
    cls = getattr(graphgrad.cuda.amp, name)
    with pytest.raises(RuntimeError, match=r"CUDA is not available.*graphgrad\.amp\."):
        cls() if name == "GradScaler" else cls(dtype=graphgrad.float16)


def test_unknown_device_raises():
    with pytest.raises(RuntimeError, match="GradScaler\\('cpu'\\)"):
        graphgrad.amp.GradScaler("xpu")
