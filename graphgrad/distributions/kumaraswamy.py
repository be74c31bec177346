"""torch.distributions.kumaraswamy's name (written in heavy_tailed.py)."""
from .heavy_tailed import Kumaraswamy

__all__ = ["Kumaraswamy"]
