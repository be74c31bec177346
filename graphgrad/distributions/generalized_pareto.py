"""torch.distributions.GeneralizedPareto: the peaks-over-threshold distribution with
location, scale and shape (``concentration``; 0 is the exponential case)."""
from __future__ import annotations

import math
import numbers

from . import _ops, constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Survival function (1 + c z)^(-1/c), z = (x - loc) / scale (exp(-z) at c = 0)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, numbers.Number) for v in (loc, scale, concentration)):
            batch_shape = _ops.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(GeneralizedPareto, batch_shape,
                              ("loc", "scale", "concentration"), _instance)

    def _zero_and_safe(self):
        """Where the shape is (close to) 0, and the shape with those entries set to 1."""
        zero = self.concentration.isclose(_ops.zeros((), dtype=self.concentration.dtype))
        return zero, _ops.where(zero, 1.0, self.concentration)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_ops.rand(shape, dtype=self.loc.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, c = self._zero_and_safe()
        power = 1 / c + 1          # (0 at c = -1: the uniform case, log1p(-z) may be -inf)
        tail = _ops.where(power == 0, power, power * (c * z).log1p())
        return -self.scale.log() - _ops.where(zero, z, tail)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, c = self._zero_and_safe()
        return _ops.where(zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        zero, c = self._zero_and_safe()
        log_survival = (-value).log1p()
        return _ops.where(zero, self.loc - self.scale * log_survival,
                          self.loc + self.scale / c * (-c * log_survival).expm1())

    @property
    def mean(self):
        finite = self.concentration < 1
        c = _ops.where(finite, self.concentration, 0.5)
        return _ops.where(finite, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self):
        finite = self.concentration < 0.5
        c = _ops.where(finite, self.concentration, 0.25)
        return _ops.where(finite, self.scale ** 2 / ((1 - c) ** 2 * (1 - 2 * c)), math.nan)

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).expand(self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = _ops.where(self.concentration < 0,
                           self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
