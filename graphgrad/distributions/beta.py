"""torch.distributions.beta's name (written in gamma.py)."""
from .gamma import Beta

__all__ = ["Beta"]
