"""Adamax (Adam with the infinity norm), as ``torch.optim.Adamax``: PyTorch's single-tensor
update in the same order of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from ._common import check_betas_eps_wd, no_capturable, restore_steps
from .adam import _real, lerp_
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax: Adam whose second moment is an exponentially weighted infinity norm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
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
        """One Adamax step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            no_capturable(group)
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, wd, maximize = group["eps"], group["weight_decay"], group["maximize"]
            for p, g in pairs:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_inf"] = _zeros_like(p)
                sd = state["step"]._data
                sd += 1
                pd = p._data
                gd = -g._data if maximize else g._data
                if wd != 0:
                    gd = gd + wd * pd
                gd = _real(gd)
                ea = _real(state["exp_avg"]._data)
                ei = _real(state["exp_inf"]._data)
                lerp_(ea, gd, 1 - beta1)
                ei *= beta2
                np.maximum(ei, np.abs(gd) + eps, out=ei)
                clr = lr / (1 - beta1 ** float(sd))
                p._bump_version()
                pr = _real(pd)
                pr += -clr * (ea / ei)
        return loss
