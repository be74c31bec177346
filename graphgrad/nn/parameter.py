"""Parameter and Buffer: the tensors a Module registers when they are assigned to it.

``Parameter`` is a Tensor subclass (a leaf that requires grad by default, printed as
``Parameter containing:``).  ``Buffer(t)`` is, as in PyTorch, a plain Tensor carrying a
``_is_buffer`` flag and a ``persistent`` attribute; ``isinstance(x, Buffer)`` reads the
flag.  Results of ops on parameters are plain Tensors (the dispatcher always wraps in
``Tensor``), as in PyTorch.
"""
from __future__ import annotations

from .._tensor.creation import empty
from .._tensor.tensor import Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


def _empty():
    return empty(0)


class _ParameterMeta(type):
    # isinstance(t, Parameter) is also true for a tensor flagged ``_is_param``
    def __instancecheck__(cls, instance):
        if cls is Parameter and isinstance(instance, Tensor) and \
                getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that a Module registers as a parameter when assigned as its attribute.

    ``Parameter(data, requires_grad=True)`` shares ``data``'s storage; it is always a
    leaf (a tensor with history is detached), and it requires grad even under
    ``no_grad()``.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        elif not isinstance(data, Tensor):
            # (AttributeError, as PyTorch's: its Parameter calls data.detach())
            raise AttributeError(
                f"Parameter(): data must be a Tensor (or None), not {type(data).__name__} "
                f"('{type(data).__name__}' object has no attribute 'detach'); wrap it with "
                "graphgrad.tensor(...) first")
        t = data.detach()
        t.__class__ = cls
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return (_rebuild_parameter, (self.data, self.requires_grad, type(self), state))


def _rebuild_parameter(data, requires_grad, cls=Parameter, state=None):
    p = cls(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class _BufferMeta(type):
    # Buffer(t) returns a plain Tensor flagged ``_is_buffer``; isinstance reads the flag
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and \
                getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor a Module registers as a buffer when assigned as its attribute
    (``persistent=False``: left out of ``state_dict``)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        elif not isinstance(data, Tensor):
            raise AttributeError(
                f"Buffer(): data must be a Tensor (or None), not {type(data).__name__} "
                f"('{type(data).__name__}' object has no attribute 'detach'); wrap it with "
                "graphgrad.tensor(...) first")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param):
    """graphgrad has no lazy (uninitialized) parameters: always False."""
    return False
