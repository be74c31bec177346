"""torch.distributions.categorical's name (written in discrete.py)."""
from .discrete import Categorical

__all__ = ["Categorical"]
