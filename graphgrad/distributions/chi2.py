"""torch.distributions.chi2's name (written in gamma.py)."""
from .gamma import Chi2

__all__ = ["Chi2"]
