"""Pooling: max_pool2d/3d (gather/scatter by the argmax indices) and avg_pool2d/3d, one
path for 2 and 3 spatial dims (the 1-d pools are the 2-d ones, pool_adaptive.py)."""
from __future__ import annotations

from ...ops.dispatch import dispatch
from ._utils import _tensor_arg, _type_name
from .conv import _ntuple
from ...ops.derivatives.nn_pool import AVG_POOL2D, AVG_POOL3D, MAX_POOL2D, MAX_POOL3D
from ...ops.kernels.nn_pool import _pool_geometry
from ...ops.interpose import interposable

_AXES = {2: ("H", "W"), 3: ("T", "H", "W")}
_WORDS = {2: "two", 3: "three"}
_MAX_POOL = {2: MAX_POOL2D, 3: MAX_POOL3D}
_AVG_POOL = {2: AVG_POOL2D, 3: AVG_POOL3D}


def _labels(prefix, k, vals):
    return " ".join(f"{prefix}{a}: {v}" for a, v in zip(_AXES[k], vals))


def _pool_tuple(fname, k, v, name, omit=False):
    """A k-d pool's int-or-k-tuple argument; 3-d pools take 1 or 3 values, with
    PyTorch's message (the 2-d ones keep _ntuple's)."""
    if k == 3 and isinstance(v, (list, tuple)) and len(v) not in (1, 3):
        either = "either " if fname.startswith("max") else ""
        raise RuntimeError(f"{fname}: {name} must {either}{'be omitted, ' if omit else 'be '}"
                           f"a single int, or a tuple of three ints")
    return _ntuple(v, k, name)


def _pool_args(fname, input, kernel_size, stride, padding, dilation=1, k=2):
    _tensor_arg(fname, input)
    ks = _pool_tuple(fname, k, kernel_size, "kernel_size")
    s = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _pool_tuple(fname, k, stride, "stride", omit=True)
    p = _pool_tuple(fname, k, padding, "padding")
    d = _pool_tuple(fname, k, dilation, "dilation")
    shape = input._data.shape
    nd = len(shape)
    if k == 2:
        if nd not in (3, 4) or input._data.size == 0 and nd != 4:
            raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, "
                               f"but got input of size {list(shape)}")
    else:
        if nd not in (4, 5):
            raise RuntimeError(f"non-empty 4D or 5D (batch mode) tensor expected for input "
                               f"[{fname}: got input of size {list(shape)}; the input is "
                               "(N, C, D, H, W) or (C, D, H, W)]")
        for i in range(nd - 4, nd):
            if shape[i] == 0:
                who = (f"{fname}()" if fname.startswith("avg") else
                       "max_pool3d_with_indices_out_cpu_template()")
                raise RuntimeError(f"{who}: Expected input's non-batch dimensions to have "
                                   f"positive length, but input has a shape of {list(shape)} "
                                   f"and non-batch dimension {i - (nd - 4)} has length zero!")
    if any(v <= 0 for v in ks):
        if k == 3 and stride is None:
            raise RuntimeError("stride should not be zero")
        raise RuntimeError(f"kernel{'_' if k == 2 else ' '}size "
                           f"{'must' if k == 2 else 'should'} be greater than zero, but got "
                           f"{_labels('k', k, ks)}")
    if any(v <= 0 for v in s):
        if k == 3:
            raise RuntimeError("stride should not be zero")
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           f"{_labels('dilation', k, d)}")
    if k == 3 and any(v < 0 for v in p):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(p)}")
    return ks, s, p, d


def _check_pool_out(input, out_sp):
    shape = input._data.shape
    if any(o < 1 for o in out_sp):
        k = len(out_sp)
        c = shape[-k - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, shape[-k - 1:]))}). "
                           f"Calculated output size: ({'x'.join(map(str, (c,) + out_sp))}). "
                           "Output size is too small")


def _max_pool_nd(fname, k, input, kernel_size, stride, padding, dilation, ceil_mode):
    """The k-d max pool's checks and op: (values, indices)."""
    ks, s, p, d = _pool_args(fname, input, kernel_size, stride, padding, dilation, k)
    for pv, kv, dv in zip(p, ks, d):
        if pv > ((kv - 1) * dv + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pv}, kernel_size={kv} and dilation={dv}")
    if any(pv > kv // 2 for pv, kv in zip(p, ks)):   # (PyTorch's kernel: of the kernel size)
        if k == 2:
            got = f"padW = {p[1]}, padH = {p[0]}, kW = {ks[1]}, kH = {ks[0]}"
        else:
            got = (f"kT: {ks[0]} kW: {ks[2]} kH: {ks[1]} padT: {p[0]} padW: {p[2]} "
                   f"padH: {p[1]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got {got} [{fname}: with dilation, the padding may still be at "
                           "most kernel_size // 2]")
    _check_pool_out(input, _pool_geometry(input._data.shape[-k:], ks, s, p, d, ceil_mode)[0])
    if input._data.dtype.kind not in "fiuV":
        raise NotImplementedError(f'"{fname}" not implemented for \'{_type_name(input)}\'')
    return dispatch(_MAX_POOL[k], input, ks, s, p, d, bool(ceil_mode))


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)`` on (N, C, H, W) or (C, H, W): the gradient goes to each window's
    (first) maximum (MaxPool2DWithIndicesBackward0); indices are flat H*W positions."""
    out, idx = _max_pool_nd("max_pool2d", 2, input, kernel_size, stride, padding, dilation,
                            ceil_mode)
    return (out, idx) if return_indices else out


@interposable("max_pool3d")   # (autocast runs it in float32, as PyTorch's CPU list)
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)`` on (N, C, D, H, W) or (C, D, H, W): the gradient goes to each
    window's (first) maximum (MaxPool3DWithIndicesBackward0); indices are flat D*H*W
    positions."""
    out, idx = _max_pool_nd("max_pool3d", 3, input, kernel_size, stride, padding, dilation,
                            ceil_mode)
    return (out, idx) if return_indices else out


def _avg_pool_nd(fname, k, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override):
    ks, s, p, _ = _pool_args(fname, input, kernel_size, stride, padding, 1, k)
    for pv, kv in zip(p, ks):
        if pv > kv // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pv}, kernel_size={kv} and dilation=1")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    shape = input._data.shape
    out_sp = _pool_geometry(shape[-k:], ks, s, p, (1,) * k, ceil_mode)[0]
    if k == 3 and any(o < 1 for o in out_sp):
        raise RuntimeError(f"input image ({_labels('', 3, shape[-3:])}) smaller than kernel "
                           f"size ({_labels('k', 3, ks)})")
    _check_pool_out(input, out_sp)
    if input._data.dtype.kind not in "fV" or k == 3 and input._data.dtype.itemsize < 4:
        if input._data.dtype.kind in "fV":   # (PyTorch's avg_pool3d has no half kernel)
            raise NotImplementedError(f'"avg_pool3d_out_frame" not implemented for '
                                      f"'{_type_name(input)}'")
        raise NotImplementedError(
            f"{fname}: {_type_name(input)} (integer) inputs are not supported by graphgrad "
            "(PyTorch divides in integer arithmetic); convert the input to a floating dtype")
    return dispatch(_AVG_POOL[k], input, ks, s, p, bool(ceil_mode), bool(count_include_pad),
                    divisor_override)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """``avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`` on (N, C, H, W) or (C, H, W)
    (AvgPool2DBackward0)."""
    return _avg_pool_nd("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override)


@interposable("avg_pool3d")   # (autocast: float32)
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """``avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`` on (N, C, D, H, W) or (C, D, H, W)
    (AvgPool3DBackward0)."""
    return _avg_pool_nd("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override)
