"""graphgrad.fft: PyTorch's torch.fft (discrete Fourier transforms on numpy.fft's kernels,
with PyTorch's autograd graph: FftR2CBackward0, FftC2RBackward0, FftC2CBackward0).

The functions live in ops/api/fft.py, the three primitive transforms' table entries in
ops/derivatives/fft.py.
"""
from __future__ import annotations

from ..ops.api.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft, hfft2, hfftn, ifft,  # noqa: A004
                           ifft2, ifftn, ifftshift, ihfft, ihfft2, ihfftn, irfft, irfft2, irfftn,
                           rfft, rfft2, rfftfreq, rfftn)

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn",
           "rfft", "rfft2", "rfftfreq", "rfftn"]
