"""Activations on complex and on empty tensors raise as PyTorch's: softmax/log_softmax's
kernels refuse complex and integer input only when they run, so an empty input gives an
empty result (fuzz seed 893411: log_softmax of an empty complex slice); hardtanh and relu6
are clamps, which refuse complex input (graphgrad returned a value). An empty complex input
that requires grad: PyTorch's autograd refuses a complex softmax ("_softmax does not support
automatic differentiation for outputs with complex dtype", a RuntimeError; fuzz seeds
1129845, 1179395, 1187261, 1188855: graphgrad returned the empty result)."""
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


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_complex_softmax_that_requires_grad_is_refused(name, shape):
    def prog(T):
        x = T.zeros(shape, dtype=T.complex128, requires_grad=True)
        return getattr(T.nn.functional, name)(x, -1)
    run_both(prog)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_complex_softmax_without_grad_and_from_a_real_input(name):
    def no_grad(T):
        x = T.zeros((0, 2), dtype=T.complex128, requires_grad=True)
        with T.no_grad():
            return getattr(T, name)(x, -1)

    def to_complex(T):
        return getattr(T, name)(T.zeros(0, dtype=T.float64, requires_grad=True), 0,
                                dtype=T.complex128)
    run_both(no_grad)
    run_both(to_complex)


@pytest.mark.parametrize("dtype", [None, "float64"])
def test_softmin_is_softmax_of_the_negation(dtype):
    def prog(T):
        x = T.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]], dtype=T.float32, requires_grad=True)
        kw = {} if dtype is None else {"dtype": getattr(T, dtype)}
        y = T.nn.functional.softmin(x, 1, **kw)
        (g,) = T.autograd.grad((y * T.arange(3.0, dtype=y.dtype)).sum(), x)
        return y, g
    run_both(prog)
