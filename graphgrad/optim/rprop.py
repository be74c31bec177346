"""Rprop (resilient backpropagation), as ``torch.optim.Rprop``: PyTorch's single-tensor
update on the NumPy arrays."""
from __future__ import annotations

import numpy as np

from .._tensor.tensor import Tensor
from ._common import no_capturable, restore_steps
from .adam import _real
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _zeros_like

__all__ = ["Rprop"]


def _sign(a):
    """PyTorch's sign: 0 for NaN (NumPy's gives NaN), so a NaN gradient leaves Rprop's
    parameter and step size unchanged, as in PyTorch."""
    s = np.sign(a)
    np.copyto(s, 0, where=s != s)
    return s


class Rprop(Optimizer):
    """Rprop: per-element step sizes grown by ``etas[1]`` while the gradient keeps its sign
    and shrunk by ``etas[0]`` when it flips (that element then skips one update)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
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
        """One Rprop step; ``closure`` (optional) re-evaluates the model and returns the
        loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group, pairs in self._checked_groups():
            if not pairs:
                continue
            no_capturable(group)
            etaminus, etaplus = group["etas"]
            smin, smax = group["step_sizes"]
            maximize = group["maximize"]
            for p, g in pairs:
                state = self.state[p]
                if len(state) == 0:
                    lr = _to_scalar(group["lr"])
                    state["step"] = _step_tensor()
                    state["prev"] = _zeros_like(p)
                    fill = complex(lr, lr) if p._data.dtype.kind == "c" else lr
                    state["step_size"] = Tensor._wrap(np.full_like(g._data, fill))
                state["step"]._data += 1
                gd = _real(-g._data if maximize else g._data)
                prev = _real(state["prev"]._data)
                ss = _real(state["step_size"]._data)
                sign = _sign(gd * prev)
                sign[sign > 0] = etaplus
                sign[sign < 0] = etaminus
                sign[sign == 0] = 1  # (etas are positive: only the original zeros)
                ss *= sign
                np.clip(ss, smin, smax, out=ss)
                gd = gd.copy()
                gd[sign == etaminus] = 0
                p._bump_version()
                pr = _real(p._data)
                pr += (-1 * _sign(gd)) * ss
                prev[...] = gd
        return loss
