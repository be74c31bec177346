"""Order-based reductions of complex tensors raise as PyTorch's: amax/amin/cummax/cummin of
an empty complex tensor that requires grad get autograd's RuntimeError ('amax does not
support automatic differentiation for outputs with complex dtype'; graphgrad returned an
empty result, fuzz seed 1489703), median/nanmedian the kernel's NotImplementedError (was a
RuntimeError), after the empty-dim IndexError."""
import pytest

from tests.conftest import run_both

CALLS = {
    "amax": lambda T, x: x.amax(-1), "amin": lambda T, x: x.amin(-1),
    "amax_all": lambda T, x: x.amax(), "cummax": lambda T, x: T.cummax(x, -1),
    "cummin": lambda T, x: T.cummin(x, -1), "median": lambda T, x: x.median(-1),
    "median_all": lambda T, x: x.median(), "nanmedian": lambda T, x: x.nanmedian(-1),
    "nanmedian_all": lambda T, x: x.nanmedian(),
}


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (2, 3)])
@pytest.mark.parametrize("name", CALLS)
def test_complex_input_is_refused_as_pytorch_does(name, shape, requires_grad):
    def program(T):
        x = T.ones(shape, dtype=T.complex128, requires_grad=requires_grad)
        return CALLS[name](T, x)
    run_both(program)
