"""torch.distributions.studentT's name (written in heavy_tailed.py)."""
from .heavy_tailed import StudentT

__all__ = ["StudentT"]
