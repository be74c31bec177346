"""Normalisation ops for graphgrad.nn.functional: batch_norm, instance_norm, group_norm,
rms_norm.

batch_norm and group_norm are table ops with PyTorch's nodes (NativeBatchNormBackward0,
NativeGroupNormBackward0).  Their rules run on the saved statistics in an ordinary backward
and recompute them with graphgrad ops when they run on Tensors (create_graph, forward AD), so
the statistics are differentiated too, as layer_norm's.  rms_norm and instance_norm are
composites, as PyTorch's are (MulBackward0 / ViewBackward0 on top).
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ...ops.dispatch import dispatch
from ...ops.registry import export
from ._utils import _real_floating, _tensor_arg, _type_name
from ...ops.derivatives.nn_norm_layers import BATCH_NORM, GROUP_NORM


__all__ = ["batch_norm", "instance_norm", "group_norm", "rms_norm"]


# ====================================================================== batch_norm
def _check_vec(name, t, c):
    if t is not None and t._data.size != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")


def _update_running(t, new, momentum):
    """``t = (1 - momentum) * t + momentum * new`` in place (no graph; like PyTorch's kernel,
    which writes the statistics directly, the version counter is left alone)."""
    d = t._data
    d[...] = ((1.0 - momentum) * d.astype(np.float64) + momentum * new).astype(d.dtype)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """``batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
    momentum=0.1, eps=1e-05)`` on (N, C, *): normalise each channel by the batch's statistics
    (training) or by the running ones (eval); in training the running statistics (when given)
    are updated in place: ``(1 - momentum) * running + momentum * batch``, with the batch's
    unbiased variance (NativeBatchNormBackward0)."""
    _tensor_arg("batch_norm", input)
    if momentum is None or isinstance(momentum, bool) or \
            not isinstance(momentum, (int, float, np.floating, np.integer)):
        raise TypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    shape = input._data.shape
    nd = len(shape)
    c = shape[1] if nd > 1 else 0
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be "
                           "defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _check_vec(name, t, c)
    if training:
        n = input._data.size // c if c else 0
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
    if nd < 2:
        raise RuntimeError(f"batch_norm: expected an (N, C, *) input with at least 2 dims, got "
                           f"input of size {list(shape)}")
    if input._data.dtype.kind != "f" and input.dtype is not _dtype.bfloat16:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{_type_name(input)}'")
    dt = input._data.dtype
    half = dt.itemsize == 2
    pdt = {t._data.dtype for t in (weight, bias, running_mean, running_var) if t is not None}
    # (a float16/bfloat16 input may come with float32 parameters and statistics, all of them)
    if pdt and pdt != {dt} and not (half and pdt == {np.dtype(np.float32)}):
        raise RuntimeError(f"mixed dtype (CPU): all inputs must share same datatype. "
                           f"[batch_norm: input is {scalar_type_name(dt)}, the parameters and "
                           f"running statistics are "
                           f"{', '.join(sorted(scalar_type_name(d) for d in pdt))}]")
    out = dispatch(BATCH_NORM, input, weight, bias, running_mean, running_var, bool(training),
                   float(eps))
    if training and (running_mean is not None or running_var is not None):
        n = input._data.size // c
        mean, var = out[1]._data.astype(np.float64), out[3]._data.astype(np.float64)
        if running_mean is not None:
            _update_running(running_mean, mean, float(momentum))
        if running_var is not None:
            _update_running(running_var, var * (n / (n - 1)), float(momentum))
    return out[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """``instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
    use_input_stats=True, momentum=0.1, eps=1e-05)``: batch_norm of the (1, N*C, *) view
    (each instance's channel on its own), as PyTorch computes it; the running statistics
    get the mean over the batch of the per-instance updates (ViewBackward0 on top)."""
    _tensor_arg("instance_norm", input)
    shape = input._data.shape
    if use_input_stats:
        sp = int(np.prod(shape[2:])) if len(shape) > 2 else 1
        if len(shape) < 3 or sp <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {input.shape}")
    n, c = shape[0], shape[1]
    x = input.reshape((1, n * c) + tuple(shape[2:]))

    def rep(t):
        return None if t is None else t.repeat(n)
    # (the repeated statistics are new tensors in the parameters' dtype, as PyTorch's)
    sdt = (weight if weight is not None else input)._data.dtype
    rm = rv = None
    if running_mean is not None:
        rm = Tensor._wrap(np.tile(running_mean._data, n).astype(sdt))
    if running_var is not None:
        rv = Tensor._wrap(np.tile(running_var._data, n).astype(sdt))
    out = batch_norm(x, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        for src, dst in ((rm, running_mean), (rv, running_var)):
            if dst is not None:
                dst._data[...] = src._data.reshape(n, c).mean(axis=0).astype(dst._data.dtype)
                dst._bump_version()   # (PyTorch copies the means back in: copy_ bumps it)
    return out.view(shape)


# ====================================================================== group_norm
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """``group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)`` on (N, C, *):
    normalise each group of C / num_groups channels of each sample, then scale and shift per
    channel (NativeGroupNormBackward0)."""
    _tensor_arg("group_norm", input)
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{len(shape)}")
    num_groups = int(num_groups)
    if num_groups == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    c = shape[1]
    if num_groups < 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(t._data.shape)} and input of shape {list(shape)}")
    half = input._data.dtype.itemsize == 2 and input._data.dtype.kind in "fV"
    for t in (weight, bias):
        # (float32 parameters of a float16/bfloat16 input are fine: PyTorch's mixed type)
        if t is not None and t._data.dtype != input._data.dtype and \
                not (half and t._data.dtype == np.float32):
            raise RuntimeError(f"expected scalar type {_type_name(input)} but found "
                               f"{_type_name(t)} [group_norm: weight and bias must have the "
                               "input's dtype]")
    _real_floating("GroupNormKernelImpl", input)
    return dispatch(GROUP_NORM, input, weight, bias, num_groups, float(eps))[0]


# ====================================================================== rms_norm
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``rms_norm(input, normalized_shape, weight=None, eps=None)``: input /
    sqrt(mean(input^2 over the trailing normalized_shape dims) + eps), times weight; eps
    defaults to the dtype's machine epsilon (composite, as PyTorch's: PowBackward0,
    MeanBackward1, AddBackward1, RsqrtBackward0, MulBackward0; half precision is computed
    in float32, ToCopyBackward0 on top)."""
    _tensor_arg("rms_norm", input)
    if isinstance(normalized_shape, (int, np.integer)):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not int [pass ({normalized_shape},)]")
    ns = tuple(int(s) for s in normalized_shape)
    shape = input._data.shape
    if not ns or len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in ns)}], but got input of size"
                           f"{list(shape)}")
    if weight is not None and weight._data.shape != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight._data.shape)} and normalized_shape = "
                           f"{list(ns)}")
    _real_floating("rms_norm", input)
    half = input._data.dtype.itemsize == 2
    x = input.float() if half else input
    if eps is None:
        eps = float(np.finfo(np.float32 if half else input._data.dtype).eps)
    dims = tuple(range(-len(ns), 0))
    r = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        r = r * weight
    return r.to(input.dtype) if half else r


@export("batch_norm", method=False)
def _batch_norm_public(input, weight, bias, running_mean, running_var, training, momentum, eps,
                       cudnn_enabled=False):
    """``graphgrad.batch_norm(input, weight, bias, running_mean, running_var, training,
    momentum, eps, cudnn_enabled)``: torch.batch_norm's argument order."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@export("instance_norm", method=False)
def _instance_norm_public(input, weight, bias, running_mean, running_var, use_input_stats,
                          momentum, eps, cudnn_enabled=False):
    """``graphgrad.instance_norm(input, weight, bias, running_mean, running_var,
    use_input_stats, momentum, eps, cudnn_enabled)``: torch.instance_norm's argument order."""
    return instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                         momentum, eps)


_batch_norm_public.__name__ = _batch_norm_public.__qualname__ = "batch_norm"
_instance_norm_public.__name__ = _instance_norm_public.__qualname__ = "instance_norm"


@export("group_norm", method=False)
def _group_norm_public(input, num_groups, weight=None, bias=None, eps=1e-5,
                       cudnn_enabled=True):
    """``graphgrad.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
    cudnn_enabled=True)``."""
    return group_norm(input, num_groups, weight, bias, eps)


_group_norm_public.__name__ = _group_norm_public.__qualname__ = "group_norm"
export("rms_norm", method=False)(rms_norm)
