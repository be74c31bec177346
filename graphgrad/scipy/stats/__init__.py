"""graphgrad.scipy.stats: ``norm``, ``multivariate_normal`` and ``t`` (their log densities
and densities) over Tensors."""
from . import multivariate_normal, norm, t  # noqa: F401
