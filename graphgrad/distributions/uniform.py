"""torch.distributions.uniform's name (written in continuous.py)."""
from .continuous import Uniform

__all__ = ["Uniform"]
