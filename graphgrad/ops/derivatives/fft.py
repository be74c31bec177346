"""The table, FFT family: PyTorch's three primitive transforms, whose composites make
graphgrad.fft (ops/api/fft.py).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/fft.py.  Every transform is linear (derivatives.yaml's ``auto_linear`` JVP);
dims are stored negative so the rules and the JVP take leading batch dims.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import LINEAR, defop
from ..kernels.fft import _fft_c2c_kernel, _fft_c2r_kernel, _fft_r2c_kernel


def _pad_last(grad, dim, amount):
    """``grad`` with ``amount`` zeros appended along ``dim`` (negative)."""
    pad = (0, 0) * (-dim - 1) + (0, amount)
    return F.constant_pad_nd(grad, pad, 0)


def _r2c_vjp(grad, self_sym_sizes, dim, normalization, onesided):
    """The adjoint transform of the gradient, real part; a onesided transform's gradient is
    zero-filled to the full signal first (the dropped half does not depend on the input
    through the kept one: PyTorch's fft_r2c_backward)."""
    if onesided:
        last = dim[-1]
        missing = self_sym_sizes[last] - F.shape(grad)[last]
        if missing > 0:
            grad = _pad_last(grad, last, missing)
    return F.real(F._fft_c2c(grad, dim, normalization, False))


def _c2r_weights(n_full, n_half, dim):
    """1, 2, ..., 2, (1 or 2) along ``dim``: entries 1 .. n_full - n_half of a onesided
    signal stand for themselves and their mirror image (PyTorch's fft_c2r_backward)."""
    w = np.ones(n_half)
    w[1:1 + max(n_full - n_half, 0)] = 2.0
    return w.reshape((n_half,) + (1,) * (-dim - 1))


def _c2r_vjp(grad, dim, normalization):
    """The onesided forward transform of the real gradient, the mirrored entries doubled."""
    g = F._fft_r2c(grad, dim, normalization, True)
    last = dim[-1]
    n_full, n_half = F.shape(grad)[last], F.shape(g)[last]
    if n_full - n_half > 0:
        w = _c2r_weights(n_full, n_half, last)
        if isinstance(g, Tensor):
            g = g * Tensor._wrap(w.astype(_REAL[g._data.dtype]))
        else:
            g = g * w.astype(_REAL[g.dtype])
    return g


_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


FFT_R2C = defop("_fft_r2c(self, *, dim, normalization, onesided)", _fft_r2c_kernel,
                "FftR2CBackward0", self=_r2c_vjp, jvp=LINEAR, batched_jvp=True)
FFT_C2R = defop("_fft_c2r(self, *, dim, normalization, last_dim_size)", _fft_c2r_kernel,
                "FftC2RBackward0",
                self=lambda grad, dim, normalization: _c2r_vjp(grad, dim, normalization),
                jvp=LINEAR, batched_jvp=True)
FFT_C2C = defop("_fft_c2c(self, *, dim, normalization, forward)", _fft_c2c_kernel,
                "FftC2CBackward0",
                self=lambda grad, dim, normalization, forward:
                    F._fft_c2c(grad, dim, normalization, not forward),
                jvp=LINEAR, batched_jvp=True)
