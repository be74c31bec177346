"""torch.distributions.MultivariateNormal, parametrised by a covariance matrix, a precision
matrix or the lower Cholesky factor ``scale_tril`` of the covariance (all computations go
through that factor)."""
from __future__ import annotations

import math

from . import _ops, constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batches."""
    return (bmat @ bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x over broadcast batches: |L^-1 x|^2."""
    n = bx.size(-1)
    shape = _ops.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = bL.expand(tuple(shape) + (n, n))
    x = bx.expand(tuple(shape) + (n,))
    sol = _ops.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return sol.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1, through the Cholesky factor of P flipped."""
    Lf = _ops.cholesky_ex(P.flip((-2, -1))).L
    L_inv = Lf.flip((-2, -1)).mT
    Id = _ops.eye(P.shape[-1], dtype=P.dtype)
    return _ops.solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """N(loc, Sigma) over vectors of ``loc.shape[-1]`` entries."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (
                precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        for name, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                        ("precision_matrix", precision_matrix)):
            if m is None:
                continue
            if m.dim() < 2:
                raise ValueError(f"{name} matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = _ops.broadcast_shapes(tuple(m.shape[:-2]), tuple(loc.shape[:-1]))
            setattr(self, name, m.expand(tuple(batch_shape) + (-1, -1)))
        batch_shape = _ops.Size(batch_shape)
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _ops.cholesky_ex(covariance_matrix).L
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(MultivariateNormal, batch_shape,
                             ("loc", "covariance_matrix", "scale_tril", "precision_matrix"),
                             _instance)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        Id = _ops.eye(L.shape[-1], dtype=L.dtype)
        L_inv = _ops.solve_triangular(L, Id, upper=False)
        return (L_inv.mT @ L_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _ops.randn(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
