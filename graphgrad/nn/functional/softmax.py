"""softmax and log_softmax (the row maximum subtracted first, as PyTorch does)."""
from __future__ import annotations

import math
import warnings
import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor
from ...ops import formulas as F
from ...ops.dispatch import dispatch
from ...ops.registry import defop, export
from ..._core.opmath import BFLOAT16, FLOAT16, half_in_float32
from ._utils import _tensor_arg, _type_name, _sumk, _neg_dim

# ====================================================================== softmax family
def _softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:  # 0-d input
        e = np.exp(a - a)  # 1, or nan for inf/nan
    elif a.size == 0:
        e = a.copy()
    else:
        e = np.subtract(a, a.max(axis=dim, keepdims=True))
        np.exp(e, out=e)
        s = e.sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim != a.ndim - 1 and \
                math.prod(a.shape[dim % a.ndim + 1:]) < 16:
            # PyTorch's kernel along a dim other than the last stores the exponentials in
            # its half-precision output before dividing them by their float32 sum (for
            # inner sizes below one SIMD vector; wider ones vary with the CPU's vector width)
            e = e.astype(half).astype(np.float32)
        e /= s
        e = np.ascontiguousarray(e)  # (PyTorch's result is contiguous for any input layout)
    return e if half is None else e.astype(half)


def _log_softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:
        s = a - a
    elif a.size == 0:
        s = a.copy()
    else:
        s = np.subtract(a, a.max(axis=dim, keepdims=True))
        lse = np.exp(s).sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim == a.ndim - 1:
            # PyTorch's last-dim kernel keeps the sum and its log in half precision
            lse = np.log(lse.astype(half).astype(np.float32)).astype(half).astype(np.float32)
        else:
            lse = np.log(lse)
        s -= lse
        s = np.ascontiguousarray(s)  # (PyTorch's result is contiguous for any input layout)
    return s if half is None else s.astype(half)


@half_in_float32   # (sums of half-precision gradients in float32)
def _softmax_vjp(grad, y, dim):
    """y * (grad - sum(grad * y)): the softmax Jacobian is symmetric (also the JVP)."""
    gy = grad * y
    if dim is None:
        return gy - y * gy
    if isinstance(gy, Tensor):
        return gy - y * _sumk(gy, (dim,))
    gy -= y * gy.sum(axis=dim, keepdims=True)
    return gy


@half_in_float32   # (sums of half-precision gradients in float32)
def _log_softmax_vjp(grad, result, dim):
    if dim is None:
        return grad - F.exp(result) * grad
    if isinstance(grad, Tensor) or isinstance(result, Tensor):
        return grad - F.exp(result) * _sumk(grad, (dim,))
    p = np.exp(result)
    s = grad.sum(axis=dim, keepdims=True)
    if grad.shape == p.shape:
        p *= s
        return np.subtract(grad, p, out=p)
    p = p * s  # batched gradient
    return grad - p


SOFTMAX = defop("_softmax(self, *, dim)", _softmax_kernel, "SoftmaxBackward0",
                self=lambda grad, result, dim: _softmax_vjp(grad, result, dim),
                jvp=lambda self_t, result, dim: _softmax_vjp(self_t, result, dim), batched_jvp=True)
LOG_SOFTMAX = defop("_log_softmax(self, *, dim)", _log_softmax_kernel, "LogSoftmaxBackward0",
                    self=lambda grad, result, dim: _log_softmax_vjp(grad, result, dim),
                    jvp=lambda self_t, result, dim:
                        self_t - (_sumk(F.exp(result) * self_t, (dim,)) if dim is not None
                                  else F.exp(result) * self_t), batched_jvp=True)


def _softmax_dim(name, ndim, stacklevel=4):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_like(op, fname, input, dim, dtype):
    _tensor_arg(fname, input)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    if isinstance(dim, (tuple, list)) or dim is None:
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(dim).__name__}")
    nd = input._data.ndim
    d = _neg_dim(int(dim), nd)
    if input._data.dtype.kind not in "f" and input.dtype.name != "bfloat16":
        raise NotImplementedError(f'"{fname}_lastdim_kernel_impl" not implemented for '
                                  f"'{_type_name(input)}'")
    return dispatch(op, input, d)


@export("softmax")
def _softmax_public(input, dim, dtype=None):
    """``graphgrad.softmax(input, dim, dtype=None)`` / ``Tensor.softmax(dim)``."""
    return _softmax_like(SOFTMAX, "softmax", input, dim, dtype)


@export("log_softmax")
def _log_softmax_public(input, dim, dtype=None):
    """``graphgrad.log_softmax(input, dim, dtype=None)`` / ``Tensor.log_softmax(dim)``."""
    return _softmax_like(LOG_SOFTMAX, "log_softmax", input, dim, dtype)


_softmax_public.__name__ = _softmax_public.__qualname__ = "softmax"
_log_softmax_public.__name__ = _log_softmax_public.__qualname__ = "log_softmax"


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(input, dim=None, _stacklevel=3, dtype=None)``: exp(x) / sum(exp(x)) along
    ``dim``, computed as exp(x - max) (SoftmaxBackward0)."""
    if dim is None:
        _tensor_arg("softmax", input)
        dim = _softmax_dim("softmax", input.ndim, _stacklevel + 1)
    return _softmax_like(SOFTMAX, "softmax", input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log_softmax(input, dim=None, _stacklevel=3, dtype=None)``: x - logsumexp(x) along
    ``dim`` (LogSoftmaxBackward0)."""
    if dim is None:
        _tensor_arg("log_softmax", input)
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel + 1)
    return _softmax_like(LOG_SOFTMAX, "log_softmax", input, dim, dtype)
