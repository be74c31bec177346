"""torch.distributions.utils: broadcasting parameters, probabilities <-> logits, and
``lazy_property`` (a parameter computed from the other parametrisation on first read)."""
from __future__ import annotations

import functools
import numbers

from . import _ops

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """Tensors (and numbers, made tensors of the tensors' dtype or the default one) broadcast
    to one shape."""
    if not all(isinstance(v, (_ops.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number or "
                         "graphgrad.Tensor, got "
                         + ", ".join(type(v).__name__ for v in values))
    if not all(isinstance(v, _ops.Tensor) for v in values):
        dtype = _ops.get_default_dtype()
        for v in values:
            if isinstance(v, _ops.Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, _ops.Tensor) else _ops.tensor(v, dtype=dtype)
                  for v in values]
    return _ops.broadcast_tensors(*values)


def _standard_normal(shape, dtype):
    return _ops.randn(shape, dtype=dtype)


def _sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dims."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid (binary) or softmax over the last dim."""
    if is_binary:
        return logits.sigmoid()
    return _ops.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped to [eps, 1 - eps] (eps of its dtype)."""
    eps = _ops.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped away from 0 and 1 first)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """A property computed on first read and then stored on the instance (the
    probs/logits pair of Categorical & co.)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with _ops.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What reading a lazy_property on the class gives: documented as a property."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries (below diagonal ``diag``) of ``mat``, row by row."""
    n = mat.shape[-1]
    if not (-n <= diag < n):
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = zip(*[(i, j) for i in range(n) for j in range(n) if j - i <= diag])
    return mat[..., list(rows), list(cols)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: a square lower-triangular matrix."""
    m = vec.shape[-1]
    n = next((k for k in range(1, m + abs(diag) + 2)
              if sum(1 for i in range(k) for j in range(k) if j - i <= diag) == m), None)
    if n is None:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    rows, cols = zip(*[(i, j) for i in range(n) for j in range(n) if j - i <= diag])
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., list(rows), list(cols)] = vec
    return mat
