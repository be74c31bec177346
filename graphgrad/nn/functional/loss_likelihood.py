"""Likelihood losses for graphgrad.nn.functional: poisson_nll_loss and gaussian_nll_loss,
composites of differentiable ops as PyTorch's are, with its nodes (the Scalar forms of its
C++ composite are renamed: AddBackward1, MulBackward1).
"""
from __future__ import annotations

import math

from ..._tensor.tensor import Tensor
from ..._tensor.creation import ones_like as _ones_like
from ...autograd.grad_mode import no_grad
from ...ops.api.views import _renamed
from ...ops.interpose import all_values, interposable
from ._utils import _apply_reduction, _reduction, _tensor_arg

__all__ = ["poisson_nll_loss", "gaussian_nll_loss"]


def _name(t, name):
    if t.grad_fn is not None:
        _renamed(t.grad_fn, name)
    return t


@interposable("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """``poisson_nll_loss(input, target, log_input=True, full=False, ..., eps=1e-08,
    reduction='mean')``: exp(x) - y x (log_input), else x - y log(x + eps); ``full`` adds
    Stirling's term y log y - y + log(2 pi y) / 2 where y > 1."""
    _tensor_arg("poisson_nll_loss", input)
    _tensor_arg("poisson_nll_loss", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * _name(input + eps, "AddBackward1").log()
    if full:
        two_pi_t = _name((2 * math.pi) * target, "MulBackward1")
        stirling = target * target.log() - target + _name(0.5 * two_pi_t.log(), "MulBackward1")
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


@interposable("gaussian_nll_loss")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction='mean')``:
    (log(max(var, eps)) + (x - y)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 with ``full``);
    ``var`` may be one dim short of the input or differ from it in one broadcast dim
    (homoscedastic), or a float.  The clamp at eps is outside the graph, as PyTorch's."""
    _tensor_arg("gaussian_nll_loss", input)
    _tensor_arg("gaussian_nll_loss", target, "target", 2)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _ones_like(input)
    elif not isinstance(var, Tensor):
        raise TypeError(f"gaussian_nll_loss(): argument 'var' (position 3) must be a Tensor or "
                        f"a float, not {type(var).__name__}")
    elif (all_values(var._data) < 0).any():
        raise ValueError("var has negative entry/entries")
    ishape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape != ishape:
        if ishape[:-1] == vshape:
            var = var.unsqueeze(-1)
        elif not (len(ishape) == len(vshape)
                  and sum(y for x, y in zip(ishape, vshape) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)
