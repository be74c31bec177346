"""torch.distributions.laplace's name (written in continuous.py)."""
from .continuous import Laplace

__all__ = ["Laplace"]
