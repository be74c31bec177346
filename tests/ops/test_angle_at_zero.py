"""angle's derivative at complex 0 as PyTorch's angle_backward, where(z == 0, 0,
grad z / |z|^2 i): the incoming gradient inside the where, so the double backward with
respect to that gradient is NaN at 0 (0 * (0 / 0)), and a tangent at 0 is selected away
(fuzz seed 1289897: graphgrad's grad times a where gave 0 there)."""
import pytest

from tests.conftest import run_both

inf, nan = float("inf"), float("nan")


def test_double_backward_through_the_incoming_gradient():
    def program(T):
        z = T.tensor([0j, 1.5 - 0.5j, -2j], dtype=T.complex128, requires_grad=True)
        w = T.tensor([0.5, -1.25, 2.0], dtype=T.float64, requires_grad=True)
        a = T.where(z.abs() > 1, z, 0.0).angle()
        (gz,) = T.autograd.grad((a * w).sum(), z, create_graph=True)
        gw, gzz = T.autograd.grad((gz * T.tensor([1 + 2j, -1j, 3.0])).real.sum(), [w, z])
        return gz.detach(), gw, gzz
    run_both(program)


@pytest.mark.parametrize("t", [1 + 1j, complex(inf, 0), complex(nan, 1)])
def test_tangent_at_zero(t):
    def program(T):
        fwd = T.autograd.forward_ad
        with fwd.dual_level():
            z = fwd.make_dual(T.tensor([0j, 1.5 - 0.5j], dtype=T.complex128),
                              T.tensor([t, 2 - 1j], dtype=T.complex128))
            return fwd.unpack_dual(z.angle()).tangent
    run_both(program)
