"""The differential harness for nn layers: build a layer in graphgrad and in torch, copy
torch's weights into graphgrad's, run both on the same inputs and compare outputs, the
gradients of inputs and of every parameter, buffers (running statistics), state_dict keys,
parameter names/shapes and reprs."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg

torch = pytest.importorskip("torch")  # (differential helpers: modules using them skip without torch)

RTOL, ATOL = 1e-10, 1e-12


def nn_of(lib):
    return lib.nn


def to_lib(lib, a, requires_grad=None):
    """A tensor of ``lib`` holding the NumPy array ``a`` (floats require grad by default)."""
    if lib is torch:
        t = torch.from_numpy(np.array(a, copy=True))
    else:
        t = gg.tensor(np.array(a, copy=True))
    if requires_grad is None:
        requires_grad = np.asarray(a).dtype.kind == "f"
    return t.requires_grad_() if requires_grad else t


def np_of(t):
    return t.detach().numpy()


def copy_weights(gm, tm):
    """Load torch's state dict (parameters and buffers) into the graphgrad module."""
    sd = {k: gg.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    gm.load_state_dict(sd)


def flat_outputs(out):
    if out is None:
        return []
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in flat_outputs(o)]
    return [out]


def structure(out):
    if out is None:
        return None
    if isinstance(out, (tuple, list)):
        return tuple(structure(o) for o in out)
    return tuple(out.shape)


def close(a, b, what):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=what)


def check_layer(make, inputs, *, call=None, train=True, steps=1, check_repr=True,
                requires_grad=None):
    """``make(lib)`` builds the layer; ``inputs`` are NumPy arrays (floats require grad
    unless ``requires_grad`` says otherwise); ``call(module, *inputs)`` runs it (default
    ``module(*inputs)``).  Runs ``steps`` forward/backward passes; returns both modules."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny ops: torch's thread pool only costs time (2 shared CPUs)
    try:
        return _check_layer(make, inputs, call, train, steps, check_repr, requires_grad)
    finally:
        torch.set_num_threads(threads)


def _check_layer(make, inputs, call, train, steps, check_repr, requires_grad):
    call = call or (lambda m, *xs: m(*xs))
    tm, gm = make(torch), make(gg)
    if check_repr:
        assert repr(gm) == repr(tm)
    assert list(gm.state_dict().keys()) == list(tm.state_dict().keys())
    assert [(n, tuple(p.shape)) for n, p in gm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert [(n, tuple(b.shape)) for n, b in gm.named_buffers()] == \
        [(n, tuple(b.shape)) for n, b in tm.named_buffers()]
    copy_weights(gm, tm)
    gm.train(train)
    tm.train(train)
    rng = np.random.default_rng(1234)
    for step in range(steps):
        rg = requires_grad or [None] * len(inputs)
        xt = [to_lib(torch, a, r) if isinstance(a, np.ndarray) else a
              for a, r in zip(inputs, rg)]
        xg = [to_lib(gg, a, r) if isinstance(a, np.ndarray) else a
              for a, r in zip(inputs, rg)]
        ot, og = call(tm, *xt), call(gm, *xg)
        assert structure(og) == structure(ot), f"output structure {structure(og)} vs " \
                                               f"{structure(ot)}"
        ft, fg = flat_outputs(ot), flat_outputs(og)
        for i, (a, b) in enumerate(zip(fg, ft)):
            assert str(a.dtype).rsplit(".")[-1] == str(b.dtype).rsplit(".")[-1]
            close(np_of(a), np_of(b), f"step {step} output {i}")
        loss_t = loss_g = None
        for a, b in zip(fg, ft):
            if b.requires_grad and b.dtype.is_floating_point:
                w = rng.standard_normal(tuple(b.shape))
                lt = (b * torch.from_numpy(w)).sum()
                lg = (a * gg.tensor(w)).sum()
                loss_t = lt if loss_t is None else loss_t + lt
                loss_g = lg if loss_g is None else loss_g + lg
        if loss_t is not None:
            loss_t.backward()
            loss_g.backward()
            for i, (a, b) in enumerate(zip(xg, xt)):
                if isinstance(b, torch.Tensor) and b.requires_grad:
                    close(np_of(a.grad), np_of(b.grad), f"step {step} grad of input {i}")
        for (n, p), (_, q) in zip(gm.named_parameters(), tm.named_parameters()):
            if q.grad is None:
                assert p.grad is None, f"{n}.grad should be None"
            else:
                close(np_of(p.grad), np_of(q.grad), f"step {step} grad of {n}")
        for (n, p), (_, q) in zip(gm.named_buffers(), tm.named_buffers()):
            close(np_of(p), np_of(q), f"step {step} buffer {n}")
    return gm, tm


def needs(*names):
    """Skip unless graphgrad.nn.functional has these ops (they come from the functional
    helper's branch)."""
    import pytest
    import graphgrad.nn.functional as GF
    missing = [n for n in names if not hasattr(GF, n)]
    return pytest.mark.skipif(bool(missing), reason=f"graphgrad.nn.functional lacks {missing}")


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)
