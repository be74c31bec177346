"""torch.distributions.transforms: invertible maps with the log |det Jacobian| that
TransformedDistribution needs.  ``t(x)``, ``t.inv(y)``, ``t.log_abs_det_jacobian(x, y)``;
``cache_size=1`` remembers the last (x, y) pair so that ``inv`` of a sample returns the
exact input.  The base classes are in _transform_base.py."""
from __future__ import annotations

import math
import numbers

from . import _ops, constraints
from .utils import tril_matrix_to_vec, vec_to_tril_matrix
from ._transform_cat import CatTransform, StackTransform
from ._transform_base import (ComposeTransform, IndependentTransform, ReshapeTransform,
                              Transform, identity_transform)

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
    "CorrCholeskyTransform", "CumulativeDistributionTransform",
    "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform",
    "TanhTransform",
    "Transform", "identity_transform",
]


class ExpTransform(Transform):
    """y = exp(x)."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent (on positive x)."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return _ops.broadcast_shapes(tuple(shape), tuple(getattr(self.exponent, "shape", ())))

    def inverse_shape(self, shape):
        return _ops.broadcast_shapes(tuple(shape), tuple(getattr(self.exponent, "shape", ())))


def _broadcast(*values):
    from_number = [_ops.tensor(float(v)) if isinstance(v, numbers.Number) else v
                   for v in values]
    return from_number


def _clipped_sigmoid(x):
    finfo = _ops.finfo(x.dtype)
    return x.sigmoid().clamp(min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """y = sigmoid(x) (kept inside (0, 1))."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = _ops.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -_ops.softplus(-x) - _ops.softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    def _call(self, x):
        return _ops.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_ops.softplus(-x)


class TanhTransform(Transform):
    """y = tanh(x) (the squashing of SAC policies)."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2), written stably
        return 2.0 * (math.log(2.0) - x - _ops.softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x| (not injective: its inverse is the identity on y >= 0)."""
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x (``event_dim``: how many rightmost dims make one event)."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((_ops.as_tensor(a) == _ops.as_tensor(b)).all()):
                return False
        return True

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = _ops.full(shape, math.log(abs(scale)), dtype=x.dtype)
        else:
            result = scale.abs().log()
        if self.event_dim:
            result = result.reshape(result.shape[:result.dim() - self.event_dim] + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return _ops.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                     tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        return _ops.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                     tuple(getattr(self.scale, "shape", ())))


class SoftmaxTransform(Transform):
    """x -> softmax(x) over the last dim (not bijective: inverse up to a constant)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        probs = (x - x.max(-1, keepdim=True)[0]).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """R^(K-1) -> the K-simplex by stick breaking (bijective; biject_to(simplex))."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return _ops.pad(z, [0, 1], value=1) * _ops.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=_ops.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + _ops.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Unconstrained matrices -> lower-triangular ones with a positive diagonal (exp)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Unconstrained matrices -> positive-definite ones (L L^T of LowerCholeskyTransform)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        y = _ops.cholesky_ex(y).L
        return LowerCholeskyTransform().inv(y)


class CumulativeDistributionTransform(Transform):
    """x -> distribution.cdf(x) (onto [0, 1]; its inverse is icdf)."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) -> Cholesky factors of D x D correlation matrices: tanh gives the
    canonical partial correlations z (row by row, below the diagonal), then
    L[i, j] = z[i, j] * sqrt(1 - sum_{k<j} L[i, k]^2) and the diagonal makes each row a unit
    vector (stick breaking on the squared entries)."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    def _call(self, x):
        eps = _ops.finfo(x.dtype).eps
        z = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # the remaining length of each row before column j: prod_{k<j} sqrt(1 - z_ik^2)
        left = (1 - z.pow(2)).sqrt().cumprod(-1)
        left = _ops.pad(left[..., :-1], [1, 0], value=1.0)
        return (z + _ops.eye(z.shape[-1], dtype=z.dtype)) * left

    def _inverse(self, y):
        remaining = 1 - (y * y).cumsum(-1)
        remaining = _ops.pad(remaining[..., :-1], [1, 0], value=1.0)
        z = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(remaining, diag=-1).sqrt()
        return z.atanh()

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # stick breaking: dL_ij / dz_ij = sqrt(1 - sum_{k<j} L_ik^2); tanh: 1 - tanh(x)^2
        remaining = 1 - (y * y).cumsum(-1)
        stick = 0.5 * tril_matrix_to_vec(remaining, diag=-2).log().sum(-1)
        tanh = 2.0 * (math.log(2.0) - x - _ops.softplus(-2.0 * x)).sum(-1)
        return stick + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)
