"""RAdam (rectified Adam), as ``torch.optim.RAdam``: PyTorch's single-tensor update in the
same order of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from ._common import check_betas_eps_wd, no_capturable, restore_steps
from .adam import _real, lerp_
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive term is switched on (and rectified) once the variance of
    the second-moment estimate is tractable."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("capturable", False)
        restore_steps(self)

    def step(self, closure=None):
        """One RAdam step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            no_capturable(group)
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, wd, maximize = group["eps"], group["weight_decay"], group["maximize"]
            decoupled = group["decoupled_weight_decay"]
            for p, g in pairs:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                sd = state["step"]._data
                sd += 1
                step = float(sd)
                pd = p._data
                gd = -g._data if maximize else g._data
                p._bump_version()
                if wd != 0:
                    if decoupled:
                        pd *= 1 - lr * wd
                    else:
                        gd = gd + wd * pd
                gd = _real(gd)
                ea = _real(state["exp_avg"]._data)
                eas = _real(state["exp_avg_sq"]._data)
                lerp_(ea, gd, 1 - beta1)
                eas *= beta2
                eas += (1 - beta2) * gd * gd
                bc1 = 1 - beta1 ** step
                bc2 = 1 - beta2 ** step
                corrected = ea / bc1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bc2
                pr = _real(pd)
                if rho_t > 5.0:
                    sq = np.sqrt(eas)
                    sq += eps
                    adaptive = (bc2 ** 0.5) / sq
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    pr -= corrected * lr * adaptive * rect
                else:
                    pr -= corrected * lr
        return loss
