"""torch.distributions.weibull's name (written in heavy_tailed.py)."""
from .heavy_tailed import Weibull

__all__ = ["Weibull"]
