"""linalg.inv_ex / solve_ex / cholesky_ex report a singular or not positive-definite
matrix in ``info`` (LAPACK's code: the 1-based index of U's zero pivot, the order of the
leading minor that is not positive-definite) and return LAPACK's partial result, as
PyTorch's do: code that tests positive-definiteness with ``cholesky_ex(A).info == 0``
(torch.distributions' constraint) raised instead.  The strict functions, and the ``_ex``
ones with ``check_errors=True``, raise PyTorch's LinAlgError (a RuntimeError) with its
message: the pivot or minor, and the batch element."""
import numpy as np
import pytest

S = [[1.0, 2.0], [2.0, 4.0]]        # singular: U[1, 1] = 0 after pivoting
N = [[1.0, 2.0], [2.0, 1.0]]        # not positive-definite: minor of order 2
I2 = [[1.0, 0.0], [0.0, 1.0]]
N3 = [[4.0, 2.0, 1.0], [2.0, -1.0, 0.0], [1.0, 0.0, 3.0]]   # fails at order 2 of 3
NAN11 = [[float("nan"), 0.0], [0.0, 1.0]]
NAN22 = [[1.0, 0.0], [0.0, float("nan")]]

EX_CASES = [
    ("inv_ex", (S,), {}),
    ("inv_ex", ([I2, S, [[0.0, 0.0], [0.0, 0.0]]],), {}),
    ("solve_ex", (S, [[1.0, 0.0], [2.0, 1.0]]), {}),
    ("solve_ex", ([I2, S], [[1.0, 1.0], [1.0, 1.0]]), {}),
    ("solve_ex", (S, [1.0, 1.0]), {}),
    ("solve_ex", (S, [[1.0, 0.0], [2.0, 1.0]]), {"left": False}),
    ("cholesky_ex", (N,), {}),
    ("cholesky_ex", (N,), {"upper": True}),
    ("cholesky_ex", (N3,), {}),
    ("cholesky_ex", ([I2, N, [[-1.0, 0.0], [0.0, -1.0]], S],), {}),
    ("cholesky_ex", (NAN11,), {}),
    ("cholesky_ex", (NAN22,), {}),
    ("cholesky_ex", ([[[2.0, 1j], [-1j, 0.25]]],), {}),      # complex, fails at order 2
]


def _args(lib, args):
    return [lib.tensor(np.asarray(a, np.complex128 if np.iscomplexobj(np.asarray(a))
                                  else np.float64)) for a in args]


@pytest.mark.parametrize("name,args,kw", EX_CASES)
def test_ex_functions_return_info_and_the_partial_result(torch, name, args, kw):
    ours = getattr(__import__("graphgrad").linalg, name)(*_args(__import__("graphgrad"), args),
                                                         **kw)
    theirs = getattr(torch.linalg, name)(*_args(torch, args), **kw)
    assert ours[1].dtype.__str__().endswith("int32")
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name,args,kw,message", [
    ("inv", (S,), {}, "linalg.inv: The diagonal element 2 is zero, the inversion could not "
     "be completed because the input matrix is singular."),
    ("inv", ([I2, S],), {}, "linalg.inv: (Batch element 1): The diagonal element 2 is zero"),
    ("inv_ex", (S,), {"check_errors": True}, "linalg.inv_ex: The diagonal element 2 is zero"),
    ("solve", ([I2, S], I2), {}, "torch.linalg.solve: (Batch element 1): The solver failed "
     "because the input matrix is singular."),
    ("solve_ex", (S, I2), {"check_errors": True},
     "torch.linalg.solve_ex: The solver failed because the input matrix is singular."),
    ("cholesky", ([I2, N],), {}, "linalg.cholesky: (Batch element 1): The factorization "
     "could not be completed because the input is not positive-definite (the leading minor "
     "of order 2 is not positive-definite)."),
    ("cholesky_ex", (N3,), {"check_errors": True}, "linalg.cholesky_ex: The factorization "
     "could not be completed because the input is not positive-definite (the leading minor "
     "of order 2 is not positive-definite)."),
])
def test_strict_functions_raise_linalg_error(lib, name, args, kw, message):
    with pytest.raises(RuntimeError) as info:
        getattr(lib.linalg, name)(*_args(lib, args), **kw)
    assert type(info.value).__name__.endswith("LinAlgError")
    assert str(info.value).startswith(message)


def test_inverse_names_linalg_inv(lib):
    with pytest.raises(RuntimeError, match=r"^linalg.inv: The diagonal element 2 is zero"):
        lib.inverse(lib.tensor(S, dtype=lib.float64))


def test_nonsingular_batches_keep_their_graph_and_gradients(torch):
    import graphgrad
    A = np.array([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 1.0], [1.0, 2.0]]])
    for name in ("inv_ex", "cholesky_ex"):
        res = {}
        for lib in (graphgrad, torch):
            a = lib.tensor(A, requires_grad=True)
            out, info = getattr(lib.linalg, name)(a)
            assert not info.any()
            out.sum().backward()
            res[lib.__name__] = (out.grad_fn.name(), out.detach().numpy(), a.grad.numpy())
        assert res["graphgrad"][0] == res["torch"][0]
        np.testing.assert_allclose(res["graphgrad"][1], res["torch"][1], rtol=1e-12)
        np.testing.assert_allclose(res["graphgrad"][2], res["torch"][2], rtol=1e-12)


def test_positive_definite_check_idiom(lib):
    """torch.distributions' constraints.positive_definite: cholesky_ex(A).info.eq(0)."""
    A = lib.tensor([I2, N], dtype=lib.float64)
    assert lib.linalg.cholesky_ex(A).info.eq(0).tolist() == [True, False]


def test_under_vmap_info_is_per_example(torch):
    import graphgrad
    res = {}
    for lib in (graphgrad, torch):
        A = lib.tensor([I2, N, S], dtype=lib.float64)
        L, info = lib.func.vmap(lib.linalg.cholesky_ex)(A)
        inv, info2 = lib.func.vmap(lib.linalg.inv_ex)(A)
        res[lib.__name__] = (L.numpy(), info.tolist(), inv.numpy(), info2.tolist())
    assert res["graphgrad"][1] == res["torch"][1] == [0, 2, 2]
    assert res["graphgrad"][3] == res["torch"][3] == [0, 0, 2]
    np.testing.assert_allclose(res["graphgrad"][0], res["torch"][0], rtol=1e-12)
    np.testing.assert_allclose(res["graphgrad"][2], res["torch"][2], rtol=1e-12)


def test_under_vmap_strict_functions_raise(lib):
    A = lib.tensor([I2, N], dtype=lib.float64)
    with pytest.raises(RuntimeError, match="not positive-definite"):
        lib.func.vmap(lib.linalg.cholesky)(A)
    with pytest.raises(RuntimeError, match="singular"):
        lib.func.vmap(lib.linalg.inv)(lib.tensor([I2, S], dtype=lib.float64))


U0 = [[1.0, 2.0], [0.0, 0.0]]
Z2 = [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("case", ["tri_upper", "tri_zero", "tri_right", "tri_lower",
                                  "chol_solve_zero", "chol_solve_u0", "chol_solve_upper"])
def test_triangular_solves_with_a_zero_pivot_give_inf_nan(torch, case):
    """solve_triangular and cholesky_solve do not check the diagonal (LAPACK's trsm/potrs):
    PyTorch returns inf/nan where graphgrad raised."""
    import graphgrad
    res = []
    for lib in (graphgrad, torch):
        t = lambda a: lib.tensor(a, dtype=lib.float64)
        b = t([[1.0], [1.0]])
        if case == "tri_upper":
            r = lib.linalg.solve_triangular(t(U0), b, upper=True)
        elif case == "tri_zero":
            r = lib.linalg.solve_triangular(t(Z2), b, upper=True)
        elif case == "tri_right":
            r = lib.linalg.solve_triangular(t(U0), t([[1.0, 1.0]]), upper=True, left=False)
        elif case == "tri_lower":
            r = lib.linalg.solve_triangular(t([[0.0, 0.0], [3.0, 1.0]]), b, upper=False)
        elif case == "chol_solve_zero":
            r = lib.cholesky_solve(b, t(Z2))
        elif case == "chol_solve_u0":
            r = lib.cholesky_solve(b, t(U0))
        else:
            r = lib.cholesky_solve(b, t(U0), upper=True)
        res.append(r.numpy())
    np.testing.assert_array_equal(res[0], res[1])


def test_cholesky_inverse_names_the_zero_diagonal_element(lib):
    with pytest.raises(RuntimeError, match="^cholesky_inverse: The diagonal element 2 is zero"):
        lib.cholesky_inverse(lib.tensor(U0, dtype=lib.float64))
