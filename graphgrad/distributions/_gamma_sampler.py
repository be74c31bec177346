"""Standard gamma samples with a reparameterised gradient (``torch._standard_gamma``).

The sample ``x ~ Gamma(alpha, 1)`` is drawn by NumPy from graphgrad's default generator; its
derivative with respect to ``alpha`` is the implicit one, ``dx/dalpha = -(dP/dalpha)(alpha, x)
/ p(x; alpha)``, where P is the regularised lower incomplete gamma function (the CDF) and p
the density.  The gradient is attached as ``x + (alpha - alpha.detach()) * dx/dalpha``: the
value is the sample, and backward / forward mode see the derivative (first order: as
PyTorch's ``_standard_gamma_grad``, it has no derivative of its own).
"""
from __future__ import annotations

import math

import numpy as np

from . import _ops
from ..autograd.function import Function

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _lower_regularized_gamma(a, x):
    """P(a, x) for arrays a > 0, x >= 0 (series below a + 1, continued fraction above)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.zeros(a.shape)
    with np.errstate(all="ignore"):
        log_front = a * np.log(np.where(x > 0, x, 1.0)) - x - _lgamma(a)
        series = (x < a + 1) & (x > 0)
        if series.any():
            aa, xx = a[series], x[series]
            term = 1.0 / aa
            total = term.copy()
            ap = aa.copy()
            for _ in range(2000):
                ap = ap + 1
                term = term * xx / ap
                total = total + term
                if np.all(np.abs(term) < np.abs(total) * 1e-16):
                    break
            out[series] = total * np.exp(log_front[series])
        frac = x >= a + 1
        if frac.any():
            aa, xx = a[frac], x[frac]
            tiny = 1e-300
            b = xx + 1 - aa
            c = np.full(aa.shape, 1 / tiny)
            d = 1 / b
            h = d.copy()
            for i in range(1, 2000):
                an = -i * (i - aa)
                b = b + 2
                d = an * d + b
                d = np.where(np.abs(d) < tiny, tiny, d)
                c = b + an / c
                c = np.where(np.abs(c) < tiny, tiny, c)
                d = 1 / d
                delta = d * c
                h = h * delta
                if np.all(np.abs(delta - 1) < 1e-15):
                    break
            out[frac] = 1 - np.exp(log_front[frac]) * h
    out[np.isposinf(x)] = 1.0
    return out


def standard_gamma_grad(alpha, x):
    """d x / d alpha of a standard gamma sample ``x`` (NumPy arrays), by the implicit
    function theorem; the CDF's derivative in alpha by a central difference."""
    alpha = np.asarray(alpha, np.float64)
    x = np.asarray(x, np.float64)
    h = 1e-5 * np.maximum(alpha, 1e-3)
    h = np.minimum(h, alpha / 2)
    dP = (_lower_regularized_gamma(alpha + h, x) - _lower_regularized_gamma(alpha - h, x)) / (
        2 * h)
    with np.errstate(all="ignore"):
        log_pdf = (alpha - 1) * np.log(x) - x - _lgamma(alpha)
        grad = -dP / np.exp(log_pdf)
    return np.nan_to_num(grad, nan=0.0, posinf=0.0, neginf=0.0)


def standard_gamma(alpha):
    """Samples of Gamma(alpha, 1), one per entry of ``alpha``, reparameterised."""
    with _ops.no_grad():
        a = alpha.detach().numpy().astype(np.float64)
        tiny = _ops.finfo(alpha.dtype).tiny
        x = np.maximum(_ops.numpy_rng(None).standard_gamma(a), tiny)
        sample = _ops.tensor(x, dtype=alpha.dtype)
    if not alpha.requires_grad and not _has_tangent(alpha):
        return sample
    dxda = _ops.tensor(standard_gamma_grad(a, x), dtype=alpha.dtype)
    return sample + (alpha - alpha.detach()) * dxda


def _has_tangent(t):
    return _ops.unpack_dual(t).tangent is not None


class _RegularizedGammaP(Function):
    """P(a, x), the regularized lower incomplete gamma function (torch.special.gammainc), of
    a constant ``a``: the value from NumPy, the derivative in x (the gamma density) from
    graphgrad's ops, so that it is differentiable again."""

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        p = _lower_regularized_gamma(a.detach().numpy(), x.detach().numpy())
        return _ops.tensor(p, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, grad * density


class _NoDerivativeInA(Function):
    """Zeros whose backward raises: P has no derivative in a (as PyTorch's igamma); only a
    backward that reaches ``a`` runs it."""

    @staticmethod
    def forward(ctx, a):
        return _ops.zeros(a.shape, dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")


def regularized_gamma_p(a, x):
    """P(a, x) of tensors (broadcast), differentiable in x."""
    a, x = _ops.broadcast_tensors(a, x)
    p = _RegularizedGammaP.apply(a.detach(), x)
    if a.requires_grad:
        p = p + _NoDerivativeInA.apply(a)
    return p
