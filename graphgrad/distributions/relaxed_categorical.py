"""torch.distributions.relaxed_categorical's names (written in transformed.py)."""
from .transformed import ExpRelaxedCategorical, RelaxedOneHotCategorical

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]
