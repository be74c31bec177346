"""``scatter(..., reduce='add' | 'multiply')`` and ``scatter_``: PyTorch's values (duplicate
indices accumulate), a ``torch::autograd::NotImplemented`` node whose backward raises, no
forward derivative, and its error for other reductions."""
import pytest

from tests.conftest import Raised, run_both


@pytest.mark.parametrize("reduce", ["add", "multiply", "mean"])
@pytest.mark.parametrize("source", ["tensor", "value", "inplace", "0-d"])
def test_scatter_with_a_reduction_as_pytorch(reduce, source):
    def prog(lib):
        x = (lib.arange(12.).reshape(3, 4) + 1).requires_grad_()
        src = (lib.arange(8.).reshape(2, 4) + 2).requires_grad_()
        idx = lib.tensor([[0, 1, 2, 0], [0, 2, 0, 1]])
        try:
            if source == "tensor":
                r = x.scatter(0, idx, src, reduce=reduce)
            elif source == "value":
                r = lib.scatter(x, 1, idx, value=2.5, reduce=reduce)
            elif source == "inplace":
                r = x.detach().clone()
                r.scatter_(0, idx, src.detach(), reduce=reduce)
                return r.tolist(), r._version
            else:
                r = lib.tensor(5.).requires_grad_().scatter(0, lib.tensor(0), 3., reduce=reduce)
        except RuntimeError as exc:
            return Raised(exc)
        out = [r.tolist(), r.grad_fn.name()]
        try:
            r.sum().backward()
        except RuntimeError as exc:
            out.append(Raised(exc))
        return out
    run_both(prog)


def test_scatter_with_a_reduction_has_no_forward_derivative():
    def prog(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.ones(3, 4), lib.ones(3, 4))
            try:
                x.scatter(0, lib.tensor([[0, 1, 2, 0]]), 2.0, reduce="add")
            except Exception as exc:  # noqa: BLE001 - the type is what is compared
                return Raised(exc)
    run_both(prog)
