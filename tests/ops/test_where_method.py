"""``Tensor.where(condition, y)`` is ``where(condition, self, y)``: the tensor gives the
values where the condition holds (it was taken as the condition: a float tensor raised, a
bool one silently gave where(self, condition, y))."""
import pytest


@pytest.mark.parametrize("case", ["float", "bool", "number", "grad"])
def test_where_method(torch, lib, case):
    c = lib.tensor([True, False, True])
    if case == "bool":
        r = lib.tensor([False, True, False]).where(c, lib.tensor([True, True, True]))
        assert r.tolist() == [False, True, False]
        return
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = 0.5 if case == "number" else lib.tensor([9.0, 9.0, 9.0], requires_grad=True)
    r = x.where(c, y)
    assert r.tolist() == [1.0, 9.0 if case != "number" else 0.5, 3.0]
    assert r.grad_fn.name() == "WhereBackward0"
    if case == "grad":
        r.sum().backward()
        assert x.grad.tolist() == [1.0, 0.0, 1.0] and y.grad.tolist() == [0.0, 1.0, 0.0]
