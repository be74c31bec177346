"""torch.distributions.transformed_distribution's name (written in transformed.py)."""
from .transformed import TransformedDistribution

__all__ = ["TransformedDistribution"]
