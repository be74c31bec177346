"""torch.distributions.logistic_normal's name (written in heavy_tailed.py)."""
from .heavy_tailed import LogisticNormal

__all__ = ["LogisticNormal"]
