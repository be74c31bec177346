"""add/sub ``alpha`` checks and ``pow`` on integer and bool tensors, against PyTorch: every
combination of operand dtypes and alpha/exponent kinds gives PyTorch's dtype and values or
its exception type."""
import pytest

from tests.conftest import Raised, run_both


def _operands(lib):
    return {"int": lib.tensor([1, 2]), "bool": lib.tensor([True, False]),
            "float": lib.tensor([0.5, 2.0]), "complex": lib.tensor([1 + 1j])}


@pytest.mark.parametrize("fn", ["add", "sub", "add_", "sub_"])
@pytest.mark.parametrize("kind", ["int", "bool", "float", "complex"])
def test_alpha_is_checked_against_the_result_dtype(fn, kind):
    def prog(lib):
        out = []
        for other in ("self", 1, 2.5, True):
            for alpha in (True, False, 2, 0.5, 1.0, 1j, 1):
                x = _operands(lib)[kind].clone()
                y = x.clone() if other == "self" else other
                try:
                    r = getattr(x, fn)(y, alpha=alpha) if fn.endswith("_") else \
                        getattr(lib, fn)(x, y, alpha=alpha)
                    out.append((r.dtype, r))
                except Exception as exc:  # noqa: BLE001 - the type is what is compared
                    out.append(Raised(exc))
        return out
    run_both(prog)


@pytest.mark.parametrize("kind", ["int", "bool", "float"])
def test_pow_on_integer_and_bool_tensors(kind):
    def prog(lib):
        x = _operands(lib)[kind]
        out = []
        for y in list(_operands(lib).values())[:3] + [True, False, 2, 2.5, -1]:
            for f in (lambda: x ** y, lambda: y ** x, lambda: lib.pow(x, y)):
                try:
                    r = f()
                    out.append((r.dtype, r))
                except Exception as exc:  # noqa: BLE001
                    out.append(Raised(exc))
        return out
    run_both(prog)


def test_integer_power_with_negative_exponents():
    def prog(lib):
        a = lib.tensor([0, 1, -1, 2, -2, 3, 0, -1])
        e = lib.tensor([-1, -2, -3, -1, -2, 2, 0, -4])
        return a ** e, lib.pow(a.to(lib.int32), e.to(lib.int32))
    run_both(prog)
