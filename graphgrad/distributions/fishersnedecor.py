"""torch.distributions.fishersnedecor's name (written in heavy_tailed.py)."""
from .heavy_tailed import FisherSnedecor

__all__ = ["FisherSnedecor"]
