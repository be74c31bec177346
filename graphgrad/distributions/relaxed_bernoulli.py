"""torch.distributions.relaxed_bernoulli's names (written in transformed.py)."""
from .transformed import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]
