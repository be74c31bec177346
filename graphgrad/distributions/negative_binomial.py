"""torch.distributions.negative_binomial's name (written in mixture.py)."""
from .mixture import NegativeBinomial

__all__ = ["NegativeBinomial"]
