"""``Variable``: the pre-0.4 name of a tensor that takes part in autograd, kept for old code.

As in PyTorch, ``Variable`` is a class whose metaclass makes ``isinstance(t, Variable)`` true
for every Tensor (torchviz's ``make_dot(..., params=...)`` and other old code check it), and
``Variable(t, requires_grad=True)`` returns a new Tensor sharing ``t``'s data.
"""
from __future__ import annotations
from .._tensor.tensor import Tensor
from .._tensor import creation as _creation
from .engine import queue_callback

__all__ = ["Variable"]


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            import warnings
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            data = _creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = Tensor._wrap(data._data)   # a new tensor sharing the data, cut from any graph
        if requires_grad:
            out.requires_grad_(True)
        return out


class _ExecutionEngine:
    """``Variable._execution_engine``: PyTorch's handle on its autograd engine."""

    queue_callback = staticmethod(queue_callback)


class Variable(metaclass=VariableMeta):
    """``isinstance(t, Variable)`` is true for every Tensor; ``Variable(t)`` returns a
    Tensor (Variables and Tensors merged in PyTorch 0.4)."""

    _execution_engine = _ExecutionEngine()
