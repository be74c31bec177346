"""The table, random_ops family: in-place sampling: uniform_, normal_, bernoulli_, ....

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/random_ops.py, public functions in ops/api/random_ops.py.
"""
from __future__ import annotations

from .. import formulas as F
from . import ZERO
from ..registry import POINTWISE, defop
from ..kernels.random_ops import _draw_kernel


# =========================================== samplers: the result is draw(self), the gradient zero
def _sampler(name, node):
    """A one-input op whose result is ``draw(self)`` and whose gradient is zero."""
    return defop(f"{name}(self, *, draw)", _draw_kernel, node, self=ZERO,
                 jvp=lambda self_t: F.zeros_like(self_t), batched_jvp=True)


UNIFORM = _sampler("uniform", "UniformBackward0")
NORMAL_ = _sampler("normal", "NormalBackward0")
BERNOULLI_P = _sampler("bernoulli.float", "BernoulliBackward2")
EXPONENTIAL = _sampler("exponential", "ExponentialBackward0")
RANDOM_FROM = _sampler("random.from", "RandomBackward0")
RANDOM_TO = _sampler("random.to", "RandomBackward1")
RANDOM = _sampler("random", "RandomBackward2")
GEOMETRIC = _sampler("geometric", "GeometricBackward0")
LOG_NORMAL = _sampler("log_normal", "LogNormalBackward0")
CAUCHY = _sampler("cauchy", "CauchyBackward0")
BERNOULLI = _sampler("bernoulli", "BernoulliBackward0")
POISSON = _sampler("poisson", "PoissonBackward0")


def _no_derivative(grad):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


# bernoulli(input, p): PyTorch records a node that refuses to differentiate
BERNOULLI_P_OUT = defop("bernoulli.p(self, *, draw)", _draw_kernel, "NotImplemented",
                        self=_no_derivative, jvp=lambda self_t: _no_derivative(self_t),
                        batched_jvp=True)
BERNOULLI_T = defop("bernoulli.Tensor(self, p, *, draw)", _draw_kernel, "BernoulliBackward1",
                    self=ZERO, p=lambda grad, p_sym_sizes: F.sum_to(F.zeros_like(grad),
                                                                         p_sym_sizes),
                    jvp=lambda self_t: F.zeros_like(self_t), batched_jvp=True)
NORMAL_TF = defop("normal.Tensor_float(mean, *, draw)", _draw_kernel, "NormalBackward1",
                  mean=ZERO, jvp=lambda mean_t: F.zeros_like(mean_t), batched_jvp=True)
NORMAL_FT = defop("normal.float_Tensor(std, *, draw)", _draw_kernel, "NormalBackward2",
                  std=ZERO, jvp=lambda std_t: F.zeros_like(std_t), batched_jvp=True)
NORMAL_TT = defop("normal.Tensor_Tensor(mean, std, *, draw)", _draw_kernel, "NormalBackward3",
                  mean=lambda grad, mean_sym_sizes: F.sum_to(F.zeros_like(grad), mean_sym_sizes),
                  std=lambda grad, std_sym_sizes: F.sum_to(F.zeros_like(grad), std_sym_sizes),
                  jvp=lambda mean_t, std_t: F.zeros_like(mean_t + std_t),
                  batched_jvp=POINTWISE)
