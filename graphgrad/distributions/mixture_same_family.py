"""torch.distributions.mixture_same_family's name (written in mixture.py)."""
from .mixture import MixtureSameFamily

__all__ = ["MixtureSameFamily"]
