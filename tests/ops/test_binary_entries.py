"""``graphgrad.add/sub/mul/div(a, b)`` and ``Tensor.mul(b)`` take the generated entry, as
``a * b`` does (issue 17 item 4): one Python frame from the call to the kernel and back,
and the same results as PyTorch for every form that falls back to the general function."""
import sys

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both


def _python_calls(fn):
    """The Python functions entered while ``fn()`` runs (C functions not counted)."""
    calls = []

    def prof(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return [c for c in calls if c != "<lambda>"]


@pytest.mark.parametrize("name,op", [("add", "__add__"), ("sub", "__sub__"),
                                     ("mul", "__mul__"), ("div", "__truediv__"),
                                     ("multiply", "__mul__"), ("subtract", "__sub__"),
                                     ("divide", "__truediv__")])
@pytest.mark.parametrize("other", ["tensor", "number"])
def test_function_form_is_one_frame_like_the_operator(name, op, other):
    a = graphgrad.rand(4, requires_grad=True) * 1  # (not a leaf: no AccumulateGrad made)
    b = graphgrad.rand(4) if other == "tensor" else 1.5
    fn = getattr(graphgrad, name)
    getattr(a, op)(b), fn(a, b), getattr(a, name)(b)  # (compiled on first use)
    inner = _python_calls(lambda: getattr(a, op)(b))
    assert inner[0] == op  # (then the kernel's own Python code, if any)
    assert _python_calls(lambda: fn(a, b)) == [fn.__name__] + inner[1:]
    assert _python_calls(lambda: getattr(a, name)(b)) == [fn.__name__] + inner[1:]
    assert fn.__code__.co_filename.startswith("<graphgrad entry graphgrad.")


def test_add_with_alpha_is_the_general_function_but_alpha_one_is_not():
    a, b = graphgrad.rand(3), graphgrad.rand(3)
    graphgrad.add(a, b, alpha=2)
    assert _python_calls(lambda: graphgrad.add(a, b, alpha=1)) == ["add"]
    assert len(_python_calls(lambda: graphgrad.add(a, b, alpha=2))) > 1


_FORMS = {
    "tensor_tensor": lambda lib, a, b: lib.mul(a, b),
    "tensor_int": lambda lib, a, b: lib.add(a, 3),
    "tensor_bool": lambda lib, a, b: lib.mul(a, True),
    "tensor_complex": lambda lib, a, b: lib.mul(a, 2j),
    "numpy_scalar": lambda lib, a, b: lib.sub(a, np.float64(2.5)),
    "number_first": lambda lib, a, b: lib.sub(2.0, a),
    "alpha_float": lambda lib, a, b: lib.add(a, b, alpha=0.5),
    "alpha_bool_true": lambda lib, a, b: lib.add(a, b, alpha=True),
    "alpha_int": lambda lib, a, b: lib.sub(a, b, alpha=3),
    "out": lambda lib, a, b: lib.div(a, b, out=lib.empty(3, dtype=lib.float64)),
    "rounding": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "int_tensors": lambda lib, a, b: lib.div(lib.tensor([3, 4, 5]), lib.tensor([2, 2, 2])),
    "float32_and_float64": lambda lib, a, b: lib.mul(a.float(), b),
    "method": lambda lib, a, b: a.mul(b).add(b).sub(a, alpha=2).div(b),
    "parameter": lambda lib, a, b: lib.mul(lib.nn.Parameter(a.detach()), b),
    "bad_other": lambda lib, a, b: lib.mul(a, "x"),
    "bad_input": lambda lib, a, b: lib.add([1.0], b),
    "bool_sub": lambda lib, a, b: lib.sub(lib.tensor([True]), lib.tensor([False])),
}


@pytest.mark.parametrize("form", list(_FORMS))
def test_forms_agree_with_torch(form):
    def program(lib):
        a = lib.tensor([1.0, -2.0, 3.5], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 4.0, -1.0], dtype=lib.float64)
        r = _FORMS[form](lib, a, b)
        if r.requires_grad:
            r.sum().backward()
        return r, a.grad
    run_both(program)
