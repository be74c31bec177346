"""torch.distributions.gumbel's name (written in heavy_tailed.py)."""
from .heavy_tailed import Gumbel

__all__ = ["Gumbel"]
