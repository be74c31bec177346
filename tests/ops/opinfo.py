"""The OpInfo pattern: one record per op, with sample inputs, driving generic tests.

A Sample's positional/keyword arguments are plain Python values and NumPy
arrays wrapped in ``A`` (a differentiable tensor input: float data, cast to the
dtype under test, requires_grad) or ``I`` (a tensor that takes no gradient:
indices, masks, or float data held constant).  ``materialize`` builds the
same call for graphgrad and for PyTorch, so each generic check in
test_ops.py runs one program on both libraries and compares.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import zlib

import numpy as np


class A:
    """A differentiable tensor argument."""

    __slots__ = ("arr",)

    def __init__(self, arr):
        self.arr = np.asarray(arr, dtype=np.float64) if not np.iscomplexobj(arr) \
            else np.asarray(arr)


class I:  # noqa: E742 - "input without grad"
    """A tensor argument that does not require grad (kept in its own dtype unless float)."""

    __slots__ = ("arr", "cast")

    def __init__(self, arr, cast=False):
        self.arr = np.asarray(arr)
        self.cast = cast  # float data: cast to the dtype under test


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""

    def __repr__(self):
        def d(v):
            if isinstance(v, (A, I)):
                return f"{type(v).__name__}{list(v.arr.shape)}"
            return repr(v)
        parts = [d(a) for a in self.args] + [f"{k}={d(v)}" for k, v in self.kwargs.items()]
        return f"Sample({', '.join(parts)})" + (f"[{self.name}]" if self.name else "")


@dataclass
class OpInfo:
    name: str                                   # API path: "sin", "linalg.inv", "nn.functional.relu"
    samples: Callable[[np.random.Generator], list]
    fn: Callable[..., Any] | None = None        # fn(lib, *args, **kwargs); default: the API path
    dtypes: tuple = ("float64", "float32")
    complex: bool = False                       # also run in complex128
    grad: bool = True                           # differentiable
    gradgrad: bool = True
    fwd_ad: bool = True
    batched: bool = True
    fd: bool = True                             # finite-difference checks (float64)
    inplace: str | None = None                  # in-place method name, e.g. "sin_"
    nondiff_outputs: tuple = ()                 # outputs that never require grad
    aliases: tuple = ()                         # further API names this entry covers
    rtol: float | None = None
    atol: float | None = None
    skips: dict = field(default_factory=dict)   # check name -> reason

    def __repr__(self):
        return self.name

    def call(self, lib, args, kwargs):
        if self.fn is not None:
            return self.fn(lib, *args, **kwargs)
        return resolve(lib, self.name)(*args, **kwargs)


def resolve(lib, path):
    if path.startswith("Tensor."):
        meth = path[7:]
        return lambda self, *a, **k: getattr(self, meth)(*a, **k)
    obj = lib
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


_NP_DTYPES = {"float64": np.float64, "float32": np.float32, "complex128": np.complex128}


def stable_seed(*parts):
    """A seed from names that is the same in every process (``hash`` of a str is salted
    per process, which made the samples -- and so float32 tolerances -- vary between runs)."""
    return zlib.crc32("/".join(map(str, parts)).encode())


def materialize(sample, lib, dtype, requires_grad=True):
    """Build (args, kwargs, diff_inputs) of ``sample`` for ``lib`` in ``dtype``."""
    npd = _NP_DTYPES[dtype]
    diff = []

    def conv(v):
        if isinstance(v, A):
            arr = v.arr
            if dtype == "complex128" and not np.iscomplexobj(arr):
                arr = arr + 0.5j * np.cos(arr * 1.3 + 0.2)
            t = lib.tensor(np.array(arr, dtype=npd))
            if requires_grad:
                t.requires_grad_(True)
                diff.append(t)
            return t
        if isinstance(v, I):
            arr = v.arr
            if v.cast and arr.dtype.kind == "f":
                arr = arr.astype(npd if dtype != "complex128" else np.float64)
            return lib.tensor(np.array(arr))
        if isinstance(v, (list, tuple)) and any(isinstance(x, (A, I)) for x in v):
            return type(v)(conv(x) for x in v)
        return v

    args = tuple(conv(a) for a in sample.args)
    kwargs = {k: conv(v) for k, v in sample.kwargs.items()}
    return args, kwargs, diff


def flat_outputs(result):
    """The tensors of an op's result, in order (tuples, namedtuples and lists flattened)."""
    if isinstance(result, (tuple, list)):
        out = []
        for r in result:
            out.extend(flat_outputs(r))
        return out
    if result is None or isinstance(result, (bool, int, float, complex)):
        return []
    return [result]


def to_numpy(t):
    if t is None:
        return None
    if getattr(t, "_is_zerotensor", None) is not None and t._is_zerotensor():
        # PyTorch returns a ZeroTensor for gradients known to be zero (e.g. of sign, or of
        # piecewise-linear norms in double backward); it cannot be converted to NumPy
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).split(".")[-1])
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj().resolve_neg() if hasattr(t, "resolve_neg") else t.resolve_conj()
    d = t.detach()
    return np.array(d.numpy() if hasattr(d, "numpy") else d)


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def tolerances(op, dtype):
    if dtype == "float32":
        rtol, atol = 1e-4, 1e-5
    else:
        rtol, atol = 1e-7, 1e-9
    return (op.rtol if op.rtol is not None else rtol,
            op.atol if op.atol is not None else atol)


def randn(rng, *shape):
    return rng.standard_normal(shape)


def positive(rng, *shape):
    return rng.uniform(0.5, 2.0, shape)
