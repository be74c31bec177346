"""torch.distributions.lowrank_multivariate_normal's name (written in mixture.py)."""
from .mixture import LowRankMultivariateNormal

__all__ = ["LowRankMultivariateNormal"]
