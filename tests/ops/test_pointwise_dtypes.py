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


_HALF_SCALAR_FORMS = {
    "x * s": lambda lib, x, s: x * s, "s * x": lambda lib, x, s: s * x,
    "x / s": lambda lib, x, s: x / s, "s / x": lambda lib, x, s: s / x,
    "mul": lambda lib, x, s: lib.mul(x, s), "div": lambda lib, x, s: lib.div(x, s),
    "x.mul": lambda lib, x, s: x.mul(s), "true_divide": lambda lib, x, s: lib.true_divide(x, s),
    "mul_": lambda lib, x, s: x.clone().mul_(s), "div_": lambda lib, x, s: x.clone().div_(s),
    "x *= s": lambda lib, x, s: _imul(x.clone(), s),
}


def _imul(x, s):
    x *= s
    return x


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
@pytest.mark.parametrize("form", list(_HALF_SCALAR_FORMS))
def test_half_times_a_python_number_is_computed_in_float32(form, dt):
    """PyTorch multiplies/divides a bfloat16 or float16 tensor by a Python float or int in
    float32 (the number not rounded to the tensor's dtype first) and rounds once: the same
    bits, element for element (rounding 0.1 first changed about one element in five in
    bfloat16, one in three in float16; 257 is 256 in bfloat16, 2049 is 2048 in
    float16)."""
    import numpy as np
    # (values that float16 holds exactly: PyTorch rounds float64 to float16 through float32)
    values = (np.random.default_rng(1).standard_normal(2000) * 3).astype(np.float16)
    values = values.astype(np.float64)

    def prog(lib):
        x = lib.tensor(values).to(getattr(lib, dt))
        out = [_HALF_SCALAR_FORMS[form](lib, x, s)
               for s in (0.1, 1.7, -3.3, 1e-3, 257, -2049, 3)]
        return [(r.dtype, r.float().numpy().tobytes()) for r in out]
    run_both(prog)


@pytest.mark.parametrize("exponent", [3, 3.0, -2, -2.0, 2, -1, 0.5, 1.5, 4])
def test_bfloat16_powers_round_as_pytorch(exponent):
    """PyTorch computes bfloat16 x**3 and x**-2 as products rounded at each step
    ((x*x)*x, 1/(x*x)), other exponents in float32 rounded once: the same bits."""
    import numpy as np
    values = np.random.default_rng(1).standard_normal(2000) * 3
    if exponent % 1:
        values = np.abs(values)  # (NaN bit patterns differ between the libraries)

    def prog(lib):
        x = lib.tensor(values).to(lib.bfloat16)
        return [(r.dtype, r.float().numpy().tobytes()) for r in (x ** exponent,
                                                               lib.pow(x, exponent))]
    run_both(prog)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bfloat16_mse_loss_rounds_as_pytorch(reduction):
    """bfloat16 mse_loss: PyTorch rounds the difference and its square to bfloat16, then
    sums in float32 and rounds once: the same bits."""
    import numpy as np
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((50, 80)) * 3, rng.standard_normal((50, 80))

    def prog(lib):
        x, y = lib.tensor(a).to(lib.bfloat16), lib.tensor(b).to(lib.bfloat16)
        out = [lib.nn.functional.mse_loss(x[i], y[i], reduction=reduction) for i in range(50)]
        return [(r.dtype, r.float().numpy().tobytes()) for r in out]
    run_both(prog)


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("how", [".to", ".half", "tensor(ndarray)", "tensor(list)",
                                 "as_tensor", "tensor(tensor)"])
def test_float64_to_float16_rounds_through_float32(how, half):
    """PyTorch makes a float16 or bfloat16 from a float64 through float32 (two roundings):
    values halfway between two half values after the first rounding end as PyTorch's.
    The bfloat16 data leads with values just above such a tie (1 + 2^-8 + 2^-30 is 1.0
    through float32, 1 + 2^-7 in one rounding)."""
    import numpy as np
    values = np.random.default_rng(1).standard_normal(200000) * 3
    if half == "bfloat16":
        ties = (1 + 2.0 ** -8) * 2.0 ** np.arange(-20, 20)
        values = np.concatenate([ties * (1 + 2.0 ** -30), -ties * (1 + 2.0 ** -31), values])

    def prog(lib):
        f16 = getattr(lib, half)
        t = {".to": lambda: lib.tensor(values).to(f16),
             ".half": lambda: getattr(lib.tensor(values), half)(),
             "tensor(ndarray)": lambda: lib.tensor(values, dtype=f16),
             "tensor(list)": lambda: lib.tensor(values[:20000].tolist(), dtype=f16),
             "as_tensor": lambda: lib.as_tensor(values, dtype=f16),
             "tensor(tensor)": lambda: lib.tensor(lib.tensor(values), dtype=f16)}[how]()
        return t.dtype, t.float().numpy().tobytes()
    with pytest.warns(UserWarning) if how == "tensor(tensor)" else _no_warning():
        run_both(prog)


def _no_warning():
    import contextlib
    return contextlib.nullcontext()
