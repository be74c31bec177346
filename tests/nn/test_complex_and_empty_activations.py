"""Activations on complex and on empty tensors raise as PyTorch's: softmax/log_softmax's
kernels refuse complex and integer input only when they run, so an empty input gives an
empty result (fuzz seed 893411: log_softmax of an empty complex slice); hardtanh and relu6
are clamps, which refuse complex input (graphgrad returned a value)."""
import pytest

from tests.conftest import run_both

CASES = {
    "softmax": lambda F, x: F.softmax(x, -1),
    "log_softmax": lambda F, x: F.log_softmax(x, -1),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh_": lambda F, x: F.hardtanh(x.clone(), inplace=True),
    "relu6": lambda F, x: F.relu6(x),
}


@pytest.mark.parametrize("shape", [(0, 2), (2, 3)])
@pytest.mark.parametrize("dtype", ["complex128", "int64", "float64"])
@pytest.mark.parametrize("name", CASES)
def test_activation_dtype_errors_as_pytorchs(name, dtype, shape):
    run_both(lambda T: CASES[name](T.nn.functional, T.ones(shape, dtype=getattr(T, dtype))))
