"""torch.distributions.bernoulli's name (written in discrete.py)."""
from .discrete import Bernoulli

__all__ = ["Bernoulli"]
