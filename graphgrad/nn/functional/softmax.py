"""softmax and log_softmax (the row maximum subtracted first, as PyTorch does)."""
from __future__ import annotations

import warnings

from ..._core import dtypes as _dtype
from ..._core.state import tls
from ...ops.dispatch import dispatch
from ...ops.registry import export
from ._utils import _tensor_arg, _type_name, _neg_dim
from ...ops.derivatives.nn_softmax import LOG_SOFTMAX, SOFTMAX


# ====================================================================== softmax family
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
    # (PyTorch's kernel refuses other dtypes when it runs: not for an empty input)
    if input._data.size and input._data.dtype.kind not in "f" and \
            input.dtype.name != "bfloat16":
        raise NotImplementedError(f'"{fname}_lastdim_kernel_impl" not implemented for '
                                  f"'{_type_name(input)}'")
    # (so only an empty complex input gets here; PyTorch's autograd refuses it)
    if input._data.dtype.kind == "c" and input._requires_grad and tls.grad_enabled:
        raise RuntimeError(f"_{fname} does not support automatic differentiation for outputs "
                           f"with complex dtype. ({fname} of a complex input that requires "
                           f"grad, shape {list(input.shape)}: detach() it or call it under "
                           f"no_grad())")
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
