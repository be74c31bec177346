"""Adagrad (lr_decay, initial_accumulator_value), as ``torch.optim.Adagrad``: PyTorch's
single-tensor update in the same order of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from .._tensor.tensor import Tensor
from .adam import _real
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: per-element learning rates scaled by the accumulated squared gradients."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        # (PyTorch fills every accumulator with the constructor's value, whatever the group says)
        state = self.state[p]
        v = self.defaults["initial_accumulator_value"]
        state["step"] = _step_tensor(0.0, bool(group["fused"]))
        state["sum"] = Tensor._wrap(np.full_like(p._data, complex(v, v)
                                                 if p._data.dtype.kind == "c" else v))

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
        for st in self.state.values():
            if "step" in st and not isinstance(st["step"], Tensor):
                st["step"] = _step_tensor(float(st["step"]))

    def share_memory(self):
        """No-op: graphgrad tensors live in this process's memory."""

    def step(self, closure=None):
        """One Adagrad step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        state_of = self.state
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            lr = _to_scalar(group["lr"])
            wd = group["weight_decay"]
            lr_decay = group["lr_decay"]
            eps = group["eps"]
            maximize = group["maximize"]
            for p, g in pairs:
                state = state_of[p]
                if len(state) == 0:  # a group added after construction
                    self._init_state(p, group)
                sd = state["step"]._data
                sd += 1
                step = float(sd)
                pd = p._data
                gd = -g._data if maximize else g._data
                if wd != 0:
                    gd = gd + wd * pd
                clr = lr / (1 + (step - 1) * lr_decay)
                gd = _real(gd)
                ss = _real(state["sum"]._data)
                ss += gd * gd
                std = np.sqrt(ss)
                std += eps
                p._bump_version()
                pr = _real(pd)
                pr += -clr * (gd / std)
        return loss
