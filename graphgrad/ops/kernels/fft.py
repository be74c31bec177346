"""The FFT kernels: PyTorch's three primitive transforms (_fft_r2c, _fft_c2r, _fft_c2c) on
numpy.fft (pocketfft: NumPy computes float32/complex64 in single precision).

``dim`` is a tuple of dims (negative: counted from the end, so leading batch dims pass
through); ``normalization`` is PyTorch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n,
whatever the direction of the transform.
"""
from __future__ import annotations

import numpy as np

# fft_norm_mode -> numpy's norm= for a forward (e^-i) and a backward (e^+i) transform
_FORWARD_NORM = ("backward", "ortho", "forward")
_BACKWARD_NORM = ("forward", "ortho", "backward")

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}
_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def _fft_r2c_kernel(x, dim, normalization, onesided):
    """The forward transform of real ``x`` over ``dim``; with ``onesided`` only the first
    n // 2 + 1 entries of the last dim of ``dim`` (the rest follow by Hermitian symmetry)."""
    norm = _FORWARD_NORM[normalization]
    if onesided:
        r = np.fft.rfftn(x, axes=dim, norm=norm)
    else:
        r = np.fft.fftn(x, axes=dim, norm=norm)
    return r.astype(_COMPLEX_OF[x.dtype], copy=False)


def _fft_c2r_kernel(x, dim, normalization, last_dim_size):
    """The backward transform of the Hermitian-symmetric signal whose first halves are
    ``x`` over ``dim``: a real result with ``last_dim_size`` entries on the last dim of
    ``dim`` (the imaginary parts of the entries that must be real are ignored)."""
    norm = _BACKWARD_NORM[normalization]
    s = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
    r = np.fft.irfftn(x, s=s, axes=dim, norm=norm)
    return r.astype(_REAL_OF[x.dtype], copy=False)


def _fft_c2c_kernel(x, dim, normalization, forward):
    """The forward (e^-i) or backward (e^+i) transform of complex ``x`` over ``dim``."""
    if forward:
        r = np.fft.fftn(x, axes=dim, norm=_FORWARD_NORM[normalization])
    else:
        r = np.fft.ifftn(x, axes=dim, norm=_BACKWARD_NORM[normalization])
    return r.astype(x.dtype, copy=False)
