"""torch.distributions.multinomial's name (written in mixture.py)."""
from .mixture import Multinomial

__all__ = ["Multinomial"]
