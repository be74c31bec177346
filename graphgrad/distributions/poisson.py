"""torch.distributions.poisson's name (written in discrete.py)."""
from .discrete import Poisson

__all__ = ["Poisson"]
