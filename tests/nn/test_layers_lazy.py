"""Lazy modules, UninitializedParameter/UninitializedBuffer and LazyModuleMixin against
torch.nn: the module before and after its first call (class, repr, state_dict, shapes),
values and gradients with torch's weights loaded, state_dict loading, optimizers built
before the first call, and the errors."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import close, copy_weights, np_of, randn, to_lib

torch = pytest.importorskip("torch")

CASES = [
    ("LazyLinear", (4,), {}, (2, 3, 5)),
    ("LazyLinear", (4,), {"bias": False}, (5,)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv1d", (4, 3), {"groups": 2}, (6, 7)),
    ("LazyConv2d", (4, 3), {"stride": 2, "padding_mode": "reflect", "padding": 1},
     (2, 3, 6, 5)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2, "output_padding": 1}, (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"groups": 2, "bias": False}, (2, 6, 4, 4)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), {"affine": False, "momentum": None}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm1d", (), {"affine": False, "track_running_stats": False}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"bias": False}, (2, 3, 4, 4)),
    ("LazyConv3d", (4, 2), {"padding": 1}, (2, 3, 4, 4, 3)),
    ("LazyConvTranspose3d", (4, 2), {"stride": 2}, (2, 3, 3, 2, 3)),
    ("LazyBatchNorm3d", (), {}, (2, 3, 2, 3, 2)),
    ("LazyInstanceNorm3d", (), {"affine": True}, (2, 3, 2, 3, 2)),
]


def _make(lib, name, args, kw):
    return getattr(lib.nn, name)(*args, dtype=lib.float64, **kw)


def _desc(m):
    sd = m.state_dict()
    return (type(m).__name__, repr(m), list(sd), [type(v).__name__ for v in sd.values()],
            [(n, type(p).__name__) for n, p in m.named_parameters()],
            [(n, type(b).__name__) for n, b in m.named_buffers()],
            m.has_uninitialized_params() if hasattr(m, "has_uninitialized_params") else None)


@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("name,args,kw,shape", CASES)
def test_lazy_layer(name, args, kw, shape):
    gm, tm = _make(gg, name, args, kw), _make(torch, name, args, kw)
    assert _desc(gm) == _desc(tm)
    assert isinstance(gm, gg.nn.modules.lazy.LazyModuleMixin)
    x = randn(*shape)
    # the first call materializes the parameters and changes the class
    with gg.no_grad():
        gm(gg.tensor(x))
    with torch.no_grad():
        tm(torch.from_numpy(x))
    assert _desc(gm) == _desc(tm)
    assert [(n, tuple(p.shape), str(p.dtype)[-7:]) for n, p in gm.named_parameters()] == \
        [(n, tuple(p.shape), str(p.dtype)[-7:]) for n, p in tm.named_parameters()]
    assert [(n, tuple(p.shape)) for n, p in gm.named_buffers()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_buffers()]
    # torch's weights: the same values and gradients
    copy_weights(gm, tm)
    xs = randn(*shape, seed=3)
    og, ot = gm(to_lib(gg, xs)), tm(to_lib(torch, xs))
    close(np_of(og), np_of(ot), "output")
    w = randn(*ot.shape, seed=5)
    (og * gg.tensor(w)).sum().backward()
    (ot * torch.from_numpy(w)).sum().backward()
    for (n, p), (_, q) in zip(gm.named_parameters(), tm.named_parameters()):
        close(np_of(p.grad), np_of(q.grad), n)
    for (n, p), (_, q) in zip(gm.named_buffers(), tm.named_buffers()):
        close(np_of(p), np_of(q), n)


def test_default_init_after_the_first_call():
    # materialized parameters are initialized as the non-lazy layer's (not left empty)
    lin = gg.nn.LazyLinear(50)
    lin(gg.randn(2, 9))
    for p in (lin.weight, lin.bias):
        a = np_of(p)
        assert np.abs(a).max() <= 1 / 3 and a.std() > 0.05
    conv = gg.nn.LazyConv2d(8, 3)
    conv(gg.randn(1, 4, 5, 5))
    a = np_of(conv.weight)
    assert np.abs(a).max() <= 1 / 6 and a.std() > 0.03
    bn = gg.nn.LazyBatchNorm1d()
    bn.eval()
    bn(gg.randn(2, 3))
    assert (np_of(bn.weight) == 1).all() and (np_of(bn.bias) == 0).all()
    assert (np_of(bn.running_mean) == 0).all() and (np_of(bn.running_var) == 1).all()


def test_optimizer_built_before_the_first_call():
    def prog(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.LazyLinear(3, dtype=lib.float64), lib.nn.Tanh(),
                              lib.nn.LazyLinear(1, dtype=lib.float64))
        opt = lib.optim.Adam(m.parameters(), lr=0.1)
        x = lib.linspace(-1, 1, 8, dtype=lib.float64).reshape(4, 2)
        with lib.no_grad():
            m(x)
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.linspace(-0.5, 0.5 + i / 7, p.numel(),
                                     dtype=lib.float64).reshape(p.shape))
        for _ in range(3):
            opt.zero_grad()
            m(x).pow(2).sum().backward()
            opt.step()
        return [type(c).__name__ for c in m], [p.detach() for p in m.parameters()], \
            [p is q for p, q in zip(m.parameters(), opt.param_groups[0]["params"])]
    run_both(prog)


def test_load_state_dict_materializes_and_forward_turns_class():
    tm = torch.nn.Linear(3, 4, dtype=torch.float64)
    for lib in (gg, torch):
        m = lib.nn.LazyLinear(4, dtype=lib.float64)
        sd = {k: (to_lib(lib, np_of(v), False)) for k, v in tm.state_dict().items()}
        m.load_state_dict(sd)
        assert type(m).__name__ == "LazyLinear" and not m.has_uninitialized_params()
        assert tuple(m.weight.shape) == (4, 3) and type(m.weight).__name__ == "Parameter"
        assert m.in_features == 0
        x = to_lib(lib, randn(2, 3), False)
        out = m(x)
        close(np_of(out), np_of(tm(torch.from_numpy(randn(2, 3)))), "output")
        assert type(m).__name__ == "Linear" and m.in_features == 3


def test_load_state_dict_of_an_uninitialized_module():
    def prog(lib):
        a, b = lib.nn.LazyLinear(4), lib.nn.LazyLinear(4)
        b.load_state_dict(a.state_dict())
        return b.has_uninitialized_params(), type(b.weight).__name__
    run_both(prog)


def test_load_uninitialized_into_initialized_raises_like_torch():
    def prog(lib):
        return lib.nn.Linear(3, 4).load_state_dict(lib.nn.LazyLinear(4).state_dict())
    run_both(prog)


def test_failed_load_leaves_module_uninitialized():
    m = gg.nn.LazyLinear(4)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict({"weight": gg.zeros(4, 3), "bias": gg.zeros(4), "x": gg.zeros(1)})
    assert m.has_uninitialized_params() and type(m.weight).__name__ == "UninitializedParameter"


def test_conversions_before_the_first_call():
    def prog(lib):
        m = lib.nn.LazyBatchNorm1d().double()
        before = (m.weight.dtype, m.running_mean.dtype, m.num_batches_tracked.dtype,
                  type(m.weight).__name__, m.weight.requires_grad)
        m = lib.nn.LazyConv1d(2, 3).to(lib.float64)
        m(lib.ones(1, 3, 5, dtype=lib.float64))
        return before, m.weight.dtype, m.bias.dtype
    run_both(prog)


def test_uninitialized_parameter_and_buffer():
    def prog(lib):
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer(dtype=lib.float64)
        q = lib.nn.UninitializedParameter(requires_grad=False, dtype=lib.float64)
        out = [repr(p), repr(b), p.requires_grad, b.requires_grad, q.requires_grad, p.dtype,
               b.dtype, tuple(p.size()), isinstance(p, lib.nn.Parameter),
               isinstance(b, lib.nn.Buffer), b.persistent, p.is_floating_point(),
               lib.nn.parameter.is_lazy(p), lib.nn.parameter.is_lazy(lib.zeros(1)),
               type(p.half()).__name__, p.half().dtype, type(copy.deepcopy(p)).__name__,
               p.grad is None, p.is_leaf]
        p.materialize((2, 3))
        b.materialize((4,), dtype=lib.float32)
        out += [type(p).__name__, tuple(p.shape), p.requires_grad, type(b).__name__,
                tuple(b.shape), b.dtype]
        return out
    run_both(prog)


@pytest.mark.parametrize("case", ["shape", "sum", "add", "relu", "numel", "dim", "linear",
                                  "detach", "share_memory"])
def test_uninitialized_use_raises_like_torch(case):
    def prog(lib):
        p = lib.nn.UninitializedParameter()
        if case == "shape":
            return p.shape
        if case == "sum":
            return p.sum()
        if case == "add":
            return p + 1
        if case == "relu":
            return lib.relu(p)
        if case == "numel":
            return p.numel()
        if case == "dim":
            return p.dim()
        if case == "linear":
            return lib.nn.functional.linear(lib.ones(2, 3), p)
        if case == "detach":
            return p.detach()
        return p.share_memory_()
    run_both(prog)


@pytest.mark.parametrize("case", ["conv_dims", "groups", "bn_dims", "inorm_dims",
                                  "forward_twice_other_size", "not_implemented"])
def test_lazy_errors_like_torch(case):
    def prog(lib):
        if case == "conv_dims":
            return lib.nn.LazyConv2d(4, 3)(lib.ones(3, 5))
        if case == "groups":
            return lib.nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3, 5))
        if case == "bn_dims":
            return lib.nn.LazyBatchNorm2d()(lib.ones(2, 3))
        if case == "inorm_dims":
            return lib.nn.LazyInstanceNorm2d()(lib.ones(2, 3))
        if case == "forward_twice_other_size":
            m = lib.nn.LazyLinear(2)
            m(lib.ones(1, 3))
            return m(lib.ones(1, 4))

        class M(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.UninitializedParameter()

            def forward(self, x):
                return x
        return M()(lib.ones(1))
    run_both(prog)


def test_user_defined_lazy_module():
    def prog(lib):
        class Scale(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.UninitializedParameter(dtype=lib.float64)
                self.register_buffer("b", lib.nn.UninitializedBuffer(dtype=lib.float64))

            def initialize_parameters(self, x, scale=1.0):
                with lib.no_grad():
                    self.w.materialize(x.shape[-1:])
                    self.w.fill_(scale)
                    self.b.materialize(())
                    self.b.fill_(0.5)

            def forward(self, x, scale=1.0):
                return x * self.w + self.b
        m = Scale()
        before = (m.has_uninitialized_params(), list(m.state_dict()))
        x = lib.arange(6, dtype=lib.float64).reshape(2, 3).requires_grad_()
        y = m(x, scale=2.0)
        y.sum().backward()
        return before, y, x.grad, m.w.grad, type(m).__name__, m.has_uninitialized_params(), \
            hasattr(m, "_initialize_hook")
    run_both(prog)


def test_uninitialized_module_not_fully_initialized_raises():
    def prog(lib):
        class Half(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.UninitializedParameter()
                self.b = lib.nn.UninitializedParameter()

            def initialize_parameters(self, x):
                self.a.materialize((1,))

            def forward(self, x):
                return x
        return Half()(lib.ones(1))
    run_both(prog)


def test_deepcopy_of_uninitialized_module_is_independent():
    m = gg.nn.LazyLinear(3)
    c = copy.deepcopy(m)
    c(gg.ones(2, 5))
    assert type(c).__name__ == "Linear" and type(m).__name__ == "LazyLinear"
    assert m.has_uninitialized_params()
    m(gg.ones(2, 4))
    assert tuple(m.weight.shape) == (3, 4) and tuple(c.weight.shape) == (3, 5)


@pytest.mark.parametrize("case", ["step_before_forward", "state_dict", "numel",
                                  "parameters_to_vector", "clip_grad_norm", "adam_after",
                                  "zero_grad"])
def test_optimizers_and_utils_on_uninitialized_parameters_like_torch(case):
    def prog(lib):
        m = lib.nn.LazyLinear(2, dtype=lib.float64)
        opt = lib.optim.Adam(m.parameters(), lr=0.1, weight_decay=0.1)
        if case == "step_before_forward":
            opt.zero_grad()
            opt.step()
            return len(opt.state)
        if case == "state_dict":
            sd = opt.state_dict()
            return sd["param_groups"][0]["params"], len(sd["state"])
        if case == "numel":
            return sum(p.numel() for p in m.parameters())
        if case == "parameters_to_vector":
            return lib.nn.utils.parameters_to_vector(m.parameters())
        if case == "clip_grad_norm":
            return lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        if case == "zero_grad":
            opt.zero_grad(set_to_none=False)
            return [p.grad is None for p in m.parameters()]
        x = lib.linspace(-1, 1, 6, dtype=lib.float64).reshape(2, 3)
        with lib.no_grad():
            m(x)
            m.weight.copy_(lib.linspace(-1, 1, 6, dtype=lib.float64).reshape(2, 3))
            m.bias.zero_()
        for _ in range(2):
            opt.zero_grad()
            m(x).sum().backward()
            opt.step()
        return m.weight, m.bias, sorted(opt.state[m.weight])
    run_both(prog)


def test_save_load_and_pickle_of_an_uninitialized_module():
    import io
    import pickle
    m = gg.nn.LazyLinear(3, dtype=gg.float64)
    buf = io.BytesIO()
    gg.save(m.state_dict(), buf)
    for load in (lambda: gg.load(buf, weights_only=False),
                 lambda: torch.load(buf, weights_only=False)):
        buf.seek(0)
        sd = load()
        assert [type(v).__name__ for v in sd.values()] == ["UninitializedParameter"] * 2
    for lib in (gg, torch):  # weights-only loading refuses the class, as PyTorch's does
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError):
            lib.load(buf)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.has_uninitialized_params() and type(m2).__name__ == "LazyLinear"
    m2(gg.ones(1, 2))
    assert type(m2).__name__ == "Linear" and type(m).__name__ == "LazyLinear"
    assert not m2._forward_pre_hooks and m._forward_pre_hooks
