"""torch.distributions.ExponentialFamily: the base of distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))``; its generic ``entropy`` is the Bregman divergence
of the log normaliser F (computed with autograd)."""
from __future__ import annotations

from ..autograd import grad as _grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of the exponential family (natural parameters, log normaliser)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """-E[k(x)] + F(theta) - <theta, grad F(theta)>."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = _grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
