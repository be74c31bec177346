"""Adadelta, as ``torch.optim.Adadelta``: PyTorch's single-tensor update in the same order
of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from ._common import no_capturable, restore_steps
from .adam import _real
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of updates and of gradients."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        restore_steps(self)

    def step(self, closure=None):
        """One Adadelta step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            no_capturable(group)
            lr = _to_scalar(group["lr"])
            rho, eps, wd = group["rho"], group["eps"], group["weight_decay"]
            maximize = group["maximize"]
            for p, g in pairs:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _zeros_like(p)
                    state["acc_delta"] = _zeros_like(p)
                state["step"]._data += 1
                pd = p._data
                gd = -g._data if maximize else g._data
                if wd != 0:
                    gd = gd + wd * pd
                gd = _real(gd)
                sq = _real(state["square_avg"]._data)
                acc = _real(state["acc_delta"]._data)
                sq *= rho
                sq += (1 - rho) * gd * gd
                std = np.sqrt(sq + eps)
                delta = np.sqrt(acc + eps)
                delta /= std
                delta *= gd
                acc *= rho
                acc += (1 - rho) * delta * delta
                p._bump_version()
                pr = _real(pd)
                pr -= lr * delta
        return loss
