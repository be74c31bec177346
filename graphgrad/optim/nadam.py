"""NAdam (Adam with Nesterov momentum), as ``torch.optim.NAdam``: PyTorch's single-tensor
update in the same order of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from ._common import check_betas_eps_wd, no_capturable, restore_steps
from .adam import _real, lerp_
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam, with the momentum-decay schedule of Dozat (2016)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
        restore_steps(self, ("step", "mu_product"))

    def step(self, closure=None):
        """One NAdam step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            no_capturable(group)
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, wd, maximize = group["eps"], group["weight_decay"], group["maximize"]
            mdecay = group["momentum_decay"]
            decoupled = group["decoupled_weight_decay"]
            for p, g in pairs:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["mu_product"] = _step_tensor(1.0)
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                sd = state["step"]._data
                sd += 1
                step = float(sd)
                pd = p._data
                gd = -g._data if maximize else g._data
                bc2 = 1 - beta2 ** step
                p._bump_version()
                if wd != 0:
                    if decoupled:
                        pd *= 1 - lr * wd
                    else:
                        gd = gd + wd * pd
                gd = _real(gd)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * mdecay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * mdecay)))
                mp = state["mu_product"]._data  # in the scalar dtype, as PyTorch's tensor
                mp *= mu
                ea = _real(state["exp_avg"]._data)
                eas = _real(state["exp_avg_sq"]._data)
                lerp_(ea, gd, 1 - beta1)
                eas *= beta2
                eas += (1 - beta2) * gd * gd
                denom = np.sqrt(eas / bc2)
                mp_val = float(mp)
                mp_next = mp_val * mu_next
                denom += eps
                pr = _real(pd)
                pr += (-lr * (1.0 - mu) / (1.0 - mp_val)) * (gd / denom)
                pr += ((-lr * mu_next) / (1.0 - mp_next)) * (ea / denom)
        return loss
