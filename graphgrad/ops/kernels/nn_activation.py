"""NumPy kernels of the nn_activation family: relu, leaky_relu, elu, gelu, silu, softplus.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_activation.py,
the public functions in nn/functional/activation.py.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from .. import formulas as F
from ..._core.opmath import half_in_float32
from ..._core.state import tls
from . import special as _special
from .special import erfc as _erfc_kernel


# ====================================================================== activations
@half_in_float32
def _leaky_relu_kernel(a, negative_slope):
    return np.where(a > 0, a, a * negative_slope)


def _threshold_kernel(a, threshold, value):
    """``a`` where ``a > threshold``, else ``value`` (PyTorch's threshold; NaN stays NaN)."""
    if a.dtype == np.bool_:
        raise NotImplementedError('"threshold_cpu" not implemented for \'Bool\'')
    out = np.where(a > threshold, a, np.asarray(value).astype(a.dtype))
    return np.where(np.isnan(a), a, out) if a.dtype.kind in "fcV" else out


# the backward functions are ops of their own, as PyTorch's leaky_relu_backward and
# elu_backward: under create_graph the gradient depends on the input (so it requires grad,
# with the derivative PyTorch defines there), and it selects rather than multiplies, so a
# NaN input passes the gradient of the branch PyTorch takes
@half_in_float32
def _leaky_relu_backward_kernel(g, a, negative_slope):
    return np.where(a > 0, g, g * negative_slope)


# elu(x; alpha, scale, input_scale) = scale x (x > 0), alpha scale (exp(input_scale x) - 1)
# (PyTorch's one kernel for elu, selu and celu; elu passes scale = input_scale = 1, where
# the expressions below are the plain elu ones bit for bit: a product by 1 is exact)
@half_in_float32
def _elu_kernel(a, alpha, scale=1, input_scale=1):
    # (expm1 of the input itself where it is taken: elu(-0.0) is -0.0, as PyTorch's;
    # np.minimum(-0.0, 0) gave +0.0)
    neg = np.where(a > 0, 0, a)
    if input_scale != 1:
        neg = neg * input_scale
    return np.where(a > 0, a * scale if scale != 1 else a,
                    (alpha * scale) * np.expm1(neg))


@half_in_float32
def _elu_backward_kernel(g, x, alpha, scale, input_scale, is_result):
    # x is the input, or the result (in-place elu_). At NaN the gradient is NaN, as PyTorch's
    # vectorised loop gives on every CPU (its scalar loop, which only handles a short tensor
    # or the tail past the last full vector, gives the gradient itself: a CPU-dependent 1)
    pos = g * scale if scale != 1 else g
    if is_result:
        return np.where(x > 0, pos, g * input_scale * (x + alpha * scale))
    neg = np.minimum(x, 0)
    if input_scale != 1:
        neg = neg * input_scale
    return np.where(x > 0, pos, g * ((input_scale * alpha * scale) * np.exp(neg)))


# gelu: x * Phi(x), or the tanh approximation 0.5 x (1 + tanh(k (x + c x^3)))
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_C = 0.044715


def _erfc_np(x):
    return np.asarray(_erfc_kernel(x), dtype=x.dtype)


_NEG_SQRT_HALF = -math.sqrt(0.5)


def _gelu_kernel(a, approximate):
    if approximate != "tanh" and a.__class__ is np.ndarray and _stashable(a):
        # (float32 and large float64 arrays; half goes through the float32 kernel below,
        # on a temporary copy no backward will see: NOTE [gelu derivative stash])
        if a.dtype == np.float32:
            return _gelu32(a, None, stash=tls.grad_enabled)
        return _gelu_erf_blocks(a, None, stash=tls.grad_enabled)
    return _gelu_kernel_any(a, approximate)


@half_in_float32
def _gelu_kernel_any(a, approximate):
    if approximate == "tanh":
        inner = _SQRT_2_PI * (a + _GELU_C * a * a * a)
        return 0.5 * a * (1 + np.tanh(inner))
    if a.dtype == np.float32:
        return _gelu32(a, None)
    if _gelu_blocked(a):
        return _gelu_erf_blocks(a, None)
    # Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation for negative x
    return 0.5 * a * _erfc_np(a * _NEG_SQRT_HALF)


def _gelu_dx(a, approximate):
    """d gelu / dx (ndarray)."""
    if approximate == "tanh":
        a2 = a * a
        t = np.tanh(_SQRT_2_PI * (a + _GELU_C * a2 * a))
        du = _SQRT_2_PI * (1 + 3 * _GELU_C * a2)
        return 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * du
    if a.dtype == np.float32:
        return _gelu32(a, None, dx=True)
    return 0.5 * _erfc_np(a * _NEG_SQRT_HALF) + a * (_INV_SQRT_2PI * np.exp(-0.5 * a * a))


@half_in_float32
def _gelu_backward_kernel(g, a, approximate):
    """grad_output * d gelu / dx (gelu_backward's kernel)."""
    if approximate != "tanh" and g.__class__ is np.ndarray and g.dtype == a.dtype and \
            g.shape == a.shape:
        d = _stash_take(a) if _STASH else None
        if d is not None:
            return np.multiply(g, d, out=d)
        if a.dtype == np.float32:
            return _gelu32(a, g)
        if g.flags.c_contiguous and _gelu_blocked(a):
            return _gelu_erf_blocks(a, g)
    return g * _gelu_dx(a, approximate)


# NOTE [blocked gelu]
# The erf form of gelu and of its gradient on a large C-contiguous float64 array (float32
# has its own kernel, NOTE [float32 gelu]) runs block by block (special._BLOCK elements) through a few cache-sized buffers: the
# same NumPy operations, in the same dtype and order, as the whole-array expressions above
# (so the same values, bit for bit), but without their five to eight full-size
# temporaries, each a fresh multi-MB allocation (and its page faults) per training step.
# Other layouts, dtypes and small arrays take the whole-array expressions.
def _gelu_blocked(a):
    return a.__class__ is np.ndarray and a.size > _special._BLOCK and \
        a.dtype == np.float64 and a.flags.c_contiguous


def _gelu_erf_blocks(a, g, stash=False):
    """gelu(a) (``g`` None) or g * gelu'(a), erf form, block by block (NOTE [blocked
    gelu]); ``a`` and ``g`` C-contiguous, of one float dtype and shape.  ``stash``: the
    forward also keeps gelu'(a) for the backward (NOTE [gelu derivative stash])."""
    dt = a.dtype
    terms = _special._terms(dt)
    out = np.empty(a.shape, dt)
    dx = np.empty(a.shape, dt) if stash else None
    fd = None if dx is None else dx.reshape(-1)
    fa, fo = a.reshape(-1), out.reshape(-1)
    fg = None if g is None else g.reshape(-1)
    n = _special._BLOCK
    work = [np.empty(n) for _ in range(6)]
    w, v = np.empty(n, dt), np.empty(n, dt)
    size = fa.size
    with np.errstate(all="ignore"):
        for s in range(0, size, n):
            m = min(n, size - s)
            x, o = fa[s:s + m], fo[s:s + m]
            if m != n:
                w, v = w[:m], v[:m]
            np.multiply(x, _NEG_SQRT_HALF, out=w)
            _special._erfc_abs(w, terms, out=w, flip=True, work=work)  # erfc(-x / sqrt 2)
            if fg is None:    # 0.5 * x * erfc(...)
                np.multiply(x, 0.5, out=o)
                np.multiply(o, w, out=o)
                if fd is None:
                    continue
            # g * (0.5 * erfc(...) + x * (1 / sqrt(2 pi) * exp(-0.5 * x * x)))
            np.multiply(w, 0.5, out=w)
            np.multiply(x, -0.5, out=v)
            np.multiply(v, x, out=v)
            np.exp(v, out=v)
            np.multiply(v, _INV_SQRT_2PI, out=v)
            np.multiply(x, v, out=v)
            if fg is None:    # (stash) the derivative itself
                np.add(w, v, out=fd[s:s + m])
                continue
            np.add(w, v, out=w)
            np.multiply(fg[s:s + m], w, out=o)
    if dx is not None:
        _stash_put(a, dx)
    return out


# NOTE [float32 gelu]
# float32 (and, through half_in_float32, half) gelu and its gradient follow PyTorch's
# float32 kernel: gelu(x) = x / 2 (1 + erf(x / sqrt 2)), gelu'(x) = (1 + erf(x / sqrt 2)) / 2
# + x exp(-x^2 / 2) / sqrt(2 pi), with erf by its vectorised formula (Abramowitz and
# Stegun 7.1.26, absolute error ~1.5e-7):
#     erf(a) = sign(a) (1 - t (p1 + t (p2 + t (p3 + t (p4 + t p5)))) exp(-a^2)),
#     t = 1 / (1 + p |a|),
# computed in float32, block by block through four work buffers (about 25 NumPy calls on
# each block of _BLOCK32 elements, no full-size temporary); exp(-a^2) is also the normal
# density's exponential.  So the same cancellation as PyTorch's for x << 0 (gelu(x) is
# -0.0 below about -5.5) and values within a few float32 ulps of PyTorch's (its fused
# multiply-adds round once where NumPy rounds twice).  The earlier erfc form (a 12-term
# Chebyshev series, accurate to a few ulps relative in the tail too) cost ~37 NumPy calls
# a block: W8's 524288-element gelu forward with its derivative stash took ~3.4 ms
# against ~2.1 ms (docs/performance.md, 2026-12-07 fourth session).
_ERF_P = np.float32(0.3275911)
_ERF_C = tuple(np.float32(c) for c in (
    0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
_SQRT_HALF32 = np.float32(math.sqrt(0.5))
_INV_SQRT_2PI32 = np.float32(_INV_SQRT_2PI)
_BLOCK32 = 32768


def _gelu32_cdf(x, a, t, r, e):
    """For a float32 block ``x``: 1 + erf(x / sqrt 2) into ``t``, exp(-x^2 / 2) into
    ``e`` (``a`` and ``r`` are work buffers)."""
    c1, c2, c3, c4, c5 = _ERF_C
    np.multiply(x, _SQRT_HALF32, out=a)   # a = x / sqrt 2
    np.abs(a, out=t)
    np.multiply(t, _ERF_P, out=t)
    np.add(t, 1.0, out=t)
    np.divide(1.0, t, out=t)              # t = 1 / (1 + p |a|)
    np.multiply(t, c5, out=r)
    np.add(r, c4, out=r)
    for c in (c3, c2, c1):
        np.multiply(r, t, out=r)
        np.add(r, c, out=r)
    np.multiply(a, a, out=e)
    np.negative(e, out=e)
    np.exp(e, out=e)                      # exp(-a^2)
    np.multiply(t, e, out=t)
    np.multiply(t, r, out=t)
    np.subtract(1.0, t, out=t)            # erf(|a|)
    np.copysign(t, a, out=t)              # erf(a)
    np.add(t, 1.0, out=t)                 # 1 + erf(a)


def _gelu32(a, g, dx=False, stash=False):
    """float32 gelu(a) (``g`` None, ``dx`` False), its derivative (``dx``) or g times it
    (``g`` given, of a's shape): NOTE [float32 gelu].  ``stash``: gelu(a), and gelu'(a)
    kept for the backward (NOTE [gelu derivative stash])."""
    fa = np.ascontiguousarray(a).reshape(-1)
    fg = None if g is None else np.ascontiguousarray(g).reshape(-1)
    out = np.empty(a.shape, np.float32)
    fo = out.reshape(-1)
    d = np.empty(a.shape, np.float32) if stash else None
    fd = None if d is None else d.reshape(-1)
    size = fa.size
    n = min(size, _BLOCK32)
    if not n:
        return out
    w, t, r, e = (np.empty(n, np.float32) for _ in range(4))
    grad = dx or fg is not None
    with np.errstate(all="ignore"):
        for s in range(0, size, n):
            m = min(n, size - s)
            if m != n:
                w, t, r, e = w[:m], t[:m], r[:m], e[:m]
            x, o = fa[s:s + m], fo[s:s + m]
            _gelu32_cdf(x, w, t, r, e)
            if not grad:                     # x / 2 (1 + erf)
                np.multiply(x, 0.5, out=o)
                np.multiply(o, t, out=o)
                if fd is None:
                    continue
            np.multiply(t, 0.5, out=t)           # Phi(x)
            np.multiply(e, _INV_SQRT_2PI32, out=e)  # the normal density at x
            np.multiply(e, x, out=e)
            if fd is not None:
                np.add(t, e, out=fd[s:s + m])
            elif fg is None:
                np.add(t, e, out=o)
            else:
                np.add(t, e, out=t)
                np.multiply(fg[s:s + m], t, out=o)
    if d is not None:
        _stash_put(a, d)
    return out


# NOTE [gelu derivative stash]
# The erf-form gelu of a large float32 array (or C-contiguous float64 one) run with grad
# mode on also computes its derivative gelu'(x) -- four more NumPy calls per block on
# values the forward already has, where the backward would recompute Phi(x) with ~40 --
# and keeps it here, keyed by the input array, with a copy of that array.  The backward
# kernel (gelu_backward with a gradient of the input's shape and dtype) takes the entry
# when it is handed the same array object with the same bits as the copy, and then returns
# grad * gelu'(x): the very operations of the recomputing path, so bit for bit the same
# result.  Anything else -- another array, values changed behind autograd's back (through
# .numpy()), a second backward (retain_graph: the first one took the entry) -- finds no
# valid entry and recomputes, so the stash can make a backward faster but never different.
# (Under create_graph the gelu_backward op's kernel takes the entry as a plain backward
# does; that op's own derivative is computed from its saved inputs.)  An entry lives
# until the backward takes it or the input array is freed (a weak reference drops it):
# twice the input's memory, while the graph that saves that input is alive.
_STASH = {}             # id(input array) -> (weak reference to it, its copy, gelu'(it))
_STASH_MIN = 16384      # below this many elements the backward recomputes (cheap there)


def _stashable(a):
    return a.size >= _STASH_MIN and a.flags.c_contiguous and (
        a.dtype == np.float32 or (a.dtype == np.float64 and _gelu_blocked(a)))


def _stash_put(a, d):
    key = id(a)

    def drop(ref, key=key):
        entry = _STASH.get(key)
        if entry is not None and entry[0] is ref:
            _STASH.pop(key, None)
    _STASH[key] = (weakref.ref(a, drop), a.copy(), d)


def _stash_take(a):
    """gelu'(a) stashed by the forward if ``a`` is that forward's input, unchanged; else
    None (NOTE [gelu derivative stash])."""
    entry = _STASH.pop(id(a), None)
    if entry is None or entry[0]() is not a:
        return None
    x0 = entry[1]
    bits = np.uint64 if x0.nbytes % 8 == 0 else np.uint32  # (float64: always 8)
    if x0.shape != a.shape or not a.flags.c_contiguous or \
            not np.array_equal(x0.reshape(-1).view(bits), a.reshape(-1).view(bits)):
        return None
    return entry[2]


@half_in_float32
def _silu_kernel(a):
    return a * F.sigmoid(a)


@half_in_float32
def _softplus_kernel(a, beta, threshold):
    z = a * beta
    # log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)): never overflows
    sp = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
    return np.where(z > threshold, a, sp).astype(a.dtype, copy=False)
