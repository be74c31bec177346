"""torch.distributions.exponential's name (written in gamma.py)."""
from .gamma import Exponential

__all__ = ["Exponential"]
