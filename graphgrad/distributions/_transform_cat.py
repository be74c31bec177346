"""CatTransform and StackTransform: a transform per slice of one dim (as torch.cat /
torch.stack split their inputs), e.g. an unconstrained vector mapped to (positive, real)
parts."""
from __future__ import annotations

from . import _ops, constraints
from ._transform_base import Transform
from .utils import _sum_rightmost

__all__ = ["CatTransform", "StackTransform"]


def _check_dim(dim, t, what, size=None):
    if not (-t.dim() <= dim < t.dim()):
        raise ValueError(f"{what}: dim {dim} out of range for a tensor with {t.dim()} "
                         "dimensions")
    if size is not None and t.size(dim) != size:
        raise ValueError(f"{what}: size {t.size(dim)} of dim {dim} must equal the total "
                         f"length {size} of the transforms")


class CatTransform(Transform):
    """``tseq[i]`` applied to the ``lengths[i]`` entries of dim ``dim`` that follow those of
    ``tseq[:i]`` (one entry each by default)."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = list(tseq)
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform: every element of tseq must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: {len(self.lengths)} lengths for "
                             f"{len(self.transforms)} transforms")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, t):
        start = 0
        for length in self.lengths:
            yield t.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        _check_dim(self.dim, x, "CatTransform", self.length)
        return _ops.cat([tr(s) for tr, s in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y):
        _check_dim(self.dim, y, "CatTransform", self.length)
        return _ops.cat([tr.inv(s) for tr, s in zip(self.transforms, self._slices(y))],
                        self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim(self.dim, x, "CatTransform", self.length)
        _check_dim(self.dim, y, "CatTransform", self.length)
        parts = []
        for tr, xs, ys in zip(self.transforms, self._slices(x), self._slices(y)):
            part = tr.log_abs_det_jacobian(xs, ys)
            parts.append(_sum_rightmost(part, self.event_dim - tr.event_dim))
        # the concatenated dim, counted from the right of what is left after the event dims
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return _ops.cat(parts, dim)
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """``tseq[i]`` applied to slice ``i`` of dim ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = list(tseq)
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform: every element of tseq must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, t):
        return [t.select(self.dim, i) for i in range(t.size(self.dim))]

    def _call(self, x):
        _check_dim(self.dim, x, "StackTransform", len(self.transforms))
        return _ops.stack([tr(s) for tr, s in zip(self.transforms, self._slices(x))],
                          self.dim)

    def _inverse(self, y):
        _check_dim(self.dim, y, "StackTransform", len(self.transforms))
        return _ops.stack([tr.inv(s) for tr, s in zip(self.transforms, self._slices(y))],
                          self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim(self.dim, x, "StackTransform", len(self.transforms))
        _check_dim(self.dim, y, "StackTransform", len(self.transforms))
        return _ops.stack([tr.log_abs_det_jacobian(xs, ys) for tr, xs, ys in
                           zip(self.transforms, self._slices(x), self._slices(y))], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
