"""graphgrad.numpy.random: ``numpy.random`` itself (random numbers have no gradient):
``graphgrad.numpy.random.randn(3)`` is ``numpy.random.randn(3)``, an ndarray."""
from __future__ import annotations

import numpy.random as _npr

__all__ = list(_npr.__all__)
globals().update({_n: getattr(_npr, _n) for _n in __all__})


def __getattr__(name):
    return getattr(_npr, name)
