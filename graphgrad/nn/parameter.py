"""Parameter and Buffer: the tensors a Module registers when they are assigned to it.

``Parameter`` is a Tensor subclass (a leaf that requires grad by default, printed as
``Parameter containing:``).  ``Buffer(t)`` is, as in PyTorch, a plain Tensor carrying a
``_is_buffer`` flag and a ``persistent`` attribute; ``isinstance(x, Buffer)`` reads the
flag.  Results of ops on parameters are plain Tensors (the dispatcher always wraps in
``Tensor``), as in PyTorch.
"""
from __future__ import annotations

from .._tensor.creation import empty
from .._tensor.tensor import Size, Tensor, _check_device

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


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


# ------------------------------------------------------------------ uninitialized tensors
# An uninitialized parameter/buffer keeps an empty array of its dtype in Tensor's ``_data``
# slot, read here through the slot itself: the subclasses shadow ``_data`` with a property
# that raises, so every op (all of which read ``_data``) refuses it instead of computing
# on an empty array.
_DATA_SLOT = Tensor.__dict__["_data"]
_CONVERSIONS = ("to", "half", "float", "double", "bfloat16", "char", "short", "int", "long",
                "cpu", "cuda")


def _use_error(self):
    kind = "parameter" if isinstance(self, Parameter) else "buffer"
    raise ValueError(
        f"Attempted to use an uninitialized {kind} ({type(self).__name__}). This error happens "
        "when you are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
        "`forward` with a dummy batch to initialize the parameters before calling torch "
        "functions")


def _set_raw(self, arr):
    _DATA_SLOT.__set__(self, arr)


def _conversion(name):
    def convert(self, *args, **kwargs):
        raw = _DATA_SLOT.__get__(self)
        out = getattr(Tensor._wrap(raw), name)(*args, **kwargs)
        if out._data is raw:
            return self
        if isinstance(self, Parameter):  # (PyTorch's: a plain tensor, as any op on one)
            return Tensor._wrap(out._data)
        new = _new_uninitialized(type(self), out._data, self._requires_grad)
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if k in ("persistent", "_is_buffer")})
        return new
    convert.__name__ = name
    return convert


def _new_uninitialized(cls, arr, requires_grad):
    t = Tensor._wrap(arr)
    t.__class__ = cls
    t._requires_grad = bool(requires_grad)
    return t


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: no shape yet (reading it
    raises RuntimeError, any op raises ValueError); only dtype/device conversions and
    ``materialize(shape)``, which gives the tensor its shape and turns it into
    ``cls_to_become`` (the same object, so optimizers holding it keep working)."""

    cls_to_become = None
    _data = property(_use_error, _set_raw)

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor ``shape`` (uninitialized values; a LazyModule initializes them
        next), in ``dtype`` (default: its own), and make it a ``cls_to_become``."""
        _check_device(device)
        if dtype is None:
            dtype = self.dtype
        arr = empty(shape, dtype=dtype)._data
        _DATA_SLOT.__set__(self, arr)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def size(self, dim=None):
        return Size((0,)) if dim is None else Tensor._wrap(_DATA_SLOT.__get__(self)).size(dim)

    @property
    def dtype(self):
        return Tensor._wrap(_DATA_SLOT.__get__(self)).dtype

    @property
    def data(self):
        return Tensor._wrap(_DATA_SLOT.__get__(self))

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        _DATA_SLOT.__set__(self, _DATA_SLOT.__get__(value))

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def get_device(self):
        return -1

    def requires_grad_(self, requires_grad=True):
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               f"gradients (got dtype {self.dtype})")
        self._requires_grad = bool(requires_grad)
        return self

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = _new_uninitialized(type(self), _DATA_SLOT.__get__(self).copy(),
                                                self._requires_grad)
            memo[id(self)].__dict__.update(
                {k: v for k, v in self.__dict__.items() if k in ("persistent", "_is_buffer")})
        return memo[id(self)]

    for _name in _CONVERSIONS:
        locals()[_name] = _conversion(_name)
    del _name


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a LazyModule's, until its first forward):
    ``UninitializedParameter(requires_grad=True, device=None, dtype=None)``."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _new_uninitialized(cls, empty(0, device=device, dtype=dtype)._data,
                                  requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a LazyModule's running statistics):
    ``UninitializedBuffer(requires_grad=False, device=None, dtype=None, persistent=True)``;
    it becomes a plain Tensor when materialized."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _new_uninitialized(cls, empty(0, device=device, dtype=dtype)._data, requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


def is_lazy(param):
    """Whether ``param`` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)
