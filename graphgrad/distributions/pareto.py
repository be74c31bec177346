"""torch.distributions.pareto's name (written in heavy_tailed.py)."""
from .heavy_tailed import Pareto

__all__ = ["Pareto"]
