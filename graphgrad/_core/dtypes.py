"""dtypes: graphgrad's names for NumPy dtypes, and PyTorch's type-promotion rules.

A ``dtype`` wraps one NumPy dtype (bfloat16 comes from ml_dtypes).  Promotion
follows PyTorch, not NumPy: categories bool < integer < floating < complex,
and operands are ranked in three tiers -- tensors with dimensions, 0-d
tensors, Python scalars ("wrapped numbers") -- so that ``float32_tensor * 2.5``
stays float32 and ``int64_tensor * 2.5`` becomes the default float dtype.
"""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "float16", "half", "bfloat16", "float32", "float", "float64", "double",
    "complex64", "cfloat", "complex128", "cdouble", "int8", "int16", "int32", "int64",
    "long", "int", "short", "uint8", "bool", "promote_types", "result_type",
    "set_default_dtype", "get_default_dtype", "finfo", "iinfo", "can_cast",
]

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type (``graphgrad.float32`` ...); ``.np`` is the NumPy dtype."""

    __slots__ = ("name", "np", "category", "itemsize", "is_floating_point", "is_complex",
                 "is_signed", "_to_complex", "_to_real")

    def __init__(self, name, np_dtype, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_floating_point = category == _FLOAT
        self.is_complex = category == _COMPLEX
        self.is_signed = name not in ("uint8", "bool")
        self._to_complex = self._to_real = None

    def __repr__(self):
        return "graphgrad." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_complex(self):
        return self._to_complex or self

    def to_real(self):
        return self._to_real or self


def _by_name(name):
    return _NAMES[name]


bool = dtype("bool", np.bool_, _BOOL)  # noqa: A001 - PyTorch's public name
uint8 = dtype("uint8", np.uint8, _INT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
float16 = dtype("float16", np.float16, _FLOAT)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
complex64 = dtype("complex64", np.complex64, _COMPLEX)
complex128 = dtype("complex128", np.complex128, _COMPLEX)

half, float, double = float16, float32, float64  # noqa: A001
cfloat, cdouble = complex64, complex128
short, int, long = int16, int32, int64  # noqa: A001

for _r, _c in ((float16, complex64), (bfloat16, complex64), (float32, complex64),
               (float64, complex128)):
    _r._to_complex = _c
complex64._to_real, complex128._to_real = float32, float64

_ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
        complex64, complex128)
_NAMES = {d.name: d for d in _ALL}
_FROM_NP = {d.np: d for d in _ALL}

# PyTorch's ScalarType names, as its error messages spell dtypes
_SCALAR_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                      "float64": "Double", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble", "int64": "Long", "int32": "Int",
                      "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def scalar_type_name(d):
    """``Float``, ``Long``, ... for a graphgrad or NumPy dtype (its own name otherwise)."""
    return _SCALAR_TYPE_NAMES.get(d.name, d.name)


def from_numpy_dtype(np_dtype):
    """The graphgrad dtype of a NumPy dtype; TypeError for ones PyTorch lacks."""
    d = _FROM_NP.get(np_dtype)
    if d is None:
        d = _FROM_NP.get(np.dtype(np_dtype))
        if d is None:
            raise TypeError(
                f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported "
                "types are: float64, float32, float16, bfloat16, complex64, complex128, "
                "int64, int32, int16, int8, uint8, and bool.")
    return d


def to_dtype(d):
    """Accept a graphgrad dtype, a NumPy dtype/type or a dtype name."""
    if d.__class__ is dtype:
        return d
    if d is None:
        return None
    if isinstance(d, str):
        try:
            return _NAMES[d]
        except KeyError:
            pass
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if d is builtins.complex:
        return complex128
    if isinstance(d, _LegacyTensorType):
        return d.dtype   # t.type(graphgrad.DoubleTensor)
    return from_numpy_dtype(d)


# ----------------------------------------------------------------- defaults
_NP_F16 = np.dtype(np.float16)
_NP_F32 = np.dtype(np.float32)


_NP_BF16 = np.dtype(ml_dtypes.bfloat16)


def astype(a, npd, copy=True):
    """``a.astype(npd, copy=copy)`` as PyTorch converts: a float16 or bfloat16 is made
    from a float, so float64 values reach them through float32 (rounded twice; NumPy and
    ml_dtypes round once, which differs where the float32 value lands on a tie)."""
    if (npd == _NP_F16 or npd == _NP_BF16) and a.dtype.kind == "f" and a.dtype.itemsize == 8:
        return a.astype(_NP_F32).astype(npd)
    return a.astype(npd, copy=copy)


_default = [float32]


def set_default_dtype(d):
    d = to_dtype(d)
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d


def get_default_dtype():
    return _default[0]


def default_complex():
    return complex128 if _default[0] is float64 else complex64


# ----------------------------------------------------------------- promotion
def promote_types(a, b):
    """PyTorch's promote_types for two dtypes."""
    a, b = to_dtype(a), to_dtype(b)
    if a is b:
        return a
    ca, cb = a.category, b.category
    if ca != cb:
        if ca < cb:
            a, b, ca, cb = b, a, cb, ca
        # a is in the higher category
        if ca == _COMPLEX and cb == _FLOAT:
            return complex128 if (a is complex128 or b is float64) else complex64
        return a
    if ca == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if ca == _COMPLEX:
        return complex128
    return _FROM_NP[np.promote_types(a.np, b.np)]


def _combine(higher, lower):
    """Merge a higher-priority tier's dtype with a lower tier's (PyTorch's rule)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == _COMPLEX:
        return higher
    if lower.category == _COMPLEX:
        return higher.to_complex() if higher.category == _FLOAT else lower
    if higher.category == _FLOAT:
        return higher
    if higher is bool or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(v):
    """dtype a Python scalar takes when it meets a tensor ("wrapped number")."""
    c = v.__class__
    if c is builtins.bool or c is np.bool_:
        return bool
    if c is builtins.int:
        return int64
    if c is builtins.float:
        return _default[0]
    if c is builtins.complex:
        return default_complex()
    if isinstance(v, np.generic):
        return from_numpy_dtype(v.dtype)
    raise TypeError(f"unsupported scalar of type {type(v).__name__}")


def result_type(*operands):
    """PyTorch's result_type over tensors and Python scalars."""
    dim = zero = wrapped = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if d is not None and d.__class__ is dtype:
            if x.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = scalar_dtype(x)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))


def can_cast(from_, to):
    """PyTorch's can_cast: no downcast across categories (float->int, complex->real, ->bool)."""
    from_, to = to_dtype(from_), to_dtype(to)
    return from_.category <= to.category


# ----------------------------------------------------------------- finfo/iinfo
def _dtype_arg(fn, d):
    """finfo/iinfo take a dtype (a tensor, as PyTorch's, is a TypeError)."""
    if hasattr(d, "_data"):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{d.__class__.__name__} (pass the tensor's .dtype)")


class finfo:
    """Machine limits of a floating dtype, with PyTorch's attribute names."""

    def __init__(self, type=None):  # noqa: A002
        _dtype_arg("finfo", type)
        d = to_dtype(type) if type is not None else _default[0]
        if d.category == _COMPLEX:
            d = d.to_real()
        if d.category != _FLOAT:
            raise TypeError(f"finfo() requires a floating point input type, got {d}")
        info = ml_dtypes.finfo(d.np) if d is bfloat16 else np.finfo(d.np)
        self.dtype = d.name
        self.bits = info.bits
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.tiny)
        self.resolution = builtins.float(info.resolution)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, "
                f"eps={self.eps}, smallest_normal={self.tiny}, tiny={self.tiny}, "
                f"dtype={self.dtype})")


class iinfo:
    def __init__(self, type):  # noqa: A002
        _dtype_arg("iinfo", type)
        d = to_dtype(type)
        if d.category > _INT:
            raise TypeError(f"iinfo() requires an integer input type, got {d}")
        info = np.iinfo(np.uint8 if d is bool else d.np)
        self.dtype = d.name
        self.bits, self.min, self.max = info.bits, builtins.int(info.min), builtins.int(info.max)


# ------------------------------------------------------------------ legacy tensor types
class _LegacyTensorType(type):
    """The type of ``graphgrad.FloatTensor`` & co. (PyTorch's ``torch.tensortype``):
    ``FloatTensor([1, 2])`` / ``FloatTensor(2, 3)`` / ``FloatTensor()`` construct a tensor of
    the type's dtype, and ``isinstance(t, FloatTensor)`` is true for float32 tensors."""

    def __instancecheck__(cls, obj):
        from .._tensor.tensor import Tensor
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __call__(cls, *args, device=None):
        from .._tensor.tensor import _legacy_new
        return _legacy_new(cls.dtype, args, device, cls.__name__)

    def __repr__(cls):
        return f"<class 'graphgrad.{cls.__name__}'>"


def _legacy_type(name, d):
    return _LegacyTensorType(name, (), {"dtype": d, "is_sparse": False, "is_cuda": False,
                                        "__module__": "graphgrad"})


FloatTensor = _legacy_type("FloatTensor", float32)
DoubleTensor = _legacy_type("DoubleTensor", float64)
HalfTensor = _legacy_type("HalfTensor", float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", bfloat16)
LongTensor = _legacy_type("LongTensor", int64)
IntTensor = _legacy_type("IntTensor", int32)
ShortTensor = _legacy_type("ShortTensor", int16)
CharTensor = _legacy_type("CharTensor", int8)
ByteTensor = _legacy_type("ByteTensor", uint8)
BoolTensor = _legacy_type("BoolTensor", bool)
LEGACY_TYPES = (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor,
                ShortTensor, CharTensor, ByteTensor, BoolTensor)
