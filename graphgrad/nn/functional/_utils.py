"""Argument checks and reduction helpers shared by the nn.functional families."""
from __future__ import annotations

import warnings

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor, _wrap_dim
from ...ops import formulas as F
from ..._core.state import tls


# ====================================================================== helpers
def _tensor_arg(fname, x, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _type_name(t):
    return scalar_type_name(t.dtype)


def _real_floating(fname, x):
    """PyTorch's kernels for most nn ops exist for real floating dtypes only."""
    if x._data.dtype.kind != "f" and x.dtype.name != "bfloat16":
        raise NotImplementedError(f'"{fname}" not implemented for \'{_type_name(x)}\'')


def _real_floating_pair(fname, input, target):
    """The pair losses' kernels run in the dtype the two promote to: a real floating one
    (an int or bool input with a float target is fine, a complex target is not)."""
    rt = _dtype.result_type(input, target)
    if not rt.is_floating_point:
        raise NotImplementedError(f'"{fname}" not implemented for \'{scalar_type_name(rt)}\'')


def _no_grad_arg(fname, arg, t):
    """PyTorch refuses inputs it has no derivative for (weight, pos_weight ...)."""
    if isinstance(t, Tensor) and t._requires_grad and tls.grad_enabled:
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to "
                           f"argument '{arg}'. This input cannot have requires_grad True.")


def _reduction(size_average, reduce, reduction):
    """The ``reduction`` string, honouring the deprecated size_average/reduce flags."""
    if size_average is not None or reduce is not None:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      "reduction='...' instead.", UserWarning, stacklevel=3)
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _apply_reduction(loss, reduction):
    """A composite loss's reduction through the public ops (mean() of an integer loss
    raises, as PyTorch's does)."""
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def _neg_dim(dim, nd):
    """``dim`` counted from the end (batch-safe), or None for a 0-d tensor."""
    d = _wrap_dim(dim, nd)
    return d - nd if nd else None


def _where0(cond, x):
    """``where(cond, 0, x)``; keeps exp() of the untaken branch finite."""
    return F.where(cond, 0.0, x)
