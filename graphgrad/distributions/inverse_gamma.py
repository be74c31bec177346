"""torch.distributions.inverse_gamma's name (written in heavy_tailed.py)."""
from .heavy_tailed import InverseGamma

__all__ = ["InverseGamma"]
