"""``t ** number`` and ``number - t`` of a float tensor go through ``dispatch.unary_attr``,
dispatch's steps without its generic ones on a plain thread (grad mode on, nothing
extra), and through ``dispatch`` otherwise: both must agree with torch (values, dtypes,
grad_fn names, gradients, errors) in every grad mode."""
import pytest

from graphgrad.ops.derivatives.pointwise import POW, RSUB
from tests.conftest import run_both
from tests.grad_modes import GRAD_MODES, grad_modes


def test_ops_fit_the_contract():
    for op in (POW, RSUB):
        assert op.n_outputs == 1 and not op.is_view


@pytest.mark.parametrize("mode", GRAD_MODES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_pow_and_rsub_with_numbers_match_torch(mode, dtype):
    def program(lib):
        x = lib.tensor([0.5, 1.5, 2.5, -1.0], dtype=getattr(lib, dtype), requires_grad=True)
        with grad_modes(lib)[mode]():
            ys = [x ** 2, x ** 2.0, x ** 3, x ** -0.5, x ** 0.5, 1.0 - x, 2 - x, 1e-3 - x]
        out = [(y, y.dtype, y.requires_grad) for y in ys]
        if ys[0].requires_grad:
            sum(y.nan_to_num().sum() for y in ys).backward()
            out.append(x.grad)
        return out
    run_both(program)


@pytest.mark.parametrize("dtype", ["int64", "bool", "bfloat16"])
def test_other_dtypes_take_the_general_path_like_torch(dtype):
    def program(lib):
        x = lib.tensor([1, 0, 1], dtype=getattr(lib, dtype))
        out = []
        for f in (lambda: 1.0 - x, lambda: 2 - x, lambda: x ** 2, lambda: x ** 2.0):
            try:
                r = f()
                out.append((r, r.dtype))
            except (RuntimeError, TypeError) as e:
                out.append(type(e).__name__)
        return out
    run_both(program)


def test_parameter_and_saved_version_match_torch():
    def program(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0, 3.0]))
        y = p ** 2
        z = 1.0 - p
        out = [type(y).__name__, type(z.grad_fn).__name__, type(y.grad_fn).__name__]
        (y.sum() + z.sum()).backward()
        out.append(p.grad)
        q = lib.tensor([1.0, 2.0], requires_grad=True) * 1.0
        w = q ** 3
        q.mul_(2.0)   # pow saved q: its backward must fail
        try:
            w.sum().backward()
        except RuntimeError:
            out.append("raised")
        return out
    run_both(program)
