"""Adam (and, with ``decoupled_weight_decay=True``, AdamW), with amsgrad and maximize.

The update follows PyTorch's single-tensor implementation in the same order of
floating-point operations, on the NumPy arrays: complex parameters are updated
as pairs of reals (PyTorch's ``view_as_real``).
"""
from __future__ import annotations

import numpy as np

from .._tensor.tensor import Tensor
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["Adam"]


def _real(a):
    return a.view(a.real.dtype) if a.dtype.kind == "c" else a


def lerp_(a, end, weight):
    """``a.lerp_(end, weight)`` with ATen's formula (exact at both ends)."""
    if abs(weight) < 0.5:
        a += weight * (end - a)
    else:
        np.subtract(end, (end - a) * (1 - weight), out=a)


class Adam(Optimizer):
    """Adam, as ``torch.optim.Adam`` (``decoupled_weight_decay=True`` is AdamW)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, b in enumerate(betas):
            if isinstance(b, Tensor) and b.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.reshape(()) if isinstance(b, Tensor) and b.ndim else b for b in betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                st = self.state.get(p, [])
                if len(st) != 0 and not isinstance(st["step"], Tensor):
                    st["step"] = _step_tensor(float(st["step"]),
                                              bool(fused or group["capturable"]))

    def step(self, closure=None):
        """One Adam step; ``closure`` (optional) re-evaluates the model and returns the loss."""
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
            beta1, beta2 = (_to_scalar(b) for b in group["betas"])
            eps = group["eps"]
            wd = _to_scalar(group["weight_decay"])
            amsgrad = group["amsgrad"]
            maximize = group["maximize"]
            decoupled = group["decoupled_weight_decay"]
            fused = bool(group["fused"])
            for p, g in pairs:
                state = state_of[p]
                if len(state) == 0:
                    state["step"] = _step_tensor(0.0, fused)
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_like(p)
                pd = p._data
                gd = -g._data if maximize else g._data
                sd = state["step"]._data
                sd += 1
                step = float(sd)
                p._bump_version()
                if wd != 0:
                    if decoupled:
                        pd *= 1 - lr * wd
                    else:
                        gd = gd + wd * pd
                ea = state["exp_avg"]
                eas = state["exp_avg_sq"]
                ead = _real(ea._data)
                easd = _real(eas._data)
                gd = _real(gd)
                lerp_(ead, gd, 1 - beta1)
                easd *= beta2
                easd += (1 - beta2) * gd * gd
                bc1 = 1 - beta1 ** step
                bc2 = 1 - beta2 ** step
                step_size = lr / bc1
                bc2_sqrt = bc2 ** 0.5
                if amsgrad:
                    mx = _real(state["max_exp_avg_sq"]._data)
                    np.maximum(mx, easd, out=mx)
                    denom = np.sqrt(mx)
                else:
                    denom = np.sqrt(easd)
                denom /= bc2_sqrt
                denom += eps
                pr = _real(pd)
                pr += -step_size * (ead / denom)
        return loss
