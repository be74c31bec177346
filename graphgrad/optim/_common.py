"""Shared pieces of the Adam-family optimizers' constructors and steps."""
from __future__ import annotations

from .._tensor.tensor import Tensor
from .optimizer import _step_tensor


def check_betas_eps_wd(betas, eps, weight_decay):
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def no_capturable(group):
    if group.get("capturable"):
        raise AssertionError("If capturable=True, params and state_steps must be on supported "
                             "devices: ['cuda', 'xpu', 'hpu', 'xla'] (graphgrad runs on the CPU: "
                             "use capturable=False).")


def restore_steps(opt, keys=("step",)):
    """``__setstate__``: old state dicts stored steps as numbers; make them tensors."""
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p, [])
            if len(st) != 0:
                for k in keys:
                    if k in st and not isinstance(st[k], Tensor):
                        st[k] = _step_tensor(float(st[k]))
