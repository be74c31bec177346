"""Adafactor (factored second moments), as ``torch.optim.Adafactor``: PyTorch's
single-tensor update in the same order of operations, on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from .._tensor.tensor import Tensor
from .adam import lerp_
from .optimizer import Optimizer, _step_tensor, _to_scalar, _zeros_like

__all__ = ["Adafactor"]


def _sq_norm(g, axis):
    """``norm(g, dim=axis, keepdim=True).square()`` (rounded through the norm, as torch's)."""
    n = np.sqrt(np.sum(g * g, axis=axis, keepdims=True))
    return n * n


class Adafactor(Optimizer):
    """Adafactor: matrices keep row and column second-moment statistics instead of a full
    one; the step is relative to the parameter's RMS and clipped by ``d``."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                st = self.state.get(p, [])
                if len(st) != 0 and not isinstance(st["step"], Tensor):
                    st["step"] = _step_tensor(float(st["step"]))

    def step(self, closure=None):
        """One Adafactor step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            for p, _ in pairs:
                if p._data.dtype.kind == "c":
                    raise RuntimeError("Adafactor does not support complex parameters")
            lr = _to_scalar(group["lr"])
            eps1, eps2 = group["eps"]
            d, wd = group["d"], group["weight_decay"]
            beta2_decay, maximize = group["beta2_decay"], group["maximize"]
            for p, g in pairs:
                state = self.state[p]
                gd = -g._data if maximize else g._data
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    if gd.ndim > 1:
                        state["row_var"] = Tensor._wrap(np.zeros(gd.shape[:-1] + (1,), gd.dtype))
                        state["col_var"] = Tensor._wrap(
                            np.zeros(gd.shape[:-2] + (1,) + gd.shape[-1:], gd.dtype))
                    else:
                        state["variance"] = _zeros_like(g)
                pd = p._data
                if eps1 is None:
                    eps1 = float(np.finfo(pd.dtype).eps)
                sd = state["step"]._data
                sd += 1
                step = float(sd)
                one_minus_beta2_t = step ** beta2_decay
                rho_t = min(lr, 1 / (step ** 0.5))
                alpha = max(eps2, float(np.sqrt(np.sum(pd * pd))) / (pd.size ** 0.5)) * rho_t
                p._bump_version()
                if wd != 0:
                    pd *= 1 - lr * wd
                if gd.ndim > 1:
                    rv = state["row_var"]._data
                    cv = state["col_var"]._data
                    lerp_(rv, _sq_norm(gd, -1) / gd.shape[-1], one_minus_beta2_t)
                    lerp_(cv, _sq_norm(gd, -2) / gd.shape[-2], one_minus_beta2_t)
                    var = rv @ cv
                    var /= np.maximum(rv.mean(axis=-2, keepdims=True), eps1)
                else:
                    v = state["variance"]._data
                    lerp_(v, gd * gd, one_minus_beta2_t)
                    var = v.copy()
                update = 1 / np.sqrt(np.maximum(var, eps1 * eps1))
                update *= gd
                denom = max(1.0, float(np.sqrt(np.sum(update * update)))
                            / ((update.size ** 0.5) * d))
                pd -= (alpha / denom) * update
        return loss
