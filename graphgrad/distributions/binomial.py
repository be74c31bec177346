"""torch.distributions.binomial's name (written in discrete.py)."""
from .discrete import Binomial

__all__ = ["Binomial"]
