"""ASGD (averaged SGD), as ``torch.optim.ASGD``: PyTorch's single-tensor update on the NumPy
arrays; ``eta`` and ``mu`` are 0-d tensors of the scalar dtype, as in PyTorch."""
from __future__ import annotations

from ._common import no_capturable, restore_steps
from .adam import _real
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged stochastic gradient descent; ``state["ax"]`` holds the running average."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        restore_steps(self, ("step", "eta", "mu"))

    def step(self, closure=None):
        """One ASGD step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            no_capturable(group)
            lr = _to_scalar(group["lr"])
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            wd, maximize = group["weight_decay"], group["maximize"]
            for p, g in pairs:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["eta"] = _step_tensor(lr)
                    state["mu"] = _step_tensor(1.0)
                    state["ax"] = _zeros_like(p)
                sd = state["step"]._data
                sd += 1
                step = float(sd)
                pr = _real(p._data)
                gd = _real(-g._data if maximize else g._data)
                if wd != 0:
                    gd = gd + wd * pr
                eta = float(state["eta"]._data)
                mu = float(state["mu"]._data)
                p._bump_version()  # two in-place updates, as in PyTorch
                pr *= 1 - lambd * eta
                p._bump_version()
                pr -= eta * gd
                ax = _real(state["ax"]._data)
                if mu != 1:
                    ax += (pr - ax) * mu
                else:
                    ax[...] = pr
                state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
                state["mu"]._data[...] = 1 / max(1, step - t0)
        return loss
