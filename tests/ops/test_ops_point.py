"""The ops-point functions beyond the op table's generic checks: bad input raises PyTorch's
exception type (the message naming the op), and the behaviours PyTorch shows that the table
does not reach (deprecation warnings, ``positive``'s identity, ``torch.cross``'s default dim,
heaviside's missing derivative)."""
import warnings

import numpy as np
import pytest

from tests.conftest import Raised, run_both


def _f(lib, *s, dt="float32"):
    return lib.ones(*s, dtype=getattr(lib, dt))


def _i(lib, *s):
    return lib.ones(*s, dtype=lib.int64)


BAD = {
    "addmv dtypes": lambda lib: lib.addmv(_f(lib, 3), _f(lib, 3, 4), _f(lib, 4, dt="float64")),
    "addmv sizes": lambda lib: lib.addmv(_f(lib, 3), _f(lib, 3, 4), _f(lib, 5)),
    "addmv self": lambda lib: lib.addmv(_f(lib, 2), _f(lib, 3, 4), _f(lib, 4)),
    "addmv 1-d mat": lambda lib: lib.addmv(_f(lib, 3), _f(lib, 4), _f(lib, 4)),
    "addmv bool": lambda lib: lib.addmv(*(x.bool() for x in (_f(lib, 3), _f(lib, 3, 4),
                                                             _f(lib, 4)))),
    "addr 2-d": lambda lib: lib.addr(_f(lib, 3, 4), _f(lib, 3, 1), _f(lib, 4)),
    "addr self": lambda lib: lib.addr(_f(lib, 3, 5), _f(lib, 3), _f(lib, 4)),
    "addr int float beta": lambda lib: lib.addr(_i(lib, 3, 4), _i(lib, 3), _i(lib, 4),
                                                beta=0.5),
    "baddbmm batches": lambda lib: lib.baddbmm(_f(lib, 2, 3, 4), _f(lib, 2, 3, 5),
                                               _f(lib, 3, 5, 4)),
    "baddbmm 2-d": lambda lib: lib.baddbmm(_f(lib, 3, 4), _f(lib, 3, 5), _f(lib, 5, 4)),
    "baddbmm dtypes": lambda lib: lib.baddbmm(_f(lib, 2, 3, 4), _f(lib, 2, 3, 5),
                                              _f(lib, 2, 5, 4, dt="float64")),
    "baddbmm self dtype": lambda lib: lib.baddbmm(_f(lib, 2, 3, 4, dt="float64"),
                                                  _f(lib, 2, 3, 5), _f(lib, 2, 5, 4)),
    "addbmm batches": lambda lib: lib.addbmm(_f(lib, 3, 4), _f(lib, 2, 3, 5), _f(lib, 3, 5, 4)),
    "addbmm self": lambda lib: lib.addbmm(_f(lib, 3, 5), _f(lib, 2, 3, 5), _f(lib, 2, 5, 4)),
    "addbmm dtypes": lambda lib: lib.addbmm(_f(lib, 3, 4), _f(lib, 2, 3, 5),
                                            _f(lib, 2, 5, 4, dt="float64")),
    "cross length": lambda lib: lib.linalg.cross(_f(lib, 4), _f(lib, 4)),
    "cross ranks": lambda lib: lib.linalg.cross(_f(lib, 2, 3), _f(lib, 3)),
    "cross dtypes": lambda lib: lib.linalg.cross(_f(lib, 3), _f(lib, 3, dt="float64")),
    "cross dim": lambda lib: lib.linalg.cross(_f(lib, 3), _f(lib, 3), dim=2),
    "cross no size 3": lambda lib: lib.cross(_f(lib, 2, 4), _f(lib, 2, 4)),
    "cross bool": lambda lib: lib.linalg.cross(_f(lib, 3).bool(), _f(lib, 3).bool()),
    "inner sizes": lambda lib: lib.inner(_f(lib, 3), _f(lib, 4)),
    "inner dtypes": lambda lib: lib.inner(_f(lib, 3), _f(lib, 3, dt="float64")),
    "multi_dot one": lambda lib: lib.linalg.multi_dot([_f(lib, 2, 2)]),
    "multi_dot 3-d": lambda lib: lib.linalg.multi_dot([_f(lib, 2, 2), _f(lib, 2, 2, 2)]),
    "multi_dot sizes": lambda lib: lib.linalg.multi_dot([_f(lib, 2, 3), _f(lib, 2, 2)]),
    "vecdot int": lambda lib: lib.linalg.vecdot(_i(lib, 3), _i(lib, 3)),
    "matrix_power square": lambda lib: lib.matrix_power(_f(lib, 2, 3), 2),
    "matrix_power float n": lambda lib: lib.matrix_power(_f(lib, 2, 2), 2.0),
    "fmax complex": lambda lib: lib.fmax(_f(lib, 3, dt="complex64"), _f(lib, 3, dt="complex64")),
    "copysign complex": lambda lib: lib.copysign(_f(lib, 3, dt="complex64"), _f(lib, 3)),
    "heaviside dtypes": lambda lib: lib.heaviside(_f(lib, 3), _f(lib, 3, dt="float64")),
    "heaviside complex": lambda lib: lib.heaviside(_f(lib, 3, dt="complex64"),
                                                   _f(lib, 3, dt="complex64")),
    "logaddexp2 int": lambda lib: lib.logaddexp2(_i(lib, 3), _i(lib, 3)),
    "float_power_ float": lambda lib: _f(lib, 3).float_power_(2),
    "deg2rad complex": lambda lib: lib.deg2rad(_f(lib, 3, dt="complex64")),
    "deg2rad_ int": lambda lib: _i(lib, 3).deg2rad_(),
    "isposinf complex": lambda lib: lib.isposinf(_f(lib, 3, dt="complex64")),
    "frexp int": lambda lib: lib.frexp(_i(lib, 3)),
    "nextafter int": lambda lib: lib.nextafter(_i(lib, 3), _i(lib, 3)),
    "gcd float": lambda lib: lib.gcd(_f(lib, 3), _f(lib, 3)),
    "gcd number": lambda lib: lib.gcd(_i(lib, 3), 3),
    "lshift float": lambda lib: lib.bitwise_left_shift(_f(lib, 3), _f(lib, 3)),
    "rsub bool": lambda lib: lib.rsub(_f(lib, 3).bool(), _f(lib, 3).bool()),
    "positive bool": lambda lib: lib.positive(_f(lib, 3).bool()),
    "matrix_exp int": lambda lib: lib.matrix_exp(_i(lib, 3, 3)),
    "matrix_exp not square": lambda lib: lib.matrix_exp(_f(lib, 3, 2)),
    "pinv int": lambda lib: lib.linalg.pinv(_i(lib, 3, 3)),
    "pinv 1-d": lambda lib: lib.linalg.pinv(_f(lib, 3)),
    "cholesky int": lambda lib: lib.cholesky(lib.eye(3, dtype=lib.int64)),
    "cholesky half": lambda lib: lib.cholesky(lib.eye(3, dtype=lib.float16)),
    "cholesky 1-d": lambda lib: lib.cholesky(_f(lib, 3)),
    "cholesky_solve dtypes": lambda lib: lib.cholesky_solve(_f(lib, 3, 2),
                                                            lib.eye(3, dtype=lib.float64)),
    "cholesky_solve sizes": lambda lib: lib.cholesky_solve(_f(lib, 4, 2), lib.eye(3)),
    "cholesky_solve 1-d": lambda lib: lib.cholesky_solve(_f(lib, 3), lib.eye(3)),
    "cholesky_inverse not square": lambda lib: lib.cholesky_inverse(_f(lib, 2, 3)),
    "cholesky_inverse int": lambda lib: lib.cholesky_inverse(lib.eye(3, dtype=lib.int64)),
    "vander 2-d": lambda lib: lib.vander(_f(lib, 2, 2)),
    "vander negative N": lambda lib: lib.vander(_f(lib, 3), -1),
    "linalg.vander bool": lambda lib: lib.linalg.vander(_f(lib, 3).bool()),
    "solve_triangular 1-d B": lambda lib: lib.linalg.solve_triangular(lib.eye(3), _f(lib, 3),
                                                                      upper=True),
    "solve_triangular sizes": lambda lib: lib.linalg.solve_triangular(lib.eye(3),
                                                                      _f(lib, 4, 2), upper=True),
    "solve_triangular not square": lambda lib: lib.linalg.solve_triangular(
        _f(lib, 3, 4), _f(lib, 3, 2), upper=True),
    "solve_triangular int": lambda lib: lib.linalg.solve_triangular(
        lib.eye(3, dtype=lib.int64), _i(lib, 3, 2), upper=True),
    "solve_triangular no upper": lambda lib: lib.linalg.solve_triangular(lib.eye(3),
                                                                         _f(lib, 3, 2)),
    "lstsq dtypes": lambda lib: lib.linalg.lstsq(_f(lib, 4, 3), _f(lib, 4, 2, dt="float64")),
    "lstsq driver": lambda lib: lib.linalg.lstsq(_f(lib, 4, 3), _f(lib, 4, 2), driver="x"),
    "lstsq int": lambda lib: lib.linalg.lstsq(_i(lib, 4, 3), _i(lib, 4, 2)),
    "matrix_rank int": lambda lib: lib.linalg.matrix_rank(_i(lib, 3, 3)),
    "cond bad p": lambda lib: lib.linalg.cond(lib.eye(3), 3),
    "tensorinv shapes": lambda lib: lib.linalg.tensorinv(_f(lib, 2, 3, 4), ind=1),
    "tensorinv ind": lambda lib: lib.linalg.tensorinv(_f(lib, 2, 2), ind=0),
    "eig int": lambda lib: lib.linalg.eig(lib.eye(2, dtype=lib.int64)),
    "eig half": lambda lib: lib.linalg.eig(lib.eye(2, dtype=lib.float16)),
    "eigvals not square": lambda lib: lib.linalg.eigvals(_f(lib, 2, 3)),
    "lu_factor int": lambda lib: lib.linalg.lu_factor(_i(lib, 3, 3)),
    "lu_factor no pivot": lambda lib: lib.linalg.lu_factor(lib.eye(3), pivot=False),
    "lu 1-d": lambda lib: lib.linalg.lu(_f(lib, 3)),
    "lu_solve int": lambda lib: lib.linalg.lu_solve(_i(lib, 3, 3), lib.arange(1, 4).int(),
                                                    _i(lib, 3, 2)),
    "lu_solve sizes": lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.arange(1, 4).int(),
                                                      _f(lib, 4, 2)),
    "householder wide": lambda lib: lib.linalg.householder_product(_f(lib, 3, 4), _f(lib, 2)),
    "householder tau": lambda lib: lib.linalg.householder_product(_f(lib, 4, 3), _f(lib, 4)),
    "householder dtypes": lambda lib: lib.linalg.householder_product(
        _f(lib, 4, 3), _f(lib, 2, dt="float64")),
    "ldl_factor int": lambda lib: lib.linalg.ldl_factor(_i(lib, 3, 3)),
    "ldl_factor not square": lambda lib: lib.linalg.ldl_factor(_f(lib, 3, 2)),
    "ldl_solve dtypes": lambda lib: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(lib.eye(3)), _f(lib, 3, 2, dt="float64")),
    "ldl_factor half": lambda lib: lib.linalg.ldl_factor(_f(lib, 3, 3, dt="float16")),
    "ldl_solve half": lambda lib: lib.linalg.ldl_solve(
        *(t.half() if t.is_floating_point() else t for t in lib.linalg.ldl_factor(lib.eye(3))),
        _f(lib, 3, 2, dt="float16")),
    "ldl_solve half b": lambda lib: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(lib.eye(3)), _f(lib, 3, 2, dt="float16")),
    "tensorsolve shapes": lambda lib: lib.linalg.tensorsolve(_f(lib, 6, 4, 2, 3), _f(lib, 6, 4)),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_raises_pytorchs_exception(name):
    def prog(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                BAD[name](lib)
            except Exception as exc:  # noqa: BLE001 - the type is what is compared
                return Raised(exc)
        return "no error"
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised)


def test_positive_returns_its_input():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        return lib.positive(x) is x
    assert run_both(prog)[0] is True


def test_heaviside_has_no_derivative():
    def prog(lib):
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        y = lib.heaviside(x, lib.tensor([0.5, 0.5, 0.5]))
        out = [y.tolist(), y.requires_grad, y.grad_fn.name()]
        try:
            y.sum().backward()
        except RuntimeError as exc:
            out.append(Raised(exc))
        return out
    run_both(prog)


@pytest.mark.parametrize("call", ["cross", "chain_matmul", "cholesky"])
def test_deprecated_forms_warn_once(call):
    """PyTorch warns once per process (TORCH_WARN_ONCE); so does graphgrad."""
    import graphgrad as gg
    from graphgrad.ops.api import linalg_products

    def run(lib):
        if call == "cross":
            return lib.cross(lib.ones(2, 3), lib.ones(2, 3))
        if call == "chain_matmul":
            return lib.chain_matmul(lib.ones(2, 3), lib.ones(3, 2))
        return lib.cholesky(lib.eye(2))

    linalg_products.WARNED.discard(call)
    for expect in (True, False):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            run(gg)
        assert any(issubclass(x.category, UserWarning) for x in w) is expect

    def prog(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run(lib)
    run_both(prog)


def test_torch_cross_default_dim_is_the_first_of_size_3():
    def prog(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = lib.arange(18.).reshape(3, 3, 2).sin()
            b = lib.arange(18.).reshape(3, 3, 2).cos()
            return lib.cross(a, b), lib.linalg.cross(a, b, dim=0)
    run_both(prog)


def test_ldexp_integer_exponent_gradient_is_two_to_the_exponent():
    """PyTorch 2.13's gradient is 0 where an integer exponent is negative (its 2 ** e in
    integers); graphgrad's is 2 ** e (docs/differences.md)."""
    import graphgrad as gg
    x = gg.tensor([1.5, -0.5, 3.0], dtype=gg.float64, requires_grad=True)
    e = gg.tensor([-2, 0, 3])
    (g,) = gg.autograd.grad(gg.ldexp(x, e).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [0.25, 1.0, 8.0])


def test_lstsq_residuals_gradient_is_their_derivative():
    """PyTorch's backward drops the residuals' gradient; graphgrad's is the derivative of
    |A X - B|^2 at the optimum X (finite differences)."""
    import graphgrad as gg
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))

    def res(a_, b_):
        return gg.linalg.lstsq(gg.tensor(a_), gg.tensor(b_), driver="gelsd").residuals.sum()
    A, B = gg.tensor(a, requires_grad=True), gg.tensor(b, requires_grad=True)
    gA, gB = gg.autograd.grad(gg.linalg.lstsq(A, B, driver="gelsd").residuals.sum(), (A, B))
    eps = 1e-6
    for x, g in ((a, gA), (b, gB)):
        num = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            old = x[idx]
            x[idx] = old + eps
            hi = float(res(a, b))
            x[idx] = old - eps
            lo = float(res(a, b))
            x[idx] = old
            num[idx] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-7)


def test_vander_differentiates():
    """PyTorch 2.13's vander raises in backward; graphgrad's gradient is the polynomial's."""
    import graphgrad as gg
    x = gg.tensor([0.5, 2.0], dtype=gg.float64, requires_grad=True)
    (g,) = gg.autograd.grad(gg.vander(x, 3).sum(), x)   # d/dx (x^2 + x + 1) = 2x + 1
    np.testing.assert_allclose(g.numpy(), [2.0, 5.0])


def test_matrix_exp_matches_scipy_on_large_norms():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    import graphgrad as gg
    rng = np.random.default_rng(0)
    for scale in (1e-3, 1.0, 10.0, 50.0):
        a = rng.standard_normal((2, 5, 5)) * scale
        got = gg.matrix_exp(gg.tensor(a)).numpy()
        want = np.stack([scipy_linalg.expm(m) for m in a])
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12 * np.abs(want).max())


def test_shift_operators():
    def prog(lib):
        a = lib.tensor([1, 2, -8])
        b = a.clone()
        b <<= 2
        c = a.clone()
        c >>= lib.tensor([1, 0, 2])
        out = [a << 1, 1 << a.abs(), a >> 1, 16 >> a.abs(), b, c]
        try:
            lib.tensor([1.5]) << 1
        except NotImplementedError as exc:
            out.append(Raised(exc))
        return out
    run_both(prog)


def test_eig_gradient_against_finite_differences():
    """A real loss of the eigenvalues' parts and of |V| (phase-invariant)."""
    import graphgrad as gg
    rng = np.random.default_rng(3)
    a, w, w2 = rng.standard_normal((4, 4)), rng.standard_normal(4), rng.standard_normal(4)

    def loss(x):
        L, V = gg.linalg.eig(x)
        return ((L.real * gg.tensor(w)).sum() + (L.imag * gg.tensor(w2)).sum()
                + (V.abs() * gg.tensor(w)).sum())
    x = gg.tensor(a, requires_grad=True)
    (g,) = gg.autograd.grad(loss(x), x)
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        b = a.copy()
        b[idx] += 1e-6
        hi = float(loss(gg.tensor(b)))
        b[idx] -= 2e-6
        num[idx] = (hi - float(loss(gg.tensor(b)))) / 2e-6
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-7)


def test_eig_phase_dependent_loss_raises():
    def prog(lib):
        x = lib.tensor([[1.0, 2.0], [-3.0, 0.5]], requires_grad=True)
        L, V = lib.linalg.eig(x)
        try:
            V.imag.sum().backward()
        except RuntimeError as exc:
            return Raised(exc)
    run_both(prog)


def test_ldl_has_no_derivative():
    def prog(lib):
        a = lib.tensor([[2.0, 1.0], [1.0, -3.0]], requires_grad=True)
        LD, piv = lib.linalg.ldl_factor(a)
        out = [LD.tolist(), piv.tolist(), LD.requires_grad, LD.grad_fn.name()]
        try:
            LD.sum().backward()
        except RuntimeError as exc:
            out.append(Raised(exc))
        return out
    run_both(prog)


def test_ldl_pivots_are_lapacks():
    """Random symmetric matrices, many needing 2x2 pivots: PyTorch's pivots and factors."""
    def prog(lib):
        rng = np.random.default_rng(7)
        out = []
        for trial in range(40):
            n = int(rng.integers(2, 7))
            a = rng.standard_normal((n, n))
            a = a + a.T
            if trial % 3 == 0:
                a[0, 0], a[1, 1] = 0.0, 0.01
            LD, piv = lib.linalg.ldl_factor(lib.tensor(a))
            X = lib.linalg.ldl_solve(LD, piv, lib.tensor(rng.standard_normal((n, 2))))
            out += [LD, piv, X]
        return out
    run_both(prog)


EDGE = {   # values (and dtypes) at edges of the inputs' domains, against PyTorch
    "addmv int alpha": lambda L: L.addmv(L.tensor([1, 2, 3]), L.tensor([[1, 2], [3, 4], [5, 6]]),
                                         L.tensor([7, 8]), beta=2, alpha=3),
    "addr bool": lambda L: L.addr(L.tensor([[True, False], [False, False]]),
                                  L.tensor([True, False]), L.tensor([False, True])),
    "baddbmm beta 0 ignores NaN": lambda L: L.baddbmm(L.full((2, 2, 2), float("nan")),
                                                      L.ones(2, 2, 3), L.ones(2, 3, 2), beta=0),
    "copysign -0, NaN": lambda L: L.copysign(L.tensor([1.0, -2.0, 3.0]),
                                             L.tensor([-0.0, 0.0, float("nan")])),
    "fmax NaN": lambda L: L.fmax(L.tensor([float("nan"), 1.0, float("nan")]),
                                 L.tensor([float("nan"), float("nan"), 2.0])),
    "float_power complex": lambda L: L.float_power(L.tensor([2.0, 3.0]), 1j),
    "frexp specials": lambda L: L.frexp(L.tensor([0.0, -0.0, float("inf"), float("nan"),
                                                  1e-310, -3.5])),
    "gcd negative": lambda L: L.gcd(L.tensor([-4, 0, 7]), L.tensor([6, 0, -21])),
    "shift out of range": lambda L: L.bitwise_right_shift(L.tensor([-8, 8, -1]),
                                                          L.tensor([1, 70, 3])),
    "shift uint8": lambda L: L.bitwise_left_shift(L.tensor([1, 64], dtype=L.uint8), 9),
    "i0, i1 large": lambda L: (L.i0(L.tensor([0.0, 100.0, -700.0, 800.0])),
                               L.special.i1(L.tensor([0.0, -100.0, 700.0, 800.0]))),
    "matrix_power int": lambda L: L.matrix_power(L.tensor([[1, 1], [1, 0]]), 10),
    "vander bool": lambda L: L.vander(L.tensor([True, False])),
    "matrix_exp 0x0": lambda L: L.matrix_exp(L.zeros(0, 0)),
    "pinv of zeros": lambda L: L.linalg.pinv(L.zeros(3, 2)),
    "lstsq gelss": lambda L: L.linalg.lstsq(L.tensor([[1.0, 2], [3, 4], [5, 6]]),
                                            L.tensor([[1.0], [2], [4]]), driver="gelss"),
    "multi_dot 4": lambda L: L.linalg.multi_dot([L.ones(2, 5), L.ones(5, 1), L.ones(1, 7),
                                                 L.ones(7, 3)]),
}


@pytest.mark.parametrize("name", list(EDGE))
def test_edge_values_as_pytorch(name):
    def prog(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return EDGE[name](lib)
    run_both(prog)
