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


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_operators_with_python_scalars_keep_half_precision(dt):
    def prog(lib):
        a = lib.tensor([1.0, 2.5]).to(getattr(lib, dt))
        return [(r.dtype, r.float()) for r in (a * 1.7, a - 1.7, a + 2, a / 3.0, 2.5 * a)]
    run_both(prog)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["linalg.det", "det", "linalg.slogdet", "logdet", "linalg.inv",
                                "linalg.svd", "linalg.svdvals", "linalg.cholesky", "linalg.qr",
                                "linalg.eigh", "linalg.solve", "linalg.matrix_norm",
                                "linalg.norm", "nuc", "two", "one", "inf"])
def test_linalg_in_half_precision(fn, dt):
    """PyTorch refuses LAPACK ops in half precision, some with NotImplementedError naming
    the kernel, some with a RuntimeError; the Frobenius, 1 and inf norms are computed."""
    def prog(lib):
        x = lib.tensor([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]]).to(getattr(lib, dt))
        norms = {"nuc": "nuc", "two": 2, "one": 1, "inf": float("inf")}
        f = (lambda a: lib.linalg.matrix_norm(a, norms[fn])) if fn in norms else \
            (lambda a: lib.linalg.solve(a, a)) if fn == "linalg.solve" else \
            getattr(lib.linalg, fn[7:]) if fn.startswith("linalg.") else getattr(lib, fn)
        try:
            r = f(x)
        except Exception as exc:  # noqa: BLE001
            return Raised(exc)
        return r.dtype, r.float()
    run_both(prog)


def test_class_weights_must_have_the_input_dtype():
    def prog(lib):
        F = lib.nn.functional
        x, t = lib.randn(4, 5), lib.tensor([0, 1, 2, 3])
        out = []
        for f in (lambda: F.cross_entropy(x, t, weight=lib.rand(5, dtype=lib.float64)),
                  lambda: F.nll_loss(x, t, weight=lib.rand(5, dtype=lib.float64)),
                  lambda: F.cross_entropy(x.double(), t, weight=lib.rand(5)),
                  lambda: F.cross_entropy(x, t, weight=lib.ones(5)).dtype):
            try:
                out.append(f())
            except Exception as exc:  # noqa: BLE001
                out.append(Raised(exc))
        return out
    run_both(prog)
