"""graphgrad.numpy.fft: ``numpy.fft`` for NumPy data.  graphgrad has no FFT op yet, so on
a Tensor every function raises NotImplementedError rather than dropping the gradient
(docs/differences.md)."""
from __future__ import annotations

import numpy as _np

from ._core import numpy_only

__all__ = [n for n in dir(_np.fft) if not n.startswith("_")]

for _n in __all__:
    _obj = getattr(_np.fft, _n)
    globals()[_n] = numpy_only(_obj, f"fft.{_n}") if callable(_obj) else _obj
