"""torch.distributions.normal's name (written in continuous.py)."""
from .continuous import Normal

__all__ = ["Normal"]
