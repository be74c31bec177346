"""torch.distributions.half_normal's name (written in transformed.py)."""
from .transformed import HalfNormal

__all__ = ["HalfNormal"]
