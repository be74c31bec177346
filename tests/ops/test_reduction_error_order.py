"""Which error a max/min-family reduction of an empty complex tensor raises: PyTorch checks
the reduction dims first (an empty reduced dim: IndexError; no dim for an empty input:
RuntimeError), and its kernels only refuse complex input when they run, so an empty
result of amax/amin/cummax over complex is returned, not refused (fuzz seed 786076)."""
import pytest

from tests.conftest import run_both

CASES = {
    "amin()": lambda T, z: T.amin(z((0, 2))),
    "amax dim 0": lambda T, z: T.amax(z((0, 2)), 0),
    "amax dim 1": lambda T, z: T.amax(z((0, 2)), 1),
    "amax dim ()": lambda T, z: T.amax(z((0, 2)), ()),
    "amax nonempty": lambda T, z: T.amax(z((2,)), ()),
    "max()": lambda T, z: T.max(z((0, 2))),
    "max() nonempty": lambda T, z: T.max(z((2,))),
    "max dim 0": lambda T, z: T.max(z((0, 2)), 0),
    "max dim 1": lambda T, z: T.max(z((0, 2)), 1),
    "min dim 0 nonempty": lambda T, z: T.min(z((2,)), 0),
    "cummax empty": lambda T, z: T.cummax(z((0, 2)), 0),
    "cummin nonempty": lambda T, z: T.cummin(z((2,)), 0),
}


@pytest.mark.parametrize("name", CASES)
def test_empty_complex_extreme_reductions_raise_as_pytorch(name):
    run_both(lambda T: CASES[name](T, lambda s: T.zeros(s, dtype=T.complex128)))
