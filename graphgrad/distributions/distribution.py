"""torch.distributions.Distribution: the base class of every distribution.

A distribution has a ``batch_shape`` (independent, differently parametrised copies) and an
``event_shape`` (the shape of one draw); ``sample``/``rsample(sample_shape)`` return
``sample_shape + batch_shape + event_shape``.  With ``validate_args`` (default: on, as
PyTorch's under ``__debug__``), the parameters are checked against ``arg_constraints`` at
construction and the values given to ``log_prob``/``cdf`` against ``support``, raising
PyTorch's ValueError messages.
"""
from __future__ import annotations

import warnings

from . import _ops, constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Distribution is the abstract base class for probability distributions."""
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on (True) or off (False) for distributions made after."""
        if value not in [True, False]:
            raise ValueError(f"set_default_validate_args expects True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _ops.Size(batch_shape)
        self._event_shape = _ops.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                valid = constraint.check(value)
                if not _ops.all_true(valid):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution whose batch is expanded to ``batch_shape`` (parameters are
        expanded views, not copies)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        """{parameter name: Constraint} the parameters must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint the samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample (or a batch of ``sample_shape`` samples), without gradient."""
        with _ops.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised sample: gradients flow to the parameters."""
        raise NotImplementedError(f"{self.__class__} does not implement rsample")

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning,
                      stacklevel=2)
        return self.sample(_ops.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()):
        if not isinstance(sample_shape, _ops.Size):
            sample_shape = _ops.Size(sample_shape)
        return _ops.Size(tuple(sample_shape) + tuple(self._batch_shape)
                         + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, _ops.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {_ops.Size(expected_shape)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        assert support is not None
        valid = support.check(value)
        if not _ops.all_true(valid):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expanded(self, cls, batch_shape, names, _instance=None):
        """``expand``'s common body: a new ``cls`` whose parameters ``names`` (those set on
        this one: lazy ones may be missing) are expanded views."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _ops.Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                value = self.__dict__[name]   # batch dims, then its own (event) dims
                own = tuple(value.shape[len(self._batch_shape):])
                setattr(new, name, value.expand(tuple(batch_shape) + own))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self):
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names)
        return self.__class__.__name__ + "(" + args + ")"
