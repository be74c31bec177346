"""Window functions (PyTorch's factory functions, leaves): hann_window, hamming_window,
blackman_window, bartlett_window, kaiser_window.

Each is computed in float64 from PyTorch's formula and rounded once to the dtype (PyTorch
runs the same formula step by step in the dtype: float32 results may differ in the last
bit, float16 ones by several steps: docs/differences.md).  ``periodic=True`` (the default) is the symmetric window of length + 1 without its last
entry, the window spectral analysis (stft) wants.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.creation import _finish
from ..registry import export


def _window(name, window_length, periodic, dtype, requires_grad, fn):
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    dt = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if dt.is_complex:   # (PyTorch's windows start from an arange in the dtype)
        raise NotImplementedError(f'"arange_cpu" not implemented for '
                                  f"'{_dtype.scalar_type_name(dt)}'")
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt} (pass dtype= a "
                           "floating point dtype)")
    n = int(window_length)
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={n}")
    if n == 0:
        w = np.zeros(0)
    elif n == 1:
        w = np.ones(1)
    else:
        m = n + 1 if periodic else n
        w = fn(np.arange(m, dtype=np.float64), m)[:n]
    return _finish(np.asarray(w).astype(dt.np), requires_grad)


@export(method=False)
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """``alpha - beta cos(2 pi k / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   lambda k, m: alpha - beta * np.cos(k * (2.0 * math.pi / (m - 1))))


@export(method=False)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """``0.5 - 0.5 cos(2 pi k / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   lambda k, m: 0.5 - 0.5 * np.cos(k * (2.0 * math.pi / (m - 1))))


@export(method=False)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``."""
    def fn(k, m):
        a = k * (math.pi / (m - 1))
        return 0.08 * np.cos(4 * a) - 0.5 * np.cos(2 * a) + 0.42
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, fn)


@export(method=False)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle ``1 - |2 k / (N - 1) - 1|``."""
    def fn(k, m):
        w = k * (2.0 / (m - 1))
        half = ((m - 1) >> 1) + 1
        w[half:] = 2 - w[half:]
        return w
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, fn)


@export(method=False)
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)``, a = (N - 1) / 2 (NumPy's i0)."""
    def fn(k, m):
        a = (m - 1) / 2.0
        return np.i0(beta * np.sqrt(np.maximum(1 - ((k - a) / a) ** 2, 0.0))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, fn)
