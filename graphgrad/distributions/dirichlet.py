"""torch.distributions.dirichlet's name (written in gamma.py)."""
from .gamma import Dirichlet

__all__ = ["Dirichlet"]
