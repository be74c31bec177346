"""torch.distributions.one_hot_categorical's names (written in discrete.py)."""
from .discrete import OneHotCategorical, OneHotCategoricalStraightThrough

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]
