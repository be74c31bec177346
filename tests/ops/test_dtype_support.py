"""Dtypes an op has no kernel for, as PyTorch has none: complex numbers have no order, so
ordering comparisons, relu and bitwise ops raise NotImplementedError on complex operands
(NumPy would compare them lexicographically, a silent wrong answer); bitwise ops refuse
floats; the pair losses run in the dtype input and target promote to (a complex target
raises, an int or bool input with a float target is fine); trace sums any integer type
to int64.  Same exception types and messages as PyTorch; values where it computes."""
import pytest

from tests.conftest import Raised, run_both

_FORMS = {
    "z > 0": lambda L, z, f: z > 0,
    "z < z": lambda L, z, f: z < z,
    "f >= 1j": lambda L, z, f: f >= 1j,
    "gt(f, z)": lambda L, z, f: L.gt(f, z),
    "z.le(1)": lambda L, z, f: z.le(1),
    "lt_": lambda L, z, f: z.clone().lt_(1),
    "z & z": lambda L, z, f: z & z,
    "bitwise_or(complex128)": lambda L, z, f: L.bitwise_or(z.to(L.complex128), 1),
    "z == z": lambda L, z, f: z == z,
    "z != 1j": lambda L, z, f: z != 1j,
    "mse_loss(f, z)": lambda L, z, f: L.nn.functional.mse_loss(f, z),
    "mse_loss(z, f)": lambda L, z, f: L.nn.functional.mse_loss(z, f),
    "mse_loss(bool, f)": lambda L, z, f: L.nn.functional.mse_loss(L.tensor(True), f),
    "mse_loss(int, f)": lambda L, z, f: L.nn.functional.mse_loss(f.long(), f * 2),
    "mse_loss(int, int)": lambda L, z, f: L.nn.functional.mse_loss(f.long(), f.long()),
    "smooth_l1_loss(int, f)": lambda L, z, f: L.nn.functional.smooth_l1_loss(f.long(), f / 4),
    "smooth_l1_loss(f, z)": lambda L, z, f: L.nn.functional.smooth_l1_loss(f, z),
    "relu(z)": lambda L, z, f: L.relu(z),
    "F.relu(z)": lambda L, z, f: L.nn.functional.relu(z),
    "relu_(z)": lambda L, z, f: z.clone().relu_(),
    "bitwise_not(f)": lambda L, z, f: L.bitwise_not(f),
    "bitwise_not(z)": lambda L, z, f: L.bitwise_not(z),
    "f & f": lambda L, z, f: f & f,
    "int ^ 1.5": lambda L, z, f: f.long() ^ 1.5,
    "~f": lambda L, z, f: ~f,
    "~int": lambda L, z, f: ~f.long(),
    "~bool": lambda L, z, f: ~(f > 1),
    "trace(uint8)": lambda L, z, f: L.trace(L.ones(2, 2, dtype=L.uint8) * 200),
    "trace(int32)": lambda L, z, f: L.trace(L.ones(2, 2, dtype=L.int32)),
    "trace(bool 1-d)": lambda L, z, f: L.trace(f > 1),
}


@pytest.mark.parametrize("form", list(_FORMS))
def test_complex_order_and_pair_loss_dtypes_as_pytorch(form):
    def prog(lib):
        z = lib.tensor([1 + 1j, 2 - 1j, 0.5j])
        f = lib.tensor([1.0, 2.0, 3.0])
        try:
            r = _FORMS[form](lib, z, f)
        except (RuntimeError, NotImplementedError, TypeError) as exc:
            return Raised(exc), str(exc)
        return r.dtype, r.tolist()
    run_both(prog)


_INPLACE_NUMBERS = {
    "int.pow_(2.5)": lambda L: L.tensor([1, 2]).pow_(2.5),
    "float.pow_(1j)": lambda L: L.tensor([1.0, 2.0]).pow_(1j),
    "bool.pow_(2)": lambda L: L.tensor([True]).pow_(2),
    "int.pow_(2)": lambda L: L.tensor([1, 2]).pow_(2),
    "int.clamp_(min=2.5)": lambda L: L.tensor([1, 2]).clamp_(min=2.5),
    "int.clamp_(1, 2)": lambda L: L.tensor([1, 3]).clamp_(1, 2),
    "int.clamp_min_(1.5)": lambda L: L.tensor([1, 2]).clamp_min_(1.5),
    "int.clamp_max_(1)": lambda L: L.tensor([1, 2]).clamp_max_(1),
    "float.fill_(1j)": lambda L: L.tensor([1.0, 2.0]).fill_(1j),
    "float.fill_(1+0j)": lambda L: L.tensor([1.0, 2.0]).fill_(1 + 0j),
    "int32.fill_(2j)": lambda L: L.tensor([1, 2], dtype=L.int32).fill_(2j),
    "bool.fill_(1j)": lambda L: L.tensor([False]).fill_(1j),
    "half.fill_(1j)": lambda L: L.tensor([1.0, 2.0]).half().fill_(1j),
}


@pytest.mark.parametrize("form", list(_INPLACE_NUMBERS))
def test_inplace_ops_check_their_numbers_against_the_dtype(form):
    """PyTorch refuses an in-place op whose Python-number operand would change the result
    type beyond what the tensor holds (an int tensor's pow_(2.5) does not truncate) and a
    complex fill value with an imaginary part on a real tensor."""
    import warnings

    def prog(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (no NumPy ComplexWarning either)
            try:
                r = _INPLACE_NUMBERS[form](lib)
            except RuntimeError as exc:
                return Raised(exc), str(exc).split(" (")[0].replace("long int", "Long")
        return r.dtype, r.tolist()
    run_both(prog)


def _ipow(x, y):
    x **= y
    return x


def _iand(x, y):
    x &= y
    return x


def _ior(x, y):
    x |= y
    return x


def _ixor(x, y):
    x ^= y
    return x


_INPLACE_OPERATORS = {
    "float **= 2": lambda L: _ipow(L.tensor([1.0, 2.0, 3.0]), 2),
    "int **= 2.5": lambda L: _ipow(L.tensor([1, 2]), 2.5),
    "int &= 5": lambda L: _iand(L.tensor([3, 6]), 5),
    "bool |= bool": lambda L: _ior(L.tensor([True, False]), L.tensor([False, False])),
    "int ^= int": lambda L: _ixor(L.tensor([3, 6]), L.tensor([1, 1])),
    "float &= 1": lambda L: _iand(L.tensor([1.0, 2.0]), 1),
    "bitwise_and_": lambda L: L.tensor([3, 6]).bitwise_and_(5),
    "bitwise_not_": lambda L: L.tensor([3, 6]).bitwise_not_(),
    "bitwise_xor_": lambda L: L.tensor([True, False]).bitwise_xor_(True),
    "add(int, 1.5, out=int)": lambda L: L.add(L.tensor([1, 2]), 1.5, out=L.tensor([0, 0])),
    "sin(float, out=int)": lambda L: L.sin(L.tensor([1.0, 2.0]), out=L.tensor([0, 0])),
    "add(float, 1j, out=float)": lambda L: L.add(L.tensor([1.0]), 1j, out=L.tensor([0.0])),
    "add(int, 1, out=float)": lambda L: L.add(L.tensor([1, 2]), 1, out=L.tensor([0.0, 0.0])),
    "eq(out=float)": lambda L: L.eq(L.tensor([1.0, 2.0]), 1, out=L.tensor([0.0, 0.0])),
    "sum(float, out=int)": lambda L: L.sum(L.tensor([1.5, 2.0]), 0, out=L.tensor(0)),
}


@pytest.mark.parametrize("form", list(_INPLACE_OPERATORS))
def test_inplace_operators_and_out_casting(form):
    """``x **= y``, ``&=``, ``|=``, ``^=`` work in place (a view sees the change and the
    version counter moves; Python's fallback to ``x = x ** y`` would not), and an
    elementwise op's ``out=`` must be able to hold the result type (reductions compute in
    ``out``'s dtype instead), as in PyTorch."""
    def prog(lib):
        try:
            r = _INPLACE_OPERATORS[form](lib)
        except (RuntimeError, NotImplementedError) as exc:
            return Raised(exc), str(exc).split(" (")[0]
        return r.dtype, r.tolist(), r._version
    run_both(prog)


def test_inplace_power_is_seen_by_views():
    def prog(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        v = x[1:]
        x **= 2
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        b **= 3
        b.sum().backward()
        return v.tolist(), v._version, a.grad.tolist(), b.grad_fn.name()
    run_both(prog)
