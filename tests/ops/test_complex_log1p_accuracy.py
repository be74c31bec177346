"""Complex log1p away from 0 (near z = -1 above all) is as accurate as PyTorch's: the
formula log1p(2x + x^2 + y^2) / 2 for log|1 + z| is for small |z| only; near -1 the sum
cancels (log1p(tanh(-5.4 + 0.5j)) was 5e-9 off, fuzz seed 1180625)."""
import numpy as np
import pytest

import graphgrad

inf, nan = float("inf"), float("nan")
POINTS = [complex(-0.999978807082004, 3.332486394719553e-05), complex(-0.9, 0.3),
          complex(-1.5, 0.01), complex(2.0, -3.0), complex(0.3, 0.2), complex(-0.3, 0.39),
          complex(-1e-20, 1e-10), 1e-300j, complex(-0.0, 0.0), complex(-1.0, 1e-300),
          complex(1e300, 1e300), complex(-1.0, 0.0), complex(inf, 0.0), complex(-inf, 1.0),
          complex(nan, 0.0), complex(0.0, inf)]


def test_log1p_near_minus_one_matches_pytorch_to_rounding(torch):
    z = np.array(POINTS)
    ours = graphgrad.log1p(graphgrad.tensor(z)).numpy()
    theirs = torch.log1p(torch.tensor(z)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_log1p_of_tanh_and_its_gradient(torch, dtype):
    def run(T):
        x = T.tensor([complex(-5.416263568650246, 0.5021894316856731), complex(0.2, -0.1),
                      complex(-7.175458925484845, 1.3230889719845558)],
                     dtype=getattr(T, dtype), requires_grad=True)
        y = T.tanh(x).log1p()
        (g,) = T.autograd.grad(y.real.sum(), x)
        return y.detach().numpy(), g.numpy()
    (y0, g0), (y1, g1) = run(graphgrad), run(torch)
    rtol = 1e-13 if dtype == "complex128" else 1e-5
    np.testing.assert_allclose(y0, y1, rtol=rtol)
    np.testing.assert_allclose(g0, g1, rtol=rtol)
