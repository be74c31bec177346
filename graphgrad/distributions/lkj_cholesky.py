"""torch.distributions.LKJCholesky: the LKJ distribution of correlation matrices, over their
lower Cholesky factors L (density proportional to prod_i L_ii^(D - i + 2 (eta - 1)), rows
counted from 1; samples by the onion method)."""
from __future__ import annotations

import math

from . import _ops, constraints
from .distribution import Distribution
from .gamma import Beta
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors of ``dim`` x ``dim`` correlation matrices, with shape
    parameter ``concentration`` (1: uniform over correlation matrices)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if not isinstance(dim, int) or dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = _ops.Size((dim, dim))
        # the onion method (Lewandowski, Kurowicka & Joe 2009, section 3.2): row k (0-based)
        # has squared off-diagonal length y_k ~ Beta(k / 2, eta + (D - 2) / 2 - (k - 1) / 2)
        # spread over its k entries in a uniform direction (row 0: no entries; its Beta is
        # drawn and unused).  (PyTorch's first parameter is k - 1/2: docs/differences.md)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        conc1 = _ops.tensor([0.5] + [0.5 * k for k in range(1, dim)],
                            dtype=self.concentration.dtype)
        shift = _ops.tensor([0.0] + [0.5 * (k - 1) for k in range(1, dim)],
                            dtype=self.concentration.dtype)
        self._beta = Beta(conc1, marginal.unsqueeze(-1) - shift)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _ops.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with _ops.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = _ops.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            norm = u.norm(dim=-1, keepdim=True)
            u = _ops.where(norm > 0, u / _ops.where(norm > 0, norm, 1.0), 0.0)  # (row 0)
            w = y.sqrt() * u
            tiny = _ops.finfo(w.dtype).tiny
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + _ops.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        rows = _ops.tensor([float(i) for i in range(2, self.dim + 1)],
                           dtype=self.concentration.dtype)
        power = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - rows
        unnormalized = (power * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_normalizer = (0.5 * dm1 * math.log(math.pi) + _ops.mvlgamma(alpha - 0.5, dm1)
                          - alpha.lgamma() * dm1)
        return unnormalized - log_normalizer
