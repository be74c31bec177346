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


def _graph(fn, depth=8):
    """The node names below ``fn`` as nested text (AccumulateGrad left out)."""
    if fn is None or depth == 0 or fn.name().endswith("AccumulateGrad"):
        return ""
    kids = [k for k in (_graph(f, depth - 1) for f, _ in fn.next_functions) if k]
    return fn.name() + (f"({', '.join(kids)})" if kids else "")


@pytest.mark.parametrize("sa,sb", [((3,), (2, 3, 4)), ((2, 3), (5, 3, 4)),
                                   ((2, 3), (2, 5, 3, 4)), ((4,), (2, 3, 4, 5)),
                                   ((5, 2, 3), (3,)), ((5, 2, 3), (5, 3, 4)),
                                   ((2, 0), (3, 0, 4)), ((0,), (2, 0, 3))])
@pytest.mark.parametrize("req", [(True, True), (True, False), (False, True), (False, False)])
def test_batched_products_build_pytorchs_graph(sa, sb, req):
    """A 1-D/2-D operand that requires grad times a batch folds into one mv/mm as in
    PyTorch (b^T copied, the result an UnsafeView, for 2-D a transposed back and made
    contiguous); otherwise bmm, its result shaped by one unsafe view, never a view."""
    def prog(lib):
        rng = np.random.default_rng(0)
        a = lib.tensor(rng.standard_normal(sa), requires_grad=req[0])
        b = lib.tensor(rng.standard_normal(sb), requires_grad=req[1])
        out = a @ b
        res = [out.detach(), out._base is not None, out.is_contiguous(), _graph(out.grad_fn)]
        if out.requires_grad:
            cot = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
            res.append(lib.autograd.grad(out, [t for t in (a, b) if t.requires_grad], cot))
        return res
    run_both(prog)


@pytest.mark.parametrize("sa,sb", [((3,), (2, 4, 4)), ((2, 3), (2, 4, 5))])
def test_batched_product_shape_mismatch_when_folding(sa, sb):
    def prog(lib):
        a = lib.randn(*sa, requires_grad=True)
        try:
            a @ lib.randn(*sb)
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
    run_both(prog)


@pytest.mark.parametrize("sb", [(2, 1, 3), (2, 3, 1, 4), (2, 0, 3), (4, 3, 2)])
def test_vector_times_batch_folds_where_pytorch_does(sb):
    """A vector that does not require grad folds too where b^T folds without a copy."""
    def prog(lib):
        a = lib.ones(sb[-2])
        b = lib.ones(*sb, requires_grad=True)
        out = a @ b
        return out.detach(), _graph(out.grad_fn)
    run_both(prog)
