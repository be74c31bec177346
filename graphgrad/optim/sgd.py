"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize.

The update follows PyTorch's single-tensor ("for-loop") implementation, in the
same order of floating-point operations, on the parameters' NumPy arrays.
"""
from __future__ import annotations

from .._tensor.tensor import Tensor
from .optimizer import Optimizer, _check_lr, _to_scalar

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum), as ``torch.optim.SGD``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        """One SGD step; ``closure`` (optional) re-evaluates the model and returns the loss."""
        loss = self._run_closure(closure) if closure is not None else None
        state_of = self.state
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            lr = _to_scalar(group["lr"])
            momentum = _to_scalar(group["momentum"])
            dampening = group["dampening"]
            wd = _to_scalar(group["weight_decay"])
            nesterov = group["nesterov"]
            maximize = group["maximize"]
            for p, g in pairs:
                pd = p._data
                gd = g._data
                fresh = False  # whether gd is our own array (not the .grad's)
                if maximize:
                    gd = -gd
                    fresh = True
                if wd != 0:
                    gd = gd + wd * pd
                    fresh = True
                if momentum != 0:
                    state = state_of[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = Tensor._wrap(gd if fresh else gd.copy())
                        state["momentum_buffer"] = buf
                        bd = buf._data
                    else:
                        bd = buf._data
                        bd *= momentum
                        bd += (1 - dampening) * gd
                        buf._bump_version()
                    gd = gd + momentum * bd if nesterov else bd
                p._bump_version()
                pd -= lr * gd
        return loss
