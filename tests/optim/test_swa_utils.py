"""torch.optim.swa_utils against PyTorch: AveragedModel (SWA, EMA, avg_fn, multi_avg_fn,
use_buffers, integer buffers), update_bn, SWALR (lr sequences, state_dict) and bad
arguments."""
from __future__ import annotations

import copy

import pytest

import graphgrad
from tests.conftest import run_both


def _model(lib):
    m = lib.nn.Sequential(lib.nn.Linear(3, 4, dtype=lib.float64),
                          lib.nn.BatchNorm1d(4, dtype=lib.float64),
                          lib.nn.Tanh(), lib.nn.Linear(4, 1, dtype=lib.float64))
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-0.5, 0.4 + i / 10, p.numel(),
                                 dtype=lib.float64).reshape(p.shape))
    return m


def _data(lib, k):
    return lib.linspace(-1, 1 + k / 10, 18, dtype=lib.float64).reshape(6, 3).sin() * (k + 1)


def _run(lib, make_avg, steps=4):
    m = _model(lib)
    avg = make_avg(lib, m)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.5)
    for k in range(steps):
        opt.zero_grad()
        m(_data(lib, k)).pow(2).sum().backward()
        opt.step()
        avg.update_parameters(m)
    with lib.no_grad():
        out = avg(_data(lib, 9))
    return [(n, t.detach()) for n, t in avg.state_dict().items()], out, \
        [p.requires_grad for p in avg.parameters()]


@pytest.mark.parametrize("kind", ["swa", "ema_fn", "ema_multi", "swa_multi", "custom",
                                  "swa_buffers", "ema_buffers", "swa_multi_buffers"])
def test_averaged_model(kind):
    def make(lib, m):
        S = lib.optim.swa_utils
        if kind == "swa":
            return S.AveragedModel(m)
        if kind == "ema_fn":
            return S.AveragedModel(m, avg_fn=S.get_ema_avg_fn(0.8))
        if kind == "ema_multi":
            return S.AveragedModel(m, multi_avg_fn=S.get_ema_multi_avg_fn(0.7))
        if kind == "swa_multi":
            return S.AveragedModel(m, multi_avg_fn=S.get_swa_multi_avg_fn())
        if kind == "custom":
            return S.AveragedModel(m, avg_fn=lambda a, c, n: 0.5 * a + 0.5 * c + n * 0.01)
        if kind == "swa_buffers":
            return S.AveragedModel(m, use_buffers=True)
        if kind == "ema_buffers":
            return S.AveragedModel(m, multi_avg_fn=S.get_ema_multi_avg_fn(0.6),
                                   use_buffers=True)
        return S.AveragedModel(m, multi_avg_fn=S.get_swa_multi_avg_fn(), use_buffers=True)
    run_both(lambda lib: _run(lib, make))


def test_averaged_model_is_a_copy_with_torchs_state_dict_and_repr():
    def prog(lib):
        m = _model(lib)
        avg = lib.optim.swa_utils.AveragedModel(m)
        same = [p is q for p, q in zip(avg.module.parameters(), m.parameters())]
        return list(avg.state_dict()), repr(avg), same, avg.n_averaged, \
            avg.n_averaged.dtype
    run_both(prog)


@pytest.mark.parametrize("case", ["both_fns", "ema_decay", "ema_multi_decay", "device"])
def test_averaged_model_bad_arguments(case):
    def prog(lib):
        S = lib.optim.swa_utils
        m = lib.nn.Linear(2, 2)
        if case == "both_fns":
            return S.AveragedModel(m, avg_fn=S.get_swa_avg_fn(),
                                   multi_avg_fn=S.get_swa_multi_avg_fn())
        if case == "ema_decay":
            return S.get_ema_avg_fn(1.5)
        if case == "ema_multi_decay":
            return S.get_ema_multi_avg_fn(-0.1)
        return S.AveragedModel(m, device="cuda")
    run_both(prog)


@pytest.mark.parametrize("batches", ["tensors", "tuples"])
def test_update_bn(batches):
    def prog(lib):
        m = _model(lib)
        m.eval()
        m[1].momentum = 0.3
        data = [_data(lib, k) for k in range(3)]
        loader = data if batches == "tensors" else [(x, x.sum(1)) for x in data]
        lib.optim.swa_utils.update_bn(loader, m)
        bn = m[1]
        return bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, \
            m.training
    run_both(prog)


def test_update_bn_without_batchnorm_and_of_an_averaged_model():
    def prog(lib):
        S = lib.optim.swa_utils
        lin = lib.nn.Linear(3, 1, dtype=lib.float64)
        S.update_bn([_data(lib, 0)], lin)  # nothing to do: no forward either
        m = _model(lib)
        avg = S.AveragedModel(m)
        avg.update_parameters(m)
        S.update_bn([_data(lib, k) for k in range(2)], avg)
        return avg.module[1].running_mean, avg.module[1].running_var
    run_both(prog)


def _sgd(lib, two=False):
    a = lib.zeros(2, dtype=lib.float64, requires_grad=True)
    b = lib.zeros(1, dtype=lib.float64, requires_grad=True)
    params = [{"params": [a]}, {"params": [b], "lr": 0.5}] if two else [a, b]
    return lib.optim.SGD(params, lr=1.0)


@pytest.mark.parametrize("kw", [{"swa_lr": 0.05}, {"swa_lr": 0.05, "anneal_strategy": "linear"},
                                {"swa_lr": 0.2, "anneal_epochs": 0},
                                {"swa_lr": 0.1, "anneal_epochs": 3},
                                {"swa_lr": [0.1, 0.01], "anneal_epochs": 4,
                                 "anneal_strategy": "linear"}])
def test_swalr_learning_rates(kw):
    def prog(lib):
        opt = _sgd(lib, two=isinstance(kw["swa_lr"], list))
        sched = lib.optim.swa_utils.SWALR(opt, **kw)
        lrs = [sched.get_last_lr()]
        for _ in range(14):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        sd = sched.state_dict()
        return lrs, sorted(sd), [g["swa_lr"] for g in opt.param_groups]
    run_both(prog)


def test_swalr_after_another_scheduler_and_state_dict_round_trip():
    def prog(lib):
        opt = _sgd(lib)
        first = lib.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
        for _ in range(5):
            opt.step()
            first.step()
        swa = lib.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=3)
        for _ in range(2):
            opt.step()
            swa.step()
        sd = copy.deepcopy(swa.state_dict())
        other = lib.optim.swa_utils.SWALR(_sgd(lib), swa_lr=0.5, anneal_strategy="linear")
        other.load_state_dict(sd)
        return swa.get_last_lr(), other._anneal_strategy, other.anneal_func(0.5), \
            other.anneal_epochs
    run_both(prog)


@pytest.mark.parametrize("kw", [{"swa_lr": 0.1, "anneal_strategy": "exp"},
                                {"swa_lr": 0.1, "anneal_epochs": -1},
                                {"swa_lr": 0.1, "anneal_epochs": 2.0},
                                {"swa_lr": [0.1, 0.2, 0.3]}])
def test_swalr_bad_arguments(kw):
    run_both(lambda lib: lib.optim.swa_utils.SWALR(_sgd(lib, two=True), **kw))


def test_swalr_get_lr_outside_step_warns_like_torch():
    def prog(lib):
        sched = lib.optim.swa_utils.SWALR(_sgd(lib), swa_lr=0.1)
        with pytest.warns(UserWarning, match="get_last_lr"):
            return sched.get_lr()
    run_both(prog)


def test_namespace():
    import torch
    assert sorted(graphgrad.optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
