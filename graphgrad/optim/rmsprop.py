"""RMSprop (centered and/or with momentum), as ``torch.optim.RMSprop``: PyTorch's
single-tensor update in the same order of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from .._tensor.tensor import Tensor
from .adam import _real, lerp_
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: divides the gradient by a running root mean square of recent gradients."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                st = self.state.get(p, [])
                if len(st) != 0 and not isinstance(st["step"], Tensor):
                    st["step"] = _step_tensor(float(st["step"]))

    def step(self, closure=None):
        """One RMSprop step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        state_of = self.state
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            if group["capturable"]:
                raise AssertionError("If capturable=True, params and state_steps must be on "
                                     "supported devices: ['cuda', 'xpu', 'hpu', 'xla'] (graphgrad "
                                     "runs on the CPU: use capturable=False).")
            lr = _to_scalar(group["lr"])
            alpha = group["alpha"]
            eps = group["eps"]
            wd = group["weight_decay"]
            momentum = group["momentum"]
            centered = group["centered"]
            maximize = group["maximize"]
            for p, g in pairs:
                state = state_of[p]
                if len(state) == 0:
                    state["step"] = _step_tensor(0.0)
                    state["square_avg"] = _zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_like(p)
                    if centered:
                        state["grad_avg"] = _zeros_like(p)
                pd = p._data
                gd = -g._data if maximize else g._data
                state["step"]._data += 1
                if wd != 0:
                    gd = gd + wd * pd
                gd = _real(gd)
                sq = _real(state["square_avg"]._data)
                sq *= alpha
                sq += (1 - alpha) * gd * gd
                if centered:
                    ga = _real(state["grad_avg"]._data)
                    lerp_(ga, gd, 1 - alpha)
                    avg = np.sqrt(sq + -1 * ga * ga)
                else:
                    avg = np.sqrt(sq)
                avg += eps
                p._bump_version()
                pr = _real(pd)
                if momentum > 0:
                    buf = _real(state["momentum_buffer"]._data)
                    buf *= momentum
                    buf += gd / avg
                    pr -= lr * buf
                else:
                    pr += -lr * (gd / avg)
        return loss
