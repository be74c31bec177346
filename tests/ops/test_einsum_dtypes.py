"""einsum on operands of different dtypes, against PyTorch: promoted when no subscript is
summed between operands (PyTorch multiplies them: outer and elementwise products, sums
within one operand; 0-d operands take part in the promotion), a RuntimeError when one
is (PyTorch's bmm wants one dtype).  Values and gradients too."""
import numpy as np
import pytest

from tests.conftest import Raised, run_both

_CASES = {
    "outer": ("i,j->ij", ("f32", "f64")),
    "elementwise": ("ij,ij->ij", ("f32", "f64")),
    "sum_within": ("ij,k->ik", ("f32", "f64")),
    "three": ("i,j,k->ijk", ("f32", "f64", "f16")),
    "int_operand": ("ij,j->ij", ("f32", "i64")),
    "half_pair": ("i,i->i", ("bf16", "f16")),
    "zero_dim": ("ij,->ij", ("f32", "f64 0-d")),
    "contracted": ("ij,jk->ik", ("f32", "f64")),
    "contracted_int": ("ij,j->i", ("f32", "i64")),
    "full_sum": ("ij,ij->", ("f32", "f64")),
}


def _operand(lib, kind, term, rng):
    v = rng.standard_normal(tuple({"i": 2, "j": 3, "k": 4}[c] for c in term))
    if kind.startswith("i64"):
        return lib.tensor(np.round(v * 3).astype(np.int64))
    dt = {"f32": lib.float32, "f64": lib.float64, "f16": lib.float16, "bf16": lib.bfloat16}
    return lib.tensor(v).to(dt[kind.split()[0]]).requires_grad_()


@pytest.mark.parametrize("case", list(_CASES))
def test_einsum_of_different_dtypes_as_pytorch(case):
    eq, kinds = _CASES[case]
    terms = eq.split("->")[0].split(",")

    def prog(lib):
        rng = np.random.default_rng(0)
        ops = [_operand(lib, k, t, rng) for k, t in zip(kinds, terms)]
        try:
            r = lib.einsum(eq, *ops)
        except RuntimeError as exc:
            return Raised(exc)
        r.float().sum().backward()
        return (r.dtype, r.detach().double().numpy().round(3).tolist(),
                [(o.grad.dtype, o.grad.double().numpy().round(3).tolist())
                 for o in ops if o.requires_grad])
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised) == case.startswith(("contracted", "full_sum"))
