"""graphgrad: PyTorch's autograd, re-implemented in Python on NumPy.

``import graphgrad as torch`` runs autograd code written for PyTorch: tensors
record a dynamic graph of backward Nodes as ops run, and ``backward()`` /
``autograd.grad`` walk it with an iterative engine (see docs/architecture.md).
"""
from __future__ import annotations

import builtins as _builtins
import gc as _gc
import math as _math
import warnings as _warnings

import numpy as _np

# NOTE [import without collections]: the import builds tens of thousands of objects (the
# op table, node classes, generated-code stubs, modules), none of them garbage; Python's
# cyclic collector would walk them several times while they are made (~20-30 ms of the
# import).  It is off during the imports and restored after; the objects are then aged to
# the oldest generation (below), as surviving a few passes would have aged them.
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from ._core import dtypes as _dtype
    from ._core.dtypes import (bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype,
                               finfo, float, float16, float32, float64, get_default_dtype, half,
                               iinfo, int, int8, int16, int32, int64, long, promote_types, short,
                               set_default_dtype, uint8, can_cast)
    from ._core.dtypes import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor,
                               FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor)
    from ._tensor.tensor import Size, Tensor, device
    from ._tensor.memory_format import (channels_last, channels_last_3d, contiguous_format,
                                        is_inference, memory_format, preserve_format)
    from ._tensor.random import Generator, default_generator  # noqa: F401
    from ._tensor.creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full,
                                   full_like, get_rng_state, initial_seed, linspace, manual_seed,
                                   ones, ones_like, rand, rand_like, randint, randint_like, randn,
                                   randn_like, randperm, seed, set_rng_state, tensor, zeros,
                                   zeros_like)
    from .ops import api as _api
    from .ops.api import random_ops as _random_ops, moments as _moments  # noqa: F401
    from . import cuda, random  # noqa: F401
    from .ops.registry import METHODS as _METHODS, PUBLIC as _PUBLIC
    from . import autograd
    # the tools of graphgrad.autograd (layer 6), bound now (see autograd/__init__)
    from .autograd import (Function, GradcheckError, Variable, anomaly_mode, detect_anomaly,  # noqa: F401
                           forward_ad, function, functional, gradcheck as _gradcheck)
    from . import backends, linalg, nn, return_types, special  # noqa: F401
    from . import amp, cpu  # noqa: F401
    from . import fft, _torch_names  # noqa: F401  (apifft)
    from .amp.grad_scaler import (_amp_foreach_non_finite_check_and_unscale_,  # noqa: F401
                                    _amp_update_scale_)
    from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                     is_inference_mode_enabled, no_grad, set_grad_enabled)
    from .autograd.anomaly_mode import is_anomaly_enabled, is_anomaly_check_nan_enabled
    from ._core.state import is_warn_always_enabled, set_warn_always  # noqa: F401
    from ._tensor.printing import set_printoptions as _set
    from .amp.autocast_mode import (autocast, autocast_decrement_nesting,  # noqa: F401
                                    autocast_increment_nesting, clear_autocast_cache,
                                    get_autocast_cpu_dtype, get_autocast_dtype,
                                    get_autocast_gpu_dtype, is_autocast_cache_enabled,
                                    is_autocast_cpu_enabled, is_autocast_enabled,
                                    set_autocast_cache_enabled, set_autocast_cpu_dtype,
                                    set_autocast_cpu_enabled, set_autocast_dtype,
                                    set_autocast_enabled, set_autocast_gpu_dtype)
    from ._core.heap import keep_freed_memory as _keep_freed_memory
    _keep_freed_memory()   # NOTE [kept heap]
finally:
    # (what the import made is permanent -- tables, classes, functions -- and the
    # collector's next young pass would walk all of it once more, ~9 M instructions: freeze
    # then unfreeze moves every tracked object to the oldest generation in one step, where
    # objects stay collectable as any long-lived object)
    _gc.freeze()
    _gc.unfreeze()
    if _gc_was_enabled:
        _gc.enable()

__version__ = "0.1.0"

# NumPy warns on overflow/0-division/invalid values; PyTorch silently gives inf/nan.
_np.seterr(all="ignore")

globals().update({k: v for k, v in _PUBLIC.items() if not k.startswith("_")})
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
for _mod in (_api.pointwise, _api.pointwise_unary, _api.pointwise_binary, _api.linalg,
             _api.comparison):
    for _name, _fn in _mod.OPERATORS.items():
        setattr(Tensor, _name, _fn)


def _tensor_property(name, fget):
    setattr(Tensor, name, property(fget))


def _T(self):
    if self.ndim == 2:
        return self.permute(1, 0)  # PyTorch: PermuteBackward0, not TBackward0
    _warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                  "is deprecated and it will throw an error in a future release. Consider `x.mT` "
                  "to transpose batches of matrices or `x.permute(*range(x.ndim - 1, -1, -1))` "
                  "to reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
    # (_builtins.range: graphgrad.range, torch.range's deprecated form, is this module's `range`)
    return self.permute(tuple(reversed(_builtins.range(self.ndim))))  # PermuteBackward0, 0-d/1-d too


_tensor_property("T", _T)
def _mT(self):
    if self.ndim == 0:
        import warnings
        warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
        return self
    if self.ndim == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    return self.transpose(-2, -1)


_tensor_property("mT", _mT)
_tensor_property("real", _api.pointwise.real)
_tensor_property("imag", _api.pointwise_unary.imag)
def _H(self):
    if self._data.ndim == 0:
        _warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=2)
        return self.conj()
    if self._data.ndim != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self._data.ndim}-D tensor.")
    return self.t().conj()


_tensor_property("H", _H)
_tensor_property("mH", lambda self: _mT(self).conj())


# NOTE [lazy tool packages]: optim, func (and torch.vmap), profiler, utils, distributed and
# serialization (torch.save/load) are written with the public API and nothing below them
# needs them, so they are imported when their name is first read (PEP 562), not by
# ``import graphgrad`` (issue 17's import-time bound; nn's layers likewise, see
# nn/__init__).  ``from graphgrad import optim`` and ``import graphgrad.optim`` work as for
# any submodule; ``dir(graphgrad)`` lists them.
_LAZY = ("optim", "func", "vmap", "profiler", "utils", "distributed", "serialization",
         "save", "load")
_LAZY += ("distributions",)   # (apidist)


def __getattr__(name):
    if name == "__all__":  # (``from graphgrad import *``: the lazy names too, as before)
        return sorted({key for key in globals() if not key.startswith("_")} | set(_LAZY))
    if name == "optim":
        import graphgrad.optim as mod
    elif name == "func":
        import graphgrad.func as mod
    elif name == "vmap":
        from graphgrad.func import vmap as mod
    elif name == "profiler":
        import graphgrad.profiler as mod
    elif name == "utils":
        import graphgrad.utils as mod
    elif name == "distributed":
        import graphgrad.distributed as mod
    elif name == "serialization":
        import graphgrad.serialization as mod
    elif name == "save":
        from graphgrad.serialization import save as mod
    elif name == "load":
        from graphgrad.serialization import load as mod
    elif name == "distributions":   # (apidist)
        import graphgrad.distributions as mod
    else:
        raise AttributeError(f"module 'graphgrad' has no attribute {name!r}")
    globals()[name] = mod
    return mod


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def numel(input):
    return input.numel()


def result_type(tensor1, tensor2):
    return _dtype.result_type(tensor1, tensor2)


def set_printoptions(*args, **kwargs):
    _set(*args, **kwargs)


def get_default_device():
    return device("cpu")


def equal(input, other):
    """True if the two tensors have the same size and values."""
    return input.equal(other)


inf = _math.inf
nan = _math.nan
pi = _math.pi
e = _math.e


del _name, _fn, _mod, _gradcheck, _gc_was_enabled
