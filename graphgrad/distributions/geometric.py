"""torch.distributions.geometric's name (written in discrete.py)."""
from .discrete import Geometric

__all__ = ["Geometric"]
