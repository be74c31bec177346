"""Complex reciprocal and rsqrt at 0, infinities and subnormals give PyTorch's values: its
complex reciprocal is the division 1 / z (1 / 0 = inf+nanj, 1 / inf = 0j), NumPy's
np.reciprocal gives nan+nanj and -0j there; a mask such as |rsqrt(z)| > 1 then selected
other elements, with other values, gradients and tangents (fuzz seeds 1013339, 1144944)."""
import pytest

from tests.conftest import run_both

inf, nan = float("inf"), float("nan")
VALUES = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), complex(inf, 0),
          complex(-inf, 0), complex(0, inf), complex(inf, inf), complex(nan, 0), 1e-320 + 0j,
          1e300 + 1e300j, 1e-300 + 1e-300j, 3 + 4j, -0.5 + 2j]


@pytest.mark.parametrize("call", ["x.reciprocal()", "T.rsqrt(x)", "1 / x", "2.5 / x",
                                  "x.clone().reciprocal_()", "x.clone().rsqrt_()"])
def test_values_at_special_points(call):
    def program(T):
        x = T.tensor(VALUES, dtype=T.complex128)
        return eval(call, {"T": T, "x": x})
    run_both(program)


@pytest.mark.parametrize("fn", ["rsqrt", "reciprocal"])
def test_mask_over_the_result_at_zero(fn):
    def program(T):
        z = T.tensor([0j, 0.5 - 0.25j], dtype=T.complex128, requires_grad=True)
        c = T.tensor([1.5 + 0.5j, -2.0 + 1j], dtype=T.complex128, requires_grad=True)
        y = T.where(getattr(T, fn)(z * 1).abs() > 1, c, 0.0)
        (g,) = T.autograd.grad(y.real.sum() + y.imag.sum(), c)
        fwd = T.autograd.forward_ad
        with fwd.dual_level():
            cd = fwd.make_dual(c.detach(), T.ones(2, dtype=T.complex128))
            tan = fwd.unpack_dual(T.where(getattr(T, fn)(z.detach()).abs() > 1, cd, 0.0)).tangent
        return y, g, tan
    run_both(program)


@pytest.mark.parametrize("call", ["x ** 0.5", "x ** -0.5", "x ** -1", "T.pow(x, -1.0)",
                                  "x.clone().pow_(-0.5)"])
def test_pow_by_a_half_or_minus_one_is_sqrt_rsqrt_or_reciprocal(call):
    """PyTorch's complex z ** 0.5, -0.5 and -1 are sqrt, rsqrt and 1 / z, with their special
    values at 0 and infinities (0 ** -1 is inf+nanj; NumPy's power: nan+nanj)."""
    def program(T):
        x = T.tensor(VALUES, dtype=T.complex128)
        return eval(call, {"T": T, "x": x})
    run_both(program)
