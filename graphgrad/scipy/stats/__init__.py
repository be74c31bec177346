"""graphgrad.scipy.stats: ``norm`` and ``multivariate_normal`` (their log densities and
densities) over Tensors."""
from . import multivariate_normal, norm  # noqa: F401
