"""The generated ``mv`` entry (a 2-D and a 1-D tensor of one dtype on a plain thread:
one frame to the product and its record) and its fallback, the hand-written
``_mv_general``: results, dtypes, graphs, saved values, gradients and errors as in
PyTorch, and the same as the reference on every path."""
import numpy as np
import pytest

import graphgrad
from graphgrad.ops.api import linalg as LA
from tests.conftest import Raised, run_both

RNG = np.random.default_rng(3)
A34 = RNG.standard_normal((3, 4))
V4 = RNG.standard_normal(4)


def _call(lib, how, a, v):
    return {"operator": lambda: a @ v, "function": lambda: lib.mv(a, v),
            "method": lambda: a.mv(v), "matmul": lambda: lib.matmul(a, v)}[how]()


@pytest.mark.parametrize("how", ["operator", "function", "method", "matmul"])
@pytest.mark.parametrize("req", [(True, True), (True, False), (False, True), (False, False)])
def test_values_graph_and_gradients(how, req):
    def prog(lib):
        a = lib.tensor(A34, requires_grad=req[0])
        v = lib.tensor(V4, requires_grad=req[1])
        out = _call(lib, how, a, v)
        res = [out, out.requires_grad]
        if out.requires_grad:
            res.append(out.grad_fn.name())
            wrt = [t for t in (a, v) if t.requires_grad]
            res.append(lib.autograd.grad((out * out).sum(), wrt))
        return res
    run_both(prog)


@pytest.mark.parametrize("da,dv", [("float32", "float32"), ("bfloat16", "bfloat16"),
                                   ("float16", "float16"), ("int64", "int64"),
                                   ("bool", "bool"), ("complex128", "complex128"),
                                   ("float32", "float64"), ("int64", "float32")])
def test_dtypes_and_mixed_dtypes(da, dv):
    def prog(lib):
        a = lib.tensor(A34).to(getattr(lib, da))
        v = lib.tensor(V4).to(getattr(lib, dv))
        try:
            out = lib.mv(a, v)
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
        return out, out.dtype
    run_both(prog)


@pytest.mark.parametrize("sa,sv", [((3, 4), (5,)), ((3, 0), (0,)), ((0, 4), (4,)),
                                   ((3, 4, 1), (4,)), ((4,), (4,)), ((3, 4), (4, 1))])
def test_shapes_and_mismatches(sa, sv):
    def prog(lib):
        a = lib.ones(sa, dtype=lib.float64, requires_grad=True)
        v = lib.ones(sv, dtype=lib.float64)
        try:
            out = lib.mv(a, v)
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
        return out, out.grad_fn.name()
    run_both(prog)


def test_non_contiguous_operands():
    def prog(lib):
        at = lib.tensor(A34.T.copy(), requires_grad=True)
        v8 = lib.tensor(np.arange(8.0), requires_grad=True)
        out = lib.mv(at.t(), v8[::2])
        return out, lib.autograd.grad(out, (at, v8), lib.ones(3, dtype=lib.float64))
    run_both(prog)


@pytest.mark.parametrize("mode", ["no_grad", "inference", "forward_ad", "hooks"])
def test_non_plain_threads_take_the_general_path(mode):
    def prog(lib):
        a = lib.tensor(A34, requires_grad=True)
        v = lib.tensor(V4, requires_grad=True)
        if mode == "no_grad":
            with lib.no_grad():
                out = lib.mv(a, v)
            return out, out.requires_grad
        if mode == "inference":
            with lib.inference_mode():
                out = lib.mv(a, v)
            return out, out.requires_grad, out.is_inference()
        if mode == "forward_ad":
            import importlib
            fwAD = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
            with fwAD.dual_level():
                d = fwAD.make_dual(v.detach(), lib.ones(4, dtype=lib.float64))
                out = lib.mv(a, d)
                return fwAD.unpack_dual(out).tangent, out.grad_fn.name()
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t,
                                                    lambda t: t):
            out = lib.mv(a, v)
        (g,) = lib.autograd.grad(out.sum(), v)
        return out, g, len(packed)
    run_both(prog)


def test_a_non_tensor_operand():
    def prog(lib):
        try:
            return lib.mv(lib.tensor(A34), V4.tolist())
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
    run_both(prog)


def test_entry_and_reference_record_the_same_node():
    # the generated entry against the hand-written function it falls back to: the same
    # output, node class, edges and saved values (with their versions)
    a = graphgrad.tensor(A34, requires_grad=True)
    v = graphgrad.tensor(V4, requires_grad=True) * 1.0
    v.add_(0.0)  # (a saved version other than 0)
    outs = [graphgrad.mv(a, v), LA._mv_general(a, v)]
    n0, n1 = (o.grad_fn for o in outs)
    assert type(n0) is type(n1) and n0._next_edges == n1._next_edges
    assert n0._out_meta == n1._out_meta
    for k in (0, 1):
        assert getattr(n0, f"_saved{k}") is getattr(n1, f"_saved{k}")
        assert getattr(n0, f"_saved{k}_version") == getattr(n1, f"_saved{k}_version")
    np.testing.assert_array_equal(outs[0].detach().numpy(), outs[1].detach().numpy())
    assert graphgrad.mv is not LA._mv_general and LA.mv is graphgrad.mv
