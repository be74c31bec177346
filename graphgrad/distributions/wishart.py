"""torch.distributions.Wishart: positive-definite p x p matrices, the sum of ``df`` outer
products of N(0, Sigma) vectors (df may be any real > p - 1); samples by the Bartlett
decomposition, reparameterised through the chi-squared (gamma) draws."""
from __future__ import annotations

import math
import numbers
import warnings

from . import _ops, constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """sum_{i<p} digamma(x - i/2), the derivative of mvlgamma(x, p)."""
    total = x.digamma()
    for i in range(1, p):
        total = total + (x - i / 2).digamma()
    return total


class Wishart(ExponentialFamily):
    """W_p(df, Sigma) with Sigma given as ``covariance_matrix``, ``precision_matrix`` or its
    lower Cholesky factor ``scale_tril``."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = _ops.Size(param.shape[:-2])
            self.df = _ops.tensor(float(df), dtype=param.dtype)
        else:
            batch_shape = _ops.Size(_ops.broadcast_shapes(tuple(param.shape[:-2]),
                                                          tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{p - 1}.")
        name = ("covariance_matrix" if covariance_matrix is not None else
                "precision_matrix" if precision_matrix is not None else "scale_tril")
        setattr(self, name, param.expand(tuple(batch_shape) + (-1, -1)))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _ops.cholesky_ex(covariance_matrix).L
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        steps = _ops.tensor([float(i) for i in range(p)], dtype=param.dtype)
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - steps.expand(tuple(batch_shape) + (p,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _ops.Size(batch_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(
                    tuple(batch_shape) + tuple(self.event_shape)))
        new.df = self.df.expand(batch_shape)
        new._dist_chi2 = self._dist_chi2.expand(tuple(batch_shape) + (self.event_shape[-1],))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

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
        L_inv = _ops.solve_triangular(L, _ops.eye(L.shape[-1], dtype=L.dtype), upper=False)
        return (L_inv.mT @ L_inv).expand(self._matrix_shape())

    def _df_matrix(self, t):
        return t.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.event_shape[-1] - 1
        factor = _ops.where(factor <= 0, math.nan, factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def rsample(self, sample_shape=()):
        # Bartlett: X = (L A)(L A)^T, A lower triangular with A_ii^2 ~ chi2(df - i) and
        # standard normal entries below the diagonal
        shape = self._extended_shape(sample_shape)
        noise = _ops.randn(shape, dtype=self._unbroadcasted_scale_tril.dtype).tril(-1)
        A = noise + _ops.diag_embed(self._dist_chi2.rsample(sample_shape).sqrt())
        LA = self._unbroadcasted_scale_tril @ A
        return LA @ LA.mT

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        log_det_L = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        L_inv = _ops.solve_triangular(L, _ops.eye(p, dtype=L.dtype), upper=False)
        # tr(Sigma^-1 X) = tr(L^-T L^-1 X) = sum(L^-1 * (L^-1 X))
        trace = (L_inv * (L_inv @ value)).sum((-2, -1))
        return (-nu * (p * _LOG_2 / 2 + log_det_L) - _ops.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * _ops.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_L) + _ops.mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        # log Z = (y + (p+1)/2) (p log 2 - log|-2 x|) + mvlgamma(y + (p+1)/2, p)
        p = self._event_shape[-1]
        a = y + (p + 1) / 2
        return a * (p * _LOG_2 - _ops.slogdet(-2 * x).logabsdet) + _ops.mvlgamma(a, p)
