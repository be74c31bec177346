"""torch.distributions.half_cauchy's name (written in heavy_tailed.py)."""
from .heavy_tailed import HalfCauchy

__all__ = ["HalfCauchy"]
