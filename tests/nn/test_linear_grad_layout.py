"""A Linear weight's gradient: computed in the weight's layout (row-major, like PyTorch's
mm_mat2_backward for a transposed operand) and taken by AccumulateGrad without a copy, but
never shared with another tensor that still holds it."""
import numpy as np

from tests.conftest import run_both


def _linear_grads(lib):
    lib.manual_seed(0)
    x = lib.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=lib.float32)
    w = lib.tensor(np.linspace(-1, 1, 20).reshape(5, 4), dtype=lib.float32, requires_grad=True)
    b = lib.tensor(np.linspace(0, 1, 5), dtype=lib.float32, requires_grad=True)
    (lib.nn.functional.linear(x, w, b) ** 2).sum().backward()
    return w.grad, b.grad, w.grad.is_contiguous(), w.grad.stride()


def test_weight_grad_values_and_layout():
    ours, _ = run_both(_linear_grads)
    import graphgrad
    assert ours[0]._data.flags.c_contiguous


def test_weight_grad_is_owned_by_the_grad():
    import graphgrad
    w = graphgrad.randn(6, 4, requires_grad=True)
    graphgrad.nn.functional.linear(graphgrad.randn(3, 4), w, graphgrad.zeros(6)).sum().backward()
    assert w.grad._data.base is None  # taken as is, not copied, and no view of something


def test_grad_of_a_retained_transpose_is_not_shared():
    def prog(lib):
        w = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 4), requires_grad=True)
        wt = w.t()
        wt.retain_grad()
        (lib.ones(3, 4, dtype=lib.float64) @ wt * 2).sum().backward()
        before = wt.grad.clone()
        with lib.no_grad():
            w.grad.add_(100)
        return w.grad, wt.grad, before
    ours, _ = run_both(prog)
    assert ours[1].tolist() == ours[2].tolist()


def test_weight_grad_is_not_copied(monkeypatch):
    """The gradient reaches AccumulateGrad row-major and unshared: no copy (it was a strided
    transpose copy of every weight gradient, 0.18 s of a 0.8 s MLP step)."""
    import graphgrad
    copies = []
    real = np.copyto

    def spy(dst, src, *a, **k):
        copies.append(dst.shape)
        return real(dst, src, *a, **k)

    w = graphgrad.randn(6, 4, requires_grad=True)
    out = graphgrad.nn.functional.linear(graphgrad.randn(3, 4), w, graphgrad.zeros(6))
    monkeypatch.setattr(np, "copyto", spy)
    out.sum().backward()
    assert (6, 4) not in copies
