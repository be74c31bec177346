"""The generated ``a @ b`` / ``matmul`` entry for two 2-D tensors, and what it hands to
the general matmul: results, dtypes, grad_fn names and errors as in PyTorch."""
import numpy as np
import pytest

from tests.conftest import Raised, run_both


def _pair(lib, da, db, sa=(3, 4), sb=(4, 2), req=True):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal(sa)).to(getattr(lib, da))
    b = lib.tensor(rng.standard_normal(sb)).to(getattr(lib, db))
    if req and a.is_floating_point():
        a.requires_grad_()
    return a, b


@pytest.mark.parametrize("how", ["operator", "function"])
@pytest.mark.parametrize("da,db", [("float32", "float32"), ("float64", "float64"),
                                   ("bfloat16", "bfloat16"), ("int64", "int64"),
                                   ("int8", "int8"), ("bool", "bool"), ("float32", "float64"),
                                   ("int64", "float32")])
def test_two_matrices(how, da, db):
    def prog(lib):
        a, b = _pair(lib, da, db, req=(da == db))
        try:
            out = a @ b if how == "operator" else lib.matmul(a, b)
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
        name = out.grad_fn.name() if out.grad_fn is not None else None
        return out.detach(), out.dtype, name
    run_both(prog)


@pytest.mark.parametrize("op", ["mm", "bmm", "mv", "dot"])
@pytest.mark.parametrize("dt", ["bfloat16", "bool", "float32"])
def test_other_products_keep_the_dtype_or_refuse_bool(op, dt):
    shapes = {"mm": ((3, 4), (4, 2)), "bmm": ((2, 3, 4), (2, 4, 2)), "mv": ((3, 4), (4,)),
              "dot": ((4,), (4,))}[op]

    def prog(lib):
        a, b = (lib.ones(s).to(getattr(lib, dt)) for s in shapes)
        try:
            out = getattr(lib, op)(a, b)
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
        return out, out.dtype
    run_both(prog)


@pytest.mark.parametrize("how", ["operator", "function"])
def test_gradients_through_the_entry(how):
    def prog(lib):
        a, b = _pair(lib, "float64", "float64")
        b.requires_grad_()
        out = a @ b if how == "operator" else lib.matmul(a, b)
        (out * out).sum().backward()
        return a.grad, b.grad
    run_both(prog)


@pytest.mark.parametrize("sa,sb", [((3, 4), (5, 2)), ((3, 4), (4,)), ((4,), (4, 2)),
                                   ((2, 3, 4), (4, 2)), ((3, 0), (0, 2))])
def test_other_shapes_and_mismatch(sa, sb):
    def prog(lib):
        a, b = _pair(lib, "float64", "float64", sa, sb)
        try:
            out = a @ b
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
        return out.detach(), out.grad_fn.name()
    run_both(prog)


def test_mismatch_message_names_both_shapes():
    import graphgrad
    a, b = graphgrad.ones(3, 4), graphgrad.ones(5, 2)
    msg = r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x2\)"
    with pytest.raises(RuntimeError, match=msg):
        a @ b


def test_non_tensor_operand():
    import graphgrad
    a = graphgrad.ones(2, 2)
    with pytest.raises(TypeError):
        a @ np.ones((2, 2)).tolist()
    with pytest.raises(TypeError):
        graphgrad.matmul(a, 3)
