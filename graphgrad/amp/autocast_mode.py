"""Autocast: ops run in an op-specific dtype inside an ``autocast`` region, as PyTorch's
CPU autocast does (its ``AutocastCPU`` dispatch key).

NOTE [autocast]: while CPU autocast is enabled on a thread, its interposer
(``_autocast_interposer``, NOTE [interposition] in ops/interpose.py) sits in that thread's
chain.  For an op on one of PyTorch's CPU lists it casts the op's floating tensor
arguments (not float64 ones, as PyTorch's ``is_eligible``):

- ``LOWER_PRECISION_FP`` ops (mm, linear, conv2d...): to the region's dtype (bfloat16 or
  float16);
- ``FP32`` ops (losses, linalg, fft, 3-d pooling...): to float32;
- ``PROMOTE`` ops (cat, stack, index_copy): to the widest floating dtype among them.

The casts are ordinary ``Tensor.to`` calls, recorded in the graph (ToCopyBackward0), so the
gradient of a float32 leaf comes back float32.  The op then runs with autocast off for the
ops *inside* it (PyTorch excludes the autocast key while it redispatches), so the matmul
and add of ``F.linear`` are not cast again.  Ops on no list run in their inputs' dtypes;
ops PyTorch decomposes (``einsum`` into ``bmm``...) are cast where their parts are.

The weight-cast cache: a float32 leaf that requires grad (a parameter) cast to the lower
dtype is cast once per outermost autocast region (``cache_enabled``) and the cast reused,
so a layer applied twice shares one ToCopyBackward0; the cache is dropped when the
outermost region exits.
"""
from __future__ import annotations

import collections.abc
import functools
import threading
import warnings

from .._core import dtypes as _dtype
from .._core.state import tls as _tls
from .._tensor.tensor import Tensor
from ..ops.api.linalg import _einsum_parse, _sublist_equation
from ..ops.interpose import Composite

__all__ = ["autocast", "autocast_decorator", "is_autocast_available", "custom_fwd",
           "custom_bwd"]

# ---------------------------------------------------------------------------------------
# PyTorch's CPU op lists (aten/src/ATen/autocast_mode.cpp, AutocastCPU), by aten name; the
# composite public functions graphgrad runs as several ops are marked @interposable with
# these names (F.linear, F.conv2d, F.cross_entropy...).

LOWER_PRECISION_FP = frozenset((
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm",
    "_addmm_activation", "addbmm", "linear", "_convolution", "matmul", "conv_tbc",
    "mkldnn_rnn_layer", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
    "scaled_dot_product_attention", "_native_multi_head_attention",
))

FP32 = frozenset((
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile",
    "nanquantile", "stft", "cdist", "grid_sampler_2d", "_grid_sampler_2d_cpu_fallback",
    "grid_sampler_3d", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
    "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d",
    "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d",
    "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
    "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "ctc_loss", "kl_div", "multilabel_margin_loss", "binary_cross_entropy_with_logits",
    "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft",
    "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft",
    "fft_ihfft", "linalg_cond", "linalg_matrix_rank", "linalg_solve", "linalg_cholesky",
    "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv",
    "linalg_householder_product", "linalg_tensorinv", "linalg_tensorsolve",
    "fake_quantize_per_tensor_affine", "geqrf", "_lu_with_info", "qr", "svd",
    "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d",
    "adaptive_max_pool3d", "multilabel_margin_loss_forward", "linalg_qr",
    "linalg_cholesky_ex", "linalg_svd", "linalg_eig", "linalg_eigh", "linalg_lstsq",
    "linalg_inv_ex",
))

PROMOTE = frozenset(("stack", "cat", "index_copy"))

# Ops PyTorch runs as one kernel on no list (so in their inputs' dtypes) that graphgrad
# computes with listed ops: they run with autocast off inside, as PyTorch's do.
OPAQUE = frozenset(("bilinear",))

_LOWER, _FP32, _PROMOTE, _OPAQUE, _EINSUM2 = 1, 2, 3, 4, 5
POLICY = {**{n: _LOWER for n in LOWER_PRECISION_FP}, **{n: _FP32 for n in FP32},
          **{n: _PROMOTE for n in PROMOTE}, **{n: _OPAQUE for n in OPAQUE},
          # PyTorch's einsum contracts each pair of operands with bmm (on the list) when the
          # pair sums a label they share, else with mul (on no list); graphgrad's einsum
          # contracts the same pairs, left to right, with its einsum2 op
          "einsum2": _EINSUM2, "einsum": 6}
_EINSUM = 6

# ---------------------------------------------------------------------------------------
# Per-thread state, as PyTorch's (thread-local dispatch-key exclusion and dtypes)

# device types PyTorch's autocast knows, with their default lower-precision dtype
_DEFAULT_DTYPE = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16, "xpu": _dtype.float16,
                  "mps": _dtype.float16, "hpu": _dtype.bfloat16, "xla": _dtype.bfloat16,
                  "ipu": _dtype.float16, "mtia": _dtype.float16, "maia": _dtype.bfloat16,
                  "privateuseone": _dtype.float16}
# device types PyTorch parses but has no autocast for
_OTHER_DEVICES = ("mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "lazy",
                  "vulkan", "meta")
_ALL_DEVICES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


class _AutocastState(threading.local):
    nesting = 0             # depth of autocast context managers (the cache's lifetime)
    cache_enabled = True
    inside = False          # running a listed op: the ops inside it are not cast

    def __init__(self):
        self.enabled = dict.fromkeys(_DEFAULT_DTYPE, False)
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache = {}     # id(leaf) -> (leaf, its lower-precision cast)


_state = _AutocastState()


def _device(device_type, what="device_type"):
    if not isinstance(device_type, str):
        raise TypeError(f"{what}(): argument 'device_type' must be str, not "
                        f"{type(device_type).__name__}")
    if device_type in _DEFAULT_DTYPE:
        return device_type
    if device_type in _OTHER_DEVICES:
        raise RuntimeError(f"{what}(): autocast has no lower-precision dtype for device type "
                           f"'{device_type}' (unsupported scalarType); autocast supports "
                           f"{', '.join(_DEFAULT_DTYPE)}")
    raise RuntimeError(f"Expected one of {', '.join(_ALL_DEVICES)} device type at start of "
                       f"device string: {device_type}")


def is_autocast_available(device_type):
    """Whether autocast can be used on ``device_type`` (as PyTorch's: "cpu", "cuda", "xpu"...;
    only "cpu" tensors exist in graphgrad, so only CPU autocast casts anything)."""
    if not isinstance(device_type, str):
        raise TypeError("is_autocast_available(): argument 'device_type' must be str, not "
                        f"{type(device_type).__name__}")
    if device_type in _OTHER_DEVICES:
        return False
    return _device(device_type, "is_autocast_available") in _DEFAULT_DTYPE


def is_autocast_enabled(device_type=None):
    """``is_autocast_enabled(device_type)``; without an argument, CUDA's (PyTorch's legacy
    meaning), which is never on in graphgrad."""
    return _state.enabled[_device("cuda" if device_type is None else device_type,
                                  "is_autocast_enabled")]


def set_autocast_enabled(device_type, enabled=None):
    """``set_autocast_enabled(device_type, enabled)``, or ``set_autocast_enabled(enabled)``
    for CUDA (PyTorch's legacy form)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    device_type = _device(device_type, "set_autocast_enabled")
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' must be bool, not "
                        f"{type(enabled).__name__}")
    _state.enabled[device_type] = enabled
    _sync_interposer()


def get_autocast_dtype(device_type):
    return _state.dtype[_device(device_type, "get_autocast_dtype")]


def set_autocast_dtype(device_type, dtype):
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    _state.dtype[_device(device_type, "set_autocast_dtype")] = dtype


def is_autocast_cache_enabled():
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def clear_autocast_cache():
    """Drop this thread's weight-cast cache (autocast does it when its outermost region
    exits)."""
    _state.cache.clear()


def autocast_increment_nesting():
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    _state.nesting -= 1
    return _state.nesting


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return _state.enabled["cpu"]


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return _state.dtype["cpu"]


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return _state.dtype["cuda"]


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


# ---------------------------------------------------------------------------------------
# The interposer

def _sync_interposer():
    """Put the autocast interposer in this thread's chain while CPU autocast is enabled,
    and take it out when it is not (NOTE [autocast])."""
    chain = _tls.interposers
    present = _autocast_interposer in chain
    if _state.enabled["cpu"]:
        if not present:
            _tls.interposers = chain + (_autocast_interposer,)
            _tls.refresh()
    elif present:
        _tls.interposers = tuple(f for f in chain if f is not _autocast_interposer)
        _tls.refresh()


def _cast(v, to, lower):
    if isinstance(v, Tensor):
        d = v.dtype
        if d is to or d not in (_dtype.float32, _dtype.bfloat16, _dtype.float16):
            return v
        if (to is lower and d is _dtype.float32 and _state.cache_enabled and v.requires_grad
                and v.is_leaf and not v._is_view()):
            hit = _state.cache.get(id(v))
            if hit is not None and hit[0] is v:
                return hit[1]
            out = v.to(to)
            _state.cache[id(v)] = (v, out)
            return out
        return v.to(to)
    if isinstance(v, (list, tuple)) and v and any(isinstance(x, Tensor) for x in v):
        return type(v)(_cast(x, to, lower) for x in v)
    return v


def _promoted(args, kwargs, lower):
    """The widest floating dtype among the eligible tensors (PyTorch's ``promote_type``:
    float32 wins over the lower dtype; float64 tensors are ignored)."""
    to = lower

    def visit(v):
        nonlocal to
        if isinstance(v, Tensor):
            d = v.dtype
            if d is _dtype.float32:
                to = _dtype.float32
            elif d in (_dtype.bfloat16, _dtype.float16) and d is not lower \
                    and to is not _dtype.float32:
                raise RuntimeError(
                    f"Unexpected floating ScalarType in at::autocast::prioritize: a {d} tensor "
                    f"in a {lower} autocast region (cast it to {lower} or float32 first)")
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x)

    for v in args:
        visit(v)
    for v in kwargs.values():
        visit(v)
    return to


def _einsum_operands(args, lower):
    """einsum's operands of different floating dtypes, as PyTorch's einsum takes them under
    autocast: all cast to the lower dtype when a pair of them is contracted (bmm, on the
    list), else to the widest one (mul promotes).  The pairs' own casts are einsum2's."""
    if isinstance(args[0], str):
        eq, ops = args[0], args[1:]
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = tuple(ops[0])
    else:
        eq, ops = _sublist_equation(args)
    floats = {o.dtype for o in ops if isinstance(o, Tensor) and o.dtype in _HALF_OR_FLOAT}
    if len(floats) < 2 or not all(isinstance(o, Tensor) for o in ops):
        return args
    labels, out, _ = _einsum_parse(eq, [tuple(o.shape) for o in ops])
    contracts, cl = False, labels[0]
    for k in range(1, len(ops)):
        nl = labels[k]
        later = set("".join(labels[k + 1:])) | set(out)
        keep = "".join(c for c in dict.fromkeys(cl + nl) if c in later)
        contracts = contracts or any(c not in keep for c in set(cl) & set(nl))
        cl = keep
    to = lower if contracts else (_dtype.float32 if _dtype.float32 in floats else lower)
    return (eq,) + tuple(_cast(o, to, lower) for o in ops)


_HALF_OR_FLOAT = (_dtype.float32, _dtype.bfloat16, _dtype.float16)


def _autocast_interposer(op, call, args, kwargs):
    st = _state
    if st.inside or not st.enabled["cpu"]:
        return call(args, kwargs)
    policy = POLICY.get(op.name.partition(".")[0])
    if policy is None:
        return call(args, kwargs)
    lower = st.dtype["cpu"]
    if policy == _EINSUM:
        if op.__class__ is Composite:   # (not the table's one-operand einsum op)
            args = _einsum_operands(args, lower)
        return call(args, kwargs)
    if policy == _EINSUM2:
        i = 1 if args[0] is op else 0   # (the dispatcher's calls pass the op first)
        a, b = args[i], args[i + 1]
        cl, nl, keep = args[i + 2] if len(args) > i + 2 else kwargs["labels"]
        if any(c not in keep for c in set(cl) & set(nl)):
            to = lower
        elif a.dtype is not b.dtype and a.is_floating_point() and b.is_floating_point():
            to = _dtype.promote_types(a.dtype, b.dtype)   # (mul promotes)
        else:
            return call(args, kwargs)
        args = args[:i] + (_cast(a, to, lower), _cast(b, to, lower)) + args[i + 2:]
        return call(args, kwargs)
    if policy != _OPAQUE:
        to = (lower if policy == _LOWER else _dtype.float32 if policy == _FP32
              else _promoted(args, kwargs, lower))
        args = tuple(_cast(a, to, lower) for a in args)
        kwargs = {k: _cast(v, to, lower) for k, v in kwargs.items()}
    st.inside = True
    try:
        return call(args, kwargs)
    finally:
        st.inside = False


# ---------------------------------------------------------------------------------------
# The context manager

def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a context
    manager or decorator in which ops run in PyTorch's per-op autocast dtypes (NOTE
    [autocast]).  On the CPU ``dtype`` defaults to bfloat16 and may be float16; any other
    dtype warns and disables autocast, as PyTorch does.  ``device_type="cuda"`` warns that
    CUDA is not available and disables autocast (PyTorch's behaviour without CUDA).
    State is per thread and restored on exit (also on an exception); the weight-cast cache
    lives until the outermost region exits."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              f"torch.bfloat16, torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        if not isinstance(self.fast_dtype, _dtype.dtype):   # (checked before any change)
            raise TypeError(f"set_autocast_dtype(): argument 'dtype' must be torch.dtype, not "
                            f"{type(self.fast_dtype).__name__} [autocast: pass e.g. "
                            f"dtype=torch.bfloat16]")
        st = _state
        self.prev_cache_enabled = st.cache_enabled
        self.prev = st.enabled[self.device]
        self.prev_fastdtype = st.dtype[self.device]
        st.enabled[self.device] = bool(self._enabled)
        st.dtype[self.device] = self.fast_dtype
        st.nesting += 1
        st.cache_enabled = bool(self._cache_enabled)
        _sync_interposer()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        st = _state
        st.nesting -= 1
        if st.nesting == 0:
            st.cache.clear()
        st.enabled[self.device] = self.prev
        st.dtype[self.device] = self.prev_fastdtype
        st.cache_enabled = self.prev_cache_enabled
        _sync_interposer()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


# ---------------------------------------------------------------------------------------
# custom autograd Functions

def _cast_inputs(value, device_type, dtype):
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type \
            and value.dtype is not _dtype.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or value.__class__.__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_inputs(k, device_type, dtype): _cast_inputs(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_inputs(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom ``Function.forward``: records the autocast state for
    ``custom_bwd``; with ``cast_inputs`` set, inside an enabled region casts the floating
    inputs to that dtype and runs ``forward`` with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_inputs(args, device_type, cast_inputs),
                           **_cast_inputs(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom ``Function.backward``: runs it with the autocast state its
    ``forward`` (decorated with ``custom_fwd``) ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
