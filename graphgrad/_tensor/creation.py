"""Tensor creation (api.md §2): tensor, from_numpy, zeros/ones/full/empty, ranges, random.

Python floats become the default dtype, Python ints int64, bools bool,
complex the default complex dtype; a NumPy array keeps its dtype.
Random numbers come from one NumPy Generator seeded by ``manual_seed``.
"""
from __future__ import annotations

import numbers

import numpy as np

from .._core import dtypes as _dtype
from .._core.dtypes import to_dtype
from .tensor import Tensor, _check_device

_wrap = Tensor._wrap


def _finish(data, requires_grad):
    t = _wrap(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(obj):
    """PyTorch's dtype for nested Python data (lists of numbers/tensors)."""
    kinds = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            kinds.add(x.dtype)
        elif isinstance(x, np.ndarray):
            kinds.add(_dtype.from_numpy_dtype(x.dtype))
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(x, numbers.Integral):
            kinds.add("int")
        elif isinstance(x, numbers.Real):
            kinds.add("float")
        elif isinstance(x, numbers.Complex):
            kinds.add("complex")
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
    if "complex" in kinds or any(isinstance(k, _dtype.dtype) and k.is_complex for k in kinds):
        return _dtype.default_complex()
    if "float" in kinds:
        return _dtype.get_default_dtype()
    tens = [k for k in kinds if isinstance(k, _dtype.dtype)]
    if tens:
        d = tens[0]
        for k in tens[1:]:
            d = _dtype.promote_types(d, k)
        if "int" in kinds and d.category < 1:
            return _dtype.int64
        return d
    if "int" in kinds:
        return _dtype.int64
    if "bool" in kinds:
        return _dtype.bool
    return _dtype.get_default_dtype()


def _unwrap_nested(obj):
    if isinstance(obj, Tensor):
        return obj._data
    if isinstance(obj, (list, tuple)):
        return [_unwrap_nested(x) for x in obj]
    return obj


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data``."""
    _check_device(device)
    dtype = to_dtype(dtype)
    if isinstance(data, Tensor):
        import warnings
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.clone()."
            "detach() or sourceTensor.clone().detach().requires_grad_(True), rather than "
            "graphgrad.tensor(sourceTensor).", UserWarning, stacklevel=2)
        arr = data._data.copy() if dtype is None else _dtype.astype(data._data, dtype.np)
    elif isinstance(data, np.ndarray):
        arr = np.array(data) if dtype is None else _dtype.astype(data, dtype.np)
        _dtype.from_numpy_dtype(arr.dtype)
    elif isinstance(data, np.generic):
        arr = np.array(data) if dtype is None else _dtype.astype(np.asarray(data), dtype.np)
    else:
        d = dtype or _infer_dtype(data)
        try:
            arr = np.array(_unwrap_nested(data), dtype=np.float64
                           if d is _dtype.float16 or d is _dtype.bfloat16 else d.np)
            arr = _dtype.astype(arr, d.np, copy=False)
        except ValueError as e:
            raise ValueError(f"tensor(): could not build a tensor from the data ({e})") from None
        if arr.dtype == object:
            raise ValueError("tensor(): ragged nested sequences are not supported")
    return _finish(arr, requires_grad)


def as_tensor(data, dtype=None, device=None):
    _check_device(device)
    dtype = to_dtype(dtype)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        if dtype is None or data.dtype == dtype.np:
            return _wrap(data)
        return _wrap(_dtype.astype(data, dtype.np))
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return _wrap(ndarray)


def _sizes(fn, sizes, size):
    """The size of ``fn(*sizes)`` / ``fn(size=...)`` (PyTorch accepts both forms)."""
    if size is not None:
        if sizes:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        return _size((size,))
    if not sizes:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    return _size(sizes)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"size must be a tuple of ints, but got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return tuple(int(s) for s in size)


def _dt(dtype):
    return (to_dtype(dtype) or _dtype.get_default_dtype()).np


def zeros(*sizes, size=None, dtype=None, device=None, requires_grad=False, out=None):
    _check_device(device)
    return _finish(np.zeros(_sizes("zeros", sizes, size), _dt(dtype)), requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad=False, out=None):
    _check_device(device)
    return _finish(np.ones(_sizes("ones", sizes, size), _dt(dtype)), requires_grad)


def empty(*sizes, size=None, dtype=None, device=None, requires_grad=False, memory_format=None,
          out=None):
    _check_device(device)
    return _finish(np.zeros(_sizes("empty", sizes, size), _dt(dtype)), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    _check_device(device)
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    return _finish(np.full(_size((size,)), fill_value, to_dtype(dtype).np), requires_grad)


def _like(input, dtype):
    return to_dtype(dtype).np if dtype is not None else input._data.dtype


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _check_device(device)
    return _finish(np.zeros(input._data.shape, _like(input, dtype)), requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _check_device(device)
    return _finish(np.ones(input._data.shape, _like(input, dtype)), requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _check_device(device)
    return _finish(np.zeros(input._data.shape, _like(input, dtype)), requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    _check_device(device)
    return _finish(np.full(input._data.shape, fill_value, _like(input, dtype)), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    _check_device(device)
    return _finish(np.eye(n, n if m is None else m, dtype=_dt(dtype)), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    _check_device(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dtype = _dtype.get_default_dtype() if any(isinstance(v, float) for v in vals) \
            else _dtype.int64
    dtype = to_dtype(dtype)
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    arr = (vals[0] + vals[2] * np.arange(max(n, 0), dtype=np.float64)).astype(dtype.np) \
        if dtype.category >= 2 else np.arange(*vals, dtype=dtype.np)
    return _finish(arr, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    _check_device(device)
    return _finish(np.linspace(start, end, steps, dtype=_dt(dtype)), requires_grad)


# --------------------------------------------------------------------- random
# (the generators live in _tensor/random.py; ``generator=`` picks one, default_generator otherwise)
from .random import get_rng_state, initial_seed, manual_seed, numpy_rng, seed, set_rng_state
from . import random as _random


def rng(generator=None):
    """The NumPy Generator behind ``generator`` (default: graphgrad.default_generator)."""
    return numpy_rng(generator)


def _drawn(draw, shape, np_dtype, requires_grad):
    """The tensor ``draw(shape)`` of ``np_dtype`` -- inside vmap with randomness="different",
    one draw per example (random.vmap_random_batch)."""
    hook = _random.vmap_random_batch
    batch = hook() if hook is not None else None
    if batch is None:
        return _finish(draw(tuple(shape)).astype(np_dtype), requires_grad)
    sizes, wrap = batch
    return wrap(_finish(draw(sizes + tuple(shape)).astype(np_dtype), requires_grad))


def floating_sampler(kernel, d, complex_ok=True):
    """PyTorch's NotImplementedError for a sampler of real values (its CPU kernel
    ``kernel``) asked for an integer or bool dtype ``d`` (or a complex one, unless
    ``complex_ok``)."""
    if not (d.is_floating_point or (complex_ok and d.is_complex)):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.scalar_type_name(d)}' (sample a floating dtype "
                                  "and convert, e.g. rand(...).mul(10).long())")


def rand(*sizes, size=None, dtype=None, device=None, requires_grad=False, generator=None,
         out=None):
    _check_device(device)
    d = to_dtype(dtype) or _dtype.get_default_dtype()
    floating_sampler("check_uniform_bounds", d)
    shape = _sizes("rand", sizes, size)
    g = numpy_rng(generator)
    if d.is_complex:   # (PyTorch: real and imaginary parts each uniform in [0, 1))
        return _drawn(lambda s: g.random(s) + 1j * g.random(s), shape, d.np, requires_grad)
    return _drawn(g.random, shape, d.np, requires_grad)


def randn(*sizes, size=None, dtype=None, device=None, requires_grad=False, generator=None,
          out=None):
    _check_device(device)
    d = to_dtype(dtype) or _dtype.get_default_dtype()
    floating_sampler("normal_kernel_cpu", d)
    shape = _sizes("randn", sizes, size)
    g = numpy_rng(generator)
    if d.is_complex:
        return _drawn(lambda s: (g.standard_normal(s) + 1j * g.standard_normal(s)) / np.sqrt(2),
                      shape, d.np, requires_grad)
    return _drawn(g.standard_normal, shape, d.np, requires_grad)


def _int_arg(v, what):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, float) and v == int(v):
        v = int(v)
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise TypeError(f"randint(): argument '{what}' must be int, not {type(v).__name__}")
    return int(v)


def randint(*args, size=None, low=None, high=None, dtype=None, device=None, requires_grad=False,
            generator=None, out=None, layout=None):
    """``randint(high, size)`` or ``randint(low, high, size)`` (positional or by keyword):
    integers uniform in ``[low, high)``, int64 unless ``dtype`` says otherwise."""
    _check_device(device)
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], (tuple, list)):
        size = pos.pop()
    if len(pos) > 2 or (len(pos) == 2 and (low is not None or high is not None)) or \
            (len(pos) == 1 and low is not None and high is not None):
        raise TypeError("randint() takes (high, size) or (low, high, size); got "
                        f"{len(args)} positional arguments")
    if len(pos) == 2:
        low, high = pos
    elif len(pos) == 1:
        if high is None:
            high = pos[0]
        else:
            low = pos[0]
    if size is None:
        raise TypeError("randint() missing required argument 'size' (a tuple of ints), e.g. "
                        "randint(0, 10, (3,))")
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    low = 0 if low is None else _int_arg(low, "low")
    high = _int_arg(high, "high")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    d = to_dtype(dtype) or _dtype.int64
    shape = _size((size,))
    g = numpy_rng(generator)
    return _drawn(lambda s: g.integers(low, high, s), shape, d.np, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None,
              generator=None):
    return rand(input._data.shape, dtype=dtype or input.dtype, device=device,
                requires_grad=requires_grad, generator=generator)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None,
               generator=None):
    return randn(input._data.shape, dtype=dtype or input.dtype, device=device,
                 requires_grad=requires_grad, generator=generator)


def randint_like(input, low, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=None, generator=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype, device=device,
                   requires_grad=requires_grad, generator=generator)


def randperm(n, *, dtype=None, device=None, requires_grad=False, generator=None, out=None,
             layout=None, pin_memory=False):
    _check_device(device)
    if isinstance(n, Tensor) and not n._data.ndim and n._data.dtype.kind in "iu":
        n = int(n)   # (a 0-d integer tensor is a number, as PyTorch's __index__)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _finish(numpy_rng(generator).permutation(n).astype(
        (to_dtype(dtype) or _dtype.int64).np), requires_grad)


__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "eye", "arange", "linspace", "manual_seed",
           "seed", "initial_seed", "get_rng_state", "set_rng_state", "rand", "randn", "randint",
           "rand_like", "randn_like", "randint_like", "randperm"]
