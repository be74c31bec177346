"""SparseAdam: Adam for sparse gradients.  graphgrad has no sparse tensors, so every
gradient is dense and ``step`` raises PyTorch's error for dense gradients (the constructor
and its checks behave as PyTorch's, so code that builds one still runs)."""
from __future__ import annotations

from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """``torch.optim.SparseAdam``'s interface; see the module docstring."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, g in enumerate(self.param_groups)
                          for j, p in enumerate(g["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        loss = self._run_closure(closure) if closure is not None else None
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam "
                        "instead (graphgrad has no sparse gradients, e.g. Embedding(sparse=True) "
                        "gives dense ones)")
        return loss
