"""torch.distributions.log_normal's name (written in transformed.py)."""
from .transformed import LogNormal

__all__ = ["LogNormal"]
