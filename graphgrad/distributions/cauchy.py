"""torch.distributions.cauchy's name (written in continuous.py)."""
from .continuous import Cauchy

__all__ = ["Cauchy"]
