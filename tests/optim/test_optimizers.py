"""Optimizers against PyTorch: 100-step parameter trajectories (float64, 1e-10 relative) for
every optimizer and option combination, state_dict structure and round trips, hooks,
zero_grad, version counters, and bad input (PyTorch's error types, nothing half-updated)."""
import copy
import importlib
import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import Raised, assert_same, run_both, torch

RNG = np.random.default_rng(0)
W0 = RNG.standard_normal((3, 2))
B0 = RNG.standard_normal(2)
R0 = np.array([-1.2, 1.0])
X = RNG.standard_normal((6, 3))
Y = RNG.standard_normal((6, 2))


def _params(lib, dtype="float64"):
    dt = getattr(lib, dtype)
    return [lib.tensor(a, dtype=dt, requires_grad=True) for a in (W0, B0, R0)]


def _loss(lib, w, b, r, sign=1.0):
    """A small regression plus a (scaled) Rosenbrock term: curved, non-separable."""
    x = lib.tensor(X, dtype=w.dtype)
    y = lib.tensor(Y, dtype=w.dtype)
    fit = ((x @ w + b - y) ** 2).mean()
    rosen = (1 - r[0]) ** 2 + 10 * (r[1] - r[0] ** 2) ** 2
    return sign * (fit + 0.1 * rosen)


def _trajectory(lib, name, kwargs, steps=100, dtype="float64", groups=False, every=25):
    w, b, r = _params(lib, dtype)
    maximize = kwargs.get("maximize", False)
    if groups:
        params = [{"params": [w, b]}, {"params": [r], "lr": kwargs.get("lr", 1e-2) * 0.5}]
    else:
        params = [w, b, r]
    opt = getattr(lib.optim, name)(params, **kwargs)
    out = []
    for i in range(steps):
        opt.zero_grad()
        _loss(lib, w, b, r, -1.0 if maximize else 1.0).backward()
        opt.step()
        if (i + 1) % every == 0:
            out.append([t.detach().clone() for t in (w, b, r)])
    return out, _structure(opt.state_dict())


def _structure(sd):
    """What of a state dict must equal torch's: keys, state entry names and values."""
    return {"state": {k: dict(v) for k, v in sd["state"].items()},
            "groups": [dict(g) for g in sd["param_groups"]],
            "group_keys": [list(g) for g in sd["param_groups"]],
            "state_keys": {k: list(v) for k, v in sd["state"].items()}}


CASES = [
    ("SGD", {"lr": 1e-2}),
    ("SGD", {"lr": 1e-2, "momentum": 0.9}),
    ("SGD", {"lr": 1e-2, "momentum": 0.9, "dampening": 0.5}),
    ("SGD", {"lr": 1e-2, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 1e-2, "momentum": 0.5, "weight_decay": 0.1}),
    ("SGD", {"lr": 1e-2, "weight_decay": 0.1, "maximize": True}),
    ("SGD", {"lr": 1e-2, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1,
             "maximize": True}),
    ("Adam", {"lr": 1e-2}),
    ("Adam", {"lr": 1e-2, "amsgrad": True}),
    ("Adam", {"lr": 1e-2, "weight_decay": 0.1}),
    ("Adam", {"lr": 1e-2, "maximize": True}),
    ("Adam", {"lr": 3e-3, "betas": (0.3, 0.9), "eps": 1e-6}),
    ("Adam", {"lr": 1e-2, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 1e-2, "decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 1e-2}),
    ("AdamW", {"lr": 1e-2, "amsgrad": True}),
    ("AdamW", {"lr": 1e-2, "weight_decay": 0.2, "maximize": True}),
    ("RMSprop", {"lr": 1e-3}),
    ("RMSprop", {"lr": 1e-3, "centered": True}),
    ("RMSprop", {"lr": 1e-3, "momentum": 0.9}),
    ("RMSprop", {"lr": 1e-3, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 1e-3, "alpha": 0.3, "maximize": True}),
    ("Adagrad", {"lr": 1e-1}),
    ("Adagrad", {"lr": 1e-1, "lr_decay": 0.01}),
    ("Adagrad", {"lr": 1e-1, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 1e-1, "weight_decay": 0.1, "maximize": True, "eps": 1e-6}),
    ("Adamax", {"lr": 1e-2}),
    ("Adamax", {"lr": 1e-2, "weight_decay": 0.1, "maximize": True, "betas": (0.8, 0.9)}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 1e-2}),
    ("NAdam", {"lr": 1e-2, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 1e-2, "weight_decay": 0.1, "decoupled_weight_decay": True,
               "maximize": True}),
    ("RAdam", {"lr": 1e-2}),
    ("RAdam", {"lr": 1e-2, "weight_decay": 0.1, "betas": (0.8, 0.9)}),
    ("RAdam", {"lr": 1e-2, "weight_decay": 0.1, "decoupled_weight_decay": True,
               "maximize": True}),
    ("Rprop", {}),
    ("ASGD", {}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.01, "beta2_decay": -0.5, "eps": (1e-20, 1e-2), "d": 2.0,
                   "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 20, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-4, 0.2), "maximize": True}),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_trajectory_matches_torch(name, kwargs):
    run_both(lambda lib: _trajectory(lib, name, kwargs))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_param_groups_trajectory(name):
    kwargs = {"lr": 1e-2, "momentum": 0.9} if name in ("SGD", "RMSprop") else {"lr": 1e-2}
    run_both(lambda lib: _trajectory(lib, name, kwargs, steps=40, groups=True, every=20))


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_float32_trajectory(name):
    kwargs = {"lr": 1e-2, "momentum": 0.9} if name == "SGD" else {"lr": 1e-2}
    run_both(lambda lib: _trajectory(lib, name, kwargs, steps=30, dtype="float32", every=10))


@pytest.mark.parametrize("name,kwargs", [("Adam", {"lr": 0.05, "amsgrad": True}),
                                         ("NAdam", {"lr": 0.05}), ("RAdam", {"lr": 0.05}),
                                         ("Adamax", {"lr": 0.05}), ("Adadelta", {}),
                                         ("Rprop", {"lr": 0.05}), ("ASGD", {"t0": 5}),
                                         ("RMSprop", {"lr": 0.01, "centered": True,
                                                      "momentum": 0.5}),
                                         ("Adagrad", {"lr": 0.1}),
                                         ("SGD", {"lr": 0.05, "momentum": 0.9})])
def test_complex_parameter_trajectory(name, kwargs):
    # complex parameters are updated as pairs of reals (PyTorch's view_as_real)
    def prog(lib):
        z = lib.tensor([1 + 2j, -0.5 + 0.3j], dtype=lib.complex128, requires_grad=True)
        opt = getattr(lib.optim, name)([z], **kwargs)
        for _ in range(30):
            opt.zero_grad()
            d = z - lib.tensor([0.2 - 1j, 1.5 + 0.5j], dtype=lib.complex128)
            (d * d.conj()).real.sum().backward()
            opt.step()
        return z.detach()
    run_both(prog)


def test_tensor_lr_and_betas():
    def prog(lib):
        w, b, r = _params(lib)
        f64 = lib.float64
        opt = lib.optim.Adam([w, b, r], lr=lib.tensor(0.01, dtype=f64),
                             betas=(lib.tensor(0.8, dtype=f64), lib.tensor(0.99, dtype=f64)))
        for _ in range(20):
            opt.zero_grad()
            _loss(lib, w, b, r).backward()
            opt.step()
        return w.detach(), r.detach()
    run_both(prog)


def test_params_without_grad_are_skipped():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam([a, c], lr=0.1)
        (a * a).sum().backward()
        opt.step()
        return a.detach(), c.detach(), sorted(opt.state_dict()["state"])
    run_both(prog)


def test_named_parameters_give_param_names():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.SGD([("a", a), ("c", c)], lr=0.1)
        return opt.state_dict()["param_groups"]
    run_both(prog)


# ------------------------------------------------------------------ state dicts
@pytest.mark.parametrize("name,kwargs", [("SGD", {"lr": 1e-2, "momentum": 0.9}),
                                         ("Adam", {"lr": 1e-2, "amsgrad": True}),
                                         ("AdamW", {"lr": 1e-2}),
                                         ("RMSprop", {"lr": 1e-3, "centered": True,
                                                      "momentum": 0.9}),
                                         ("Adagrad", {"lr": 0.1, "lr_decay": 0.1})])
def test_state_dict_round_trip_continues_the_trajectory(name, kwargs):
    def prog(lib):
        w, b, r = _params(lib)
        opt = getattr(lib.optim, name)([w, b, r], **kwargs)

        def run(o, ps, n):
            for _ in range(n):
                o.zero_grad()
                _loss(lib, *ps).backward()
                o.step()

        run(opt, (w, b, r), 10)
        sd = copy.deepcopy(opt.state_dict())  # as if saved and loaded
        ps2 = [t.detach().clone().requires_grad_() for t in (w, b, r)]
        opt2 = getattr(lib.optim, name)(ps2, lr=123.0)
        opt2.load_state_dict(sd)
        run(opt, (w, b, r), 10)
        run(opt2, ps2, 10)
        return [t.detach() for t in (w, b, r)], [t.detach() for t in ps2], \
            opt2.param_groups[0]["lr"], _structure(opt2.state_dict())
    ours, _ = run_both(prog)
    for a, b in zip(ours[0], ours[1]):  # the reloaded optimizer continues the same path
        assert a.tolist() == b.tolist()


def test_loaded_state_shares_tensors_as_in_torch():
    # load_state_dict casts state tensors with .to(): same dtype -> the very same tensors
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.Adam([a], lr=0.1)
        (a * a).sum().backward()
        opt.step()
        sd = opt.state_dict()
        a2 = lib.tensor([1.0, 2.0], requires_grad=True)
        opt2 = lib.optim.Adam([a2], lr=0.1)
        opt2.load_state_dict(sd)
        st, st2 = opt.state[a], opt2.state[a2]
        return [st[k] is st2[k] for k in st]
    run_both(prog)


def _to_graphgrad(v):
    if isinstance(v, torch.Tensor):
        return graphgrad.tensor(v.detach().numpy().copy(), dtype=getattr(
            graphgrad, str(v.dtype).rsplit(".", 1)[-1]))
    if isinstance(v, dict):
        return {k: _to_graphgrad(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_to_graphgrad(x) for x in v]
    return v


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_torch_state_dict_loads(name):
    # a state dict made by PyTorch (tensors converted) resumes the same trajectory here
    kwargs = {"lr": 1e-2, "momentum": 0.9} if name in ("SGD", "RMSprop") else {"lr": 1e-2}
    tw, tb, tr = _params(torch)
    topt = getattr(torch.optim, name)([tw, tb, tr], **kwargs)
    for _ in range(5):
        topt.zero_grad()
        _loss(torch, tw, tb, tr).backward()
        topt.step()
    sd = _to_graphgrad(topt.state_dict())
    ps = [graphgrad.tensor(t.detach().numpy(), requires_grad=True) for t in (tw, tb, tr)]
    opt = getattr(graphgrad.optim, name)(ps, **kwargs)
    opt.load_state_dict(sd)
    for o, lib, p in ((topt, torch, (tw, tb, tr)), (opt, graphgrad, ps)):
        for _ in range(5):
            o.zero_grad()
            _loss(lib, *p).backward()
            o.step()
    for a, b in zip(ps, (tw, tb, tr)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
    assert _structure(opt.state_dict()).keys() == _structure(topt.state_dict()).keys()


def test_load_state_dict_mismatch_raises_and_changes_nothing():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([3.0], requires_grad=True)
        opt = lib.optim.SGD([a, c], lr=0.1, momentum=0.9)
        other = lib.optim.SGD([{"params": [a]}, {"params": [c]}], lr=0.5)
        try:
            opt.load_state_dict(other.state_dict())
        except ValueError as e:
            return Raised(e), opt.param_groups[0]["lr"]
        return None
    ours, theirs = run_both(prog)
    assert ours[1] == 0.1


def test_state_dict_hooks_and_load_hooks():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)
        calls = []
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
        opt.register_state_dict_post_hook(lambda o, sd: calls.append("post1"))
        opt.register_state_dict_post_hook(lambda o, sd: calls.append("post0"), prepend=True)

        def load_pre(o, sd):
            calls.append("load_pre")
            sd = dict(sd)
            sd["param_groups"] = [dict(sd["param_groups"][0], lr=0.25)]
            return sd
        opt.register_load_state_dict_pre_hook(load_pre)
        opt.register_load_state_dict_post_hook(lambda o: calls.append("load_post"))
        opt.load_state_dict(opt.state_dict())
        return calls, opt.param_groups[0]["lr"]
    run_both(prog)


# ------------------------------------------------------------------ hooks, zero_grad, step
def test_step_hooks_order_args_and_removal():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)
        calls = []
        mod = importlib.import_module(lib.__name__ + ".optim.optimizer")

        def rec(name):
            # the hooks see the optimizer first in ``args`` (PyTorch's wrapper passes self)
            return lambda o, args, kw: calls.append(
                (name, type(o).__name__, args[0] is o, args[1:], kw))
        g1 = mod.register_optimizer_step_pre_hook(rec("gpre"))
        g2 = mod.register_optimizer_step_post_hook(rec("gpost"))
        h1 = opt.register_step_pre_hook(rec("pre"))
        h2 = opt.register_step_post_hook(rec("post"))
        try:
            (a * a).sum().backward()
            opt.step()
            h1.remove()
            g1.remove()
            opt.step(closure=None)
        finally:
            g1.remove()
            g2.remove()
        h2.remove()
        opt.step()
        return calls, a.detach()
    run_both(prog)


def test_step_pre_hook_can_replace_args():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (a * a).sum()
            loss.backward()
            return loss

        opt.register_step_pre_hook(lambda o, args, kw: ((args[0], closure), {}))
        loss = opt.step()
        return loss.detach(), a.detach()
    run_both(prog)


def test_step_with_closure_returns_loss_and_enables_grad():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.Adam([a], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (a ** 3).sum()
            loss.backward()
            return loss
        with lib.no_grad():
            l1 = opt.step(closure)
        l2 = opt.step(closure)
        return l1.detach(), l2.detach(), a.detach()
    run_both(prog)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([a, c], lr=0.1)
        (a * a).sum().backward()
        g = a.grad
        opt.zero_grad(set_to_none=set_to_none)
        return a.grad, c.grad, g
    run_both(prog)


def test_step_bumps_version_and_stale_graph_raises():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.Adam([a], lr=0.1)
        (a * a).sum().backward()
        y = (a * a).sum()  # saves a
        v0 = a._version
        opt.step()
        v1 = a._version
        try:
            y.backward()
        except RuntimeError as e:
            return v1 - v0, Raised(e)
        return v1 - v0, None
    run_both(prog)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "ASGD", "Rprop"])
def test_version_bump_per_step_matches(name):
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        kw = {"momentum": 0.9} if name == "SGD" else {}
        opt = getattr(lib.optim, name)([a], lr=0.1, **kw)
        out = []
        for _ in range(3):
            (a * a).sum().backward()
            opt.step()
            out.append(a._version)
        return out
    run_both(prog)


def test_repr():
    def prog(lib):
        a = lib.tensor([1.0], requires_grad=True)
        return repr(lib.optim.SGD([a], lr=0.1, momentum=0.9)), \
            repr(lib.optim.Adam([{"params": [a]}], lr=0.1))
    run_both(prog)


# ------------------------------------------------------------------ bad input
BAD_CTORS = [
    ("SGD", {"lr": -1.0}), ("SGD", {"momentum": -0.1}), ("SGD", {"weight_decay": -1}),
    ("SGD", {"nesterov": True}), ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}),
    ("Adam", {"lr": -1e-3}), ("Adam", {"betas": (1.0, 0.9)}), ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"eps": -1.0}), ("Adam", {"weight_decay": -1.0}), ("Adam", {"betas": (0.9, 1)}),
    ("AdamW", {"betas": (0.9, 1.5)}), ("RMSprop", {"alpha": -1.0}),
    ("RMSprop", {"momentum": -1.0}), ("Adagrad", {"lr_decay": -1.0}),
    ("Adagrad", {"initial_accumulator_value": -1.0}), ("LBFGS", {"lr": -1.0}),
    ("Adadelta", {"rho": 1.5}), ("Adamax", {"betas": (0.9, 1.0)}),
    ("NAdam", {"momentum_decay": -1.0}), ("RAdam", {"eps": -1.0}),
    ("Rprop", {"etas": (1.2, 0.5)}), ("Adafactor", {"d": 0.5}),
    ("Adafactor", {"beta2_decay": 0.5}),
]


@pytest.mark.parametrize("name,kwargs", BAD_CTORS, ids=[f"{n}-{k}" for n, k in BAD_CTORS])
def test_invalid_hyperparameters_raise(name, kwargs):
    def prog(lib):
        a = lib.tensor([1.0], requires_grad=True)
        return getattr(lib.optim, name)([a], **kwargs)
    ours, theirs = run_both(lambda lib: Raised(_catch(prog, lib)))


def _catch(prog, lib):
    try:
        prog(lib)
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("no error")


@pytest.mark.parametrize("case", ["non_leaf", "dup_groups", "set", "tensor", "empty",
                                  "not_tensor", "group_not_dict", "names_mixed"])
def test_bad_params_raise(case):
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([1.0], requires_grad=True)
        if case == "non_leaf":
            return lib.optim.SGD([a * 2], lr=0.1)
        if case == "dup_groups":
            return lib.optim.SGD([{"params": [a]}, {"params": [c, a]}], lr=0.1)
        if case == "set":
            return lib.optim.SGD({a}, lr=0.1)
        if case == "tensor":
            return lib.optim.SGD(a, lr=0.1)
        if case == "empty":
            return lib.optim.SGD([], lr=0.1)
        if case == "not_tensor":
            return lib.optim.SGD([a, 1.0], lr=0.1)
        if case == "group_not_dict":
            opt = lib.optim.SGD([a], lr=0.1)
            return opt.add_param_group([c])
        opt = lib.optim.SGD([("a", a)], lr=0.1)
        return opt.add_param_group({"params": [c]})
    run_both(lambda lib: Raised(_catch(prog, lib)))


def test_failed_add_param_group_leaves_optimizer_unchanged():
    a = graphgrad.tensor([1.0], requires_grad=True)
    opt = graphgrad.optim.SGD([a], lr=0.1)
    group = {"params": [a], "lr": 0.5}
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group(group)
    assert len(opt.param_groups) == 1 and group == {"params": [a], "lr": 0.5}


def test_duplicate_params_in_a_group_warn(lib):
    a = lib.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        lib.optim.SGD([a, a], lr=0.1)


def test_add_param_group_defaults_and_required():
    def prog(lib):
        a = lib.tensor([1.0], requires_grad=True)
        c = lib.tensor([2.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1, momentum=0.5)
        opt.add_param_group({"params": c, "lr": 0.2})
        return opt.state_dict()["param_groups"]
    run_both(prog)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax",
                                  "Adadelta", "NAdam", "RAdam", "Rprop"])
def test_grad_of_wrong_shape_raises_and_nothing_is_updated(name):
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        opt = getattr(lib.optim, name)([a, c], lr=0.1)
        (a.sum() + c.sum()).backward()
        c.data = lib.zeros(4)  # the gradient no longer fits the parameter
        try:
            opt.step()
        except RuntimeError as e:
            return Raised(e)
        return None
    run_both(prog)
    # graphgrad checks every gradient before updating anything (PyTorch may half-update)
    a = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    c = graphgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    opt = getattr(graphgrad.optim, name)([a, c], lr=0.1)
    (a.sum() + c.sum()).backward()
    c.data = graphgrad.zeros(4)
    before = {k: dict(v) for k, v in opt.state.items()}
    with pytest.raises(RuntimeError, match=r"param_groups\[0\]\['params'\]\[1\] has shape \[3\]"
                       r".*shape \[4\]"):
        opt.step()
    assert a.tolist() == [1.0, 2.0] and a._version == 0
    assert {k: dict(v) for k, v in opt.state.items()}.keys() == before.keys()


def test_broadcastable_grad_is_accepted():
    def prog(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)
        a.sum().backward()
        a.data = lib.ones(2, 3)
        opt.step()
        return a.detach()
    run_both(prog)


def test_differentiable_is_rejected_clearly():
    a = graphgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        graphgrad.optim.SGD([a], lr=0.1, differentiable=True)


def test_custom_optimizer_subclass_gets_hooks():
    def prog(lib):
        class Plain(lib.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, {"lr": lr})

            @lib.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.add_(p.grad, alpha=-group["lr"])

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = Plain([a])
        calls = []
        opt.register_step_post_hook(lambda o, args, kw: calls.append("post"))
        (a * a).sum().backward()
        opt.step()
        return calls, a.detach(), opt.state_dict()
    run_both(prog)


def test_pickle_round_trip():
    import pickle
    a = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = graphgrad.optim.Adam([a], lr=0.1)
    (a * a).sum().backward()
    opt.step()
    opt2 = pickle.loads(pickle.dumps(opt))
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2._optimizer_step_pre_hooks == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2.step()
    assert_same(opt2.state_dict()["param_groups"], opt.state_dict()["param_groups"])


def test_adagrad_group_added_later_gets_state():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adagrad([{"params": [a], "initial_accumulator_value": 2.0}], lr=0.1,
                                initial_accumulator_value=0.5)
        opt.add_param_group({"params": [c], "initial_accumulator_value": 3.0})
        for _ in range(3):
            opt.zero_grad()
            ((a * a).sum() + (c ** 3).sum()).backward()
            opt.step()
        return a.detach(), c.detach(), _structure(opt.state_dict())
    run_both(prog)


def test_zero_grad_keeps_the_grad_object_and_bumps_its_version():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)
        (a * a).sum().backward()
        g = a.grad
        v = g._version
        opt.zero_grad(set_to_none=False)
        (a * 3).sum().backward()
        return a.grad is g, g._version - v, a.grad, a.grad.requires_grad
    run_both(prog)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_zero_grad_detaches_a_grad_with_history():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1)
        (a ** 3).sum().backward(create_graph=True)
        opt.zero_grad(set_to_none=False)
        return a.grad, a.grad.grad_fn is None, a.grad.requires_grad
    run_both(prog)


def test_inference_tensor_parameter_raises_before_updating():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.inference_mode():
            c = lib.ones(2)
        opt = lib.optim.SGD([a, c], lr=0.1)
        a.grad = lib.ones(2)
        c.grad = lib.ones(2)
        try:
            opt.step()
        except RuntimeError as e:
            return Raised(e)
    run_both(prog)


def test_subclass_calling_super_step_runs_hooks_like_torch():
    def prog(lib):
        class MySGD(lib.optim.SGD):
            def step(self, closure=None):
                return super().step(closure)

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = MySGD([a], lr=0.1)
        calls = []
        opt.register_step_pre_hook(lambda o, args, kw: calls.append("pre"))
        (a * a).sum().backward()
        opt.step()
        return calls, a.detach()
    run_both(prog)


def test_sparse_adam_rejects_dense_gradients():
    def prog(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SparseAdam([a], lr=0.1)
        opt.step()  # no gradients yet: nothing to do
        (a * a).sum().backward()
        try:
            opt.step()
        except RuntimeError as e:
            return Raised(e), a.detach()
    run_both(prog)


def test_every_torch_optimizer_name_exists():
    names = [n for n in dir(torch.optim) if n[0].isupper() and isinstance(
        getattr(torch.optim, n), type) and issubclass(getattr(torch.optim, n),
                                                        torch.optim.Optimizer)]
    # Muon (torch's newest, orthogonalising in bfloat16) is not implemented
    missing = [n for n in names if not hasattr(graphgrad.optim, n)]
    assert names and missing == [n for n in ("Muon",) if n in names]
    sched = [n for n in torch.optim.lr_scheduler.__all__]
    assert [n for n in sched if not hasattr(graphgrad.optim.lr_scheduler, n)] == []


def test_wrong_shape_error_names_the_parameter():
    a = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = graphgrad.optim.SGD([("layer.weight", a)], lr=0.1)
    a.sum().backward()
    a.data = graphgrad.zeros(3)
    with pytest.raises(RuntimeError, match="'layer.weight'"):
        opt.step()
