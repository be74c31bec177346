"""Learning-rate schedulers against PyTorch: lr sequences (chainable and closed forms),
momentum cycling, state_dict contents, warnings and bad arguments."""
import math
import warnings

import pytest

import graphgrad
from tests.conftest import Raised, run_both, torch


def _opt(lib, name="SGD", two_groups=False, **kw):
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    c = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
    if two_groups:
        params = [{"params": [a]}, {"params": [c], "lr": 0.05}]
    else:
        params = [a, c]
    kw.setdefault("lr", 0.1)
    if name == "SGD":
        kw.setdefault("momentum", 0.9)
    return getattr(lib.optim, name)(params, **kw), (a, c)


def _train(opt, params, sched, epochs, metric=None):
    """The usual loop: optimizer.step() then scheduler.step(); lrs seen by each step."""
    out = []
    for e in range(epochs):
        opt.zero_grad()
        sum((p * p).sum() for p in params).backward()
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric(e))
        out.append((list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups]))
    return out


def _state(sched):
    """The scheduler's state dict without things that cannot compare across libraries."""
    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v
    return clean(sched.state_dict())


SCHEDULERS = [
    ("StepLR", {"step_size": 3}),
    ("StepLR", {"step_size": 4, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 7}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("LinearLR", {}),
    ("LinearLR", {"start_factor": 0.25, "end_factor": 0.75, "total_iters": 8}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 4}),
    ("PolynomialLR", {"total_iters": 6, "power": 2.0}),
    ("LambdaLR", {"lr_lambda": "lambda"}),
    ("MultiplicativeLR", {"lr_lambda": "lambda"}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 25}),
    ("OneCycleLR", {"max_lr": [1.0, 0.5], "total_steps": 25, "anneal_strategy": "linear",
                    "three_phase": True}),
    ("OneCycleLR", {"max_lr": 0.3, "epochs": 5, "steps_per_epoch": 5, "pct_start": 0.4,
                    "cycle_momentum": False}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "step_size_down": 5,
                  "mode": "triangular2"}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "mode": "exp_range",
                  "gamma": 0.9, "cycle_momentum": False}),
    ("CosineAnnealingWarmRestarts", {"T_0": 4}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
]


def _make(lib, opt, name, kwargs):
    kwargs = dict(kwargs)
    if kwargs.get("lr_lambda") == "lambda":
        kwargs["lr_lambda"] = (lambda e: 0.95 ** e) if name == "LambdaLR" else (lambda e: 0.9)
    return getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)


@pytest.mark.parametrize("two_groups", [False, True])
@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{k}" for n, k in SCHEDULERS])
def test_lr_sequence_matches_torch(name, kwargs, two_groups):
    def prog(lib):
        opt, params = _opt(lib, two_groups=two_groups)
        sched = _make(lib, opt, name, kwargs)
        first = list(sched.get_last_lr())
        seq = _train(opt, params, sched, 24 if name == "OneCycleLR" else 30)
        moms = [g.get("momentum") for g in opt.param_groups]
        return first, seq, moms, _state(sched), opt.state_dict()["param_groups"]
    ours, theirs = run_both(prog)
    # (max_lr given per group with one group raises ValueError in both)
    assert isinstance(ours, Raised) or ours[:3] == theirs[:3]  # the lr (and momentum) sequences are bit-for-bit torch's


def test_one_cycle_cycles_adam_beta1():
    def prog(lib):
        opt, params = _opt(lib, "Adam")
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=12)
        betas = []
        for _ in range(12):
            opt.zero_grad()
            sum((p * p).sum() for p in params).backward()
            opt.step()
            betas.append(opt.param_groups[0]["betas"])
            if len(betas) < 12:
                sched.step()
        return betas, [p.detach() for p in params]
    run_both(prog)


def test_one_cycle_stepping_past_total_steps_raises():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(4):
                sched.step()
    run_both(lambda lib: Raised(_catch(prog, lib)))


@pytest.mark.parametrize("name,kwargs", [("StepLR", {"step_size": 3}),
                                         ("MultiStepLR", {"milestones": [2, 4]}),
                                         ("ExponentialLR", {"gamma": 0.8}),
                                         ("CosineAnnealingLR", {"T_max": 6}),
                                         ("LinearLR", {"total_iters": 4}),
                                         ("ConstantLR", {}),
                                         ("PolynomialLR", {"total_iters": 4})])
def test_closed_form_with_epoch_argument(name, kwargs):
    def prog(lib):
        opt, params = _opt(lib)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for e in [1, 2, 5, 3, 8, 0]:
                opt.step()
                sched.step(e)
                out.append(sched.get_last_lr())
        return out, sum("epoch parameter" in str(x.message) for x in w)
    run_both(prog)


def test_cosine_warm_restarts_fractional_epochs():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        out = []
        for e in [0.5, 1.25, 3.0, 4.5, 9.75, 2.0, 20.0]:
            opt.step()
            sched.step(e)
            out.append((sched.get_last_lr(), sched.T_i, sched.last_epoch))
        return out
    ours, theirs = run_both(prog)
    assert ours == theirs


def test_cyclic_lr_custom_scale_fn_state_dict():
    class Half:
        def __init__(self):
            self.k = 0.5

        def __call__(self, x):
            return self.k ** x

    def prog(lib):
        opt, params = _opt(lib, "Adam")
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=Half())
        seq = _train(opt, params, sched, 9)
        return seq, _state(sched), opt.param_groups[0]["betas"]
    run_both(prog)


def test_sequential_lr():
    def prog(lib):
        opt, params = _opt(lib)
        s1 = lib.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=4)
        s2 = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)
        s3 = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        sched = lib.optim.lr_scheduler.SequentialLR(opt, [s1, s2, s3], milestones=[4, 12])
        first = sched.get_last_lr()
        return first, _train(opt, params, sched, 20), _state(sched)
    ours, theirs = run_both(prog)
    assert ours[:2] == theirs[:2]


def test_chained_scheduler():
    def prog(lib):
        opt, params = _opt(lib)
        s1 = lib.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3)
        s2 = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        sched = lib.optim.lr_scheduler.ChainedScheduler([s1, s2])
        return _train(opt, params, sched, 10), _state(sched)
    run_both(prog)


@pytest.mark.parametrize("kwargs", [{}, {"mode": "max", "patience": 2, "factor": 0.5},
                                    {"patience": 1, "cooldown": 2, "min_lr": 0.02},
                                    {"threshold_mode": "abs", "threshold": 0.1, "patience": 0},
                                    {"mode": "max", "threshold_mode": "abs", "patience": 1,
                                     "min_lr": [0.01, 0.001]}])
def test_reduce_lr_on_plateau(kwargs):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9,
               0.9, 0.9, 0.9, 0.91, 0.92, 0.93, 0.8, 0.8, 0.8, 0.8, 0.8]

    def prog(lib):
        opt, params = _opt(lib, two_groups=True)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seq = _train(opt, params, sched, len(metrics), metric=lambda e: metrics[e])
        return seq, _state(sched)
    ours, theirs = run_both(prog)
    assert ours[0] == theirs[0]


def test_reduce_lr_on_plateau_accepts_tensor_metric():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        for v in [1.0, 1.0, 1.0]:
            sched.step(lib.tensor(v))
        return sched.get_last_lr()
    run_both(prog)


def test_state_dict_round_trip():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        _train(opt, params, sched, 5)
        sd = sched.state_dict()
        opt2, params2 = _opt(lib)
        sched2 = lib.optim.lr_scheduler.StepLR(opt2, step_size=100)
        sched2.load_state_dict(sd)
        opt2.load_state_dict(opt.state_dict())
        return _train(opt, params, sched, 5), _train(opt2, params2, sched2, 5)
    run_both(prog)


def test_lambda_state_dict_saves_callable_objects():
    class Decay:
        def __init__(self, f):
            self.f = f

        def __call__(self, e):
            return self.f ** e

    def prog(lib):
        opt, params = _opt(lib, two_groups=True)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [Decay(0.9), lambda e: 1.0])
        sd = sched.state_dict()
        opt2, _ = _opt(lib, two_groups=True)
        d = Decay(0.5)
        sched2 = lib.optim.lr_scheduler.LambdaLR(opt2, [d, lambda e: 1.0])
        sched2.load_state_dict(sd)
        return sd["lr_lambdas"], d.f
    run_both(prog)


# ------------------------------------------------------------------ warnings
def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message)[:40] for x in w]


def test_warns_when_scheduler_steps_before_optimizer():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
        return _warnings_of(sched.step)
    ours, _ = run_both(prog)
    assert ours and ours[0].startswith("Detected call of `lr_scheduler.step()`")


def test_no_warning_in_the_right_order():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1)

        def both():
            opt.step()
            sched.step()
        return _warnings_of(both)
    ours, _ = run_both(prog)
    assert ours == []


def test_warns_when_optimizer_step_is_replaced():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step = lambda closure=None: None
        return _warnings_of(sched.step)
    ours, _ = run_both(prog)
    assert ours and ours[0].startswith("Seems like `optimizer.step()` has been")


def test_get_lr_outside_step_warns():
    def prog(lib):
        opt, params = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
        return _warnings_of(sched.get_lr)
    ours, _ = run_both(prog)
    assert ours and ours[0].startswith("To get the last learning rate")


# ------------------------------------------------------------------ bad arguments
def _catch(prog, lib):
    try:
        prog(lib)
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("no error")


BAD = [
    ("StepLR", lambda lib, opt: lib.optim.lr_scheduler.StepLR("not an optimizer", 2)),
    ("LinearLR", lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt, start_factor=0)),
    ("LinearLR_end", lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt, end_factor=2)),
    ("ConstantLR", lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=2)),
    ("LambdaLR", lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1] * 3)),
    ("resume", lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, 2, last_epoch=3)),
    ("Plateau_factor", lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1)),
    ("Plateau_mode", lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="x")),
    ("Plateau_minlr", lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(
        opt, min_lr=[0.1, 0.2, 0.3])),
    ("OneCycle_steps", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 1.0)),
    ("OneCycle_total", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 1.0,
                                                                          total_steps=0)),
    ("OneCycle_pct", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
        opt, 1.0, total_steps=10, pct_start=1.5)),
    ("OneCycle_anneal", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
        opt, 1.0, total_steps=10, anneal_strategy="exp")),
    ("OneCycle_momentum", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
        lib.optim.Adagrad([lib.tensor([1.0], requires_grad=True)]), 1.0, total_steps=10)),
    ("Sequential_milestones", lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.StepLR(opt, 2)], milestones=[3])),
    ("Sequential_plateau", lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.StepLR(opt, 2),
              lib.optim.lr_scheduler.ReduceLROnPlateau(opt)], milestones=[3])),
]


@pytest.mark.parametrize("case", [b[1] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_arguments_raise(case):
    def prog(lib):
        opt, _ = _opt(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case(lib, opt)
    run_both(lambda lib: Raised(_catch(prog, lib)))


def test_tensor_lr_is_filled_in_place():
    def prog(lib):
        a = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = lib.optim.SGD([a], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step()
        sched.step()
        last = sched.get_last_lr()
        return opt.param_groups[0]["lr"] is lr, lr, last, last[0] is lr
    run_both(prog)


def test_cosine_matches_closed_form():
    opt, params = _opt(graphgrad)
    sched = graphgrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.0)
    for e in range(1, 11):
        opt.step()
        sched.step()
        assert math.isclose(sched.get_last_lr()[0], 0.05 * (1 + math.cos(math.pi * e / 10)),
                            rel_tol=1e-12, abs_tol=1e-15)
