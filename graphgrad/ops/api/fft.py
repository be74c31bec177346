"""graphgrad.fft's functions (namespace: graphgrad/fft): PyTorch's composites of its three
primitive transforms (_fft_r2c, _fft_c2r, _fft_c2c: ops/derivatives/fft.py), so that the
graph is PyTorch's: the input promoted (ToCopyBackward0), trimmed (SliceBackward0) or
zero-padded (ConstantPadNdBackward0) to the signal length, then the transform, with
ConjBackward0 where PyTorch conjugates (ifft and ihfft of real input, hfft).

Argument handling follows ATen's SpectralOps: ``n``/``s`` the signal lengths (-1: the
input's), ``dim`` the transformed dims, ``norm`` "backward" (default), "forward" or
"ortho"; integer inputs are promoted to the default dtype, half precision is refused (as
PyTorch's CPU kernels do).
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.creation import _finish
from ..._tensor.tensor import Tensor
from ..dispatch import dispatch
from .copies import roll
from .pointwise import _out
from ..derivatives.fft import FFT_C2C, FFT_C2R, FFT_R2C
from ..derivatives.pointwise import CONJ_PHYSICAL
from ..derivatives.pointwise_unary import CONJ
from ..derivatives.padding import CONSTANT_PAD
from ..derivatives.shape import SLICE

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]


# ---------------------------------------------------------------- arguments
def _norm_mode(norm, forward):
    """PyTorch's fft_norm_mode: 0 none, 1 1/sqrt(n), 2 1/n."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}" (use "backward", "forward" or '
                       f'"ortho")')


def _check_input(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _promote(x, require_complex):
    """PyTorch's promote_tensor_fft: integers to the default dtype, float32/float64 (to their
    complex type when ``require_complex``); half precision is refused on the CPU."""
    dt = x.dtype
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    if dt is not _dtype.float32 and dt is not _dtype.float64:
        raise RuntimeError(f"Unsupported dtype {_dtype.scalar_type_name(dt)} (the FFT "
                           "functions take float32, float64 or complex tensors)")
    if require_complex:
        dt = _dtype.complex64 if dt is _dtype.float32 else _dtype.complex128
    return x if dt is x.dtype else x.to(dt)


def _wrap(dim, nd):
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"fft: dim must be int, not {type(dim).__name__}")
    dim = int(dim)
    if nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if dim < -nd or dim >= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    return dim % nd


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _int_arg(v, what, name):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"fft_{name}(): argument '{what}' must be int, not {type(v).__name__}")
    return int(v)


def _resize(x, dims, sizes):
    """PyTorch's resize_fft_input: each dim in ``dims`` trimmed (slice) or zero-padded
    (one constant_pad_nd for all) to its size in ``sizes``."""
    nd = x._data.ndim
    pad = [0] * (2 * nd)
    must_pad = False
    for d, n in zip(dims, sizes):
        have = x._data.shape[d]
        if have < n:
            must_pad = True
            pad[2 * (nd - 1 - d) + 1] = n - have
        elif have > n:
            x = dispatch(SLICE, x, d - nd, 0, n, 1)
    return dispatch(CONSTANT_PAD, x, tuple(pad), 0) if must_pad else x


def _neg(dims, nd):
    return tuple(d - nd for d in dims)


def _conj(x):
    return dispatch(CONJ, x)


# ---------------------------------------------------------------- one dim
def _c2c(name, x, n, dim, norm, forward):
    nd = x._data.ndim
    d = _wrap(dim, nd)
    size = x._data.shape[d] if n is None else _int_arg(n, "n", name)
    _check_n(size)
    if n is not None:
        x = _resize(x, (d,), (size,))
    return dispatch(FFT_C2C, x, (d - nd,), _norm_mode(norm, forward), forward)


def _r2c(name, x, n, dim, norm, forward, onesided):
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{_dtype.scalar_type_name(x.dtype)}")
    x = _promote(x, False)
    nd = x._data.ndim
    d = _wrap(dim, nd)
    size = x._data.shape[d] if n is None else _int_arg(n, "n", name)
    _check_n(size)
    if n is not None:
        x = _resize(x, (d,), (size,))
    r = dispatch(FFT_R2C, x, (d - nd,), _norm_mode(norm, forward), onesided)
    return r if forward else _conj(r)


def _c2r(name, x, n, dim, norm, forward):
    x = _promote(x, True)
    nd = x._data.ndim
    d = _wrap(dim, nd)
    size = 2 * (x._data.shape[d] - 1) if n is None else _int_arg(n, "n", name)
    _check_n(size)
    if n is not None:
        x = _resize(x, (d,), (size // 2 + 1,))
    mode = _norm_mode(norm, forward)
    if forward:
        x = _conj(x)
    return dispatch(FFT_C2R, x, (d - nd,), mode, size)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """``fft.fft``: the one-dimensional discrete Fourier transform (FftC2CBackward0; of a real
    input FftR2CBackward0 with both halves)."""
    _check_input("fft", input)
    if input.dtype.is_complex:
        r = _c2c("fft", input, n, dim, norm, True)
    else:
        r = _r2c("fft", input, n, dim, norm, True, False)
    return _out(r, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """``fft.ifft``: the inverse of ``fft``."""
    _check_input("ifft", input)
    if input.dtype.is_complex:
        r = _c2c("ifft", input, n, dim, norm, False)
    else:
        r = _r2c("ifft", input, n, dim, norm, False, False)
    return _out(r, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``fft.rfft``: the FFT of a real signal, its n // 2 + 1 non-redundant entries."""
    _check_input("rfft", input)
    return _out(_r2c("rfft", input, n, dim, norm, True, True), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``fft.irfft``: the inverse of ``rfft`` (a real signal of ``n`` entries, by default
    2 (m - 1) for an input of m entries)."""
    _check_input("irfft", input)
    return _out(_c2r("irfft", input, n, dim, norm, False), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``fft.hfft``: the FFT of a Hermitian-symmetric signal given by its first half (a real
    result)."""
    _check_input("hfft", input)
    return _out(_c2r("hfft", input, n, dim, norm, True), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """``fft.ihfft``: the inverse of ``hfft`` (the first half of a real signal's inverse FFT)."""
    _check_input("ihfft", input)
    return _out(_r2c("ihfft", input, n, dim, norm, False, True), out)


# ---------------------------------------------------------------- n dims
def _shape_and_dims(name, x, s, dim):
    """PyTorch's canonicalize_fft_shape_and_dim_args: the transformed dims (non-negative)
    and the signal sizes along them."""
    nd = x._data.ndim
    sizes = x._data.shape
    if dim is not None:
        if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
            dim = (dim,)
        dims = [_wrap(d, nd) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            s = (s,)
        s = [_int_arg(v, "s", name) for v in s]
        if dim is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{nd} dimensions.")
        if dim is None:
            dims = list(range(nd - len(s), nd))
        shape = [sizes[d] if v == -1 else v for d, v in zip(dims, s)]
    elif dim is None:
        dims, shape = list(range(nd)), list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for v in shape:
        _check_n(v)
    return dims, shape


def _at_least_one(name, dims):
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")


def _c2r_shape_and_dims(name, x, s, dim):
    dims, shape = _shape_and_dims(name, x, s, dim)
    _at_least_one(name, dims)
    if s is None or list(s if not isinstance(s, (int, np.integer)) else (s,))[-1] == -1:
        last = 2 * (x._data.shape[dims[-1]] - 1)
    else:
        last = shape[-1]
    _check_n(last)
    shape[-1] = last // 2 + 1
    return dims, shape, last


def _fftn_c2c(name, x, s, dim, norm, forward):
    dims, shape = _shape_and_dims(name, x, s, dim)
    x = _promote(x, True)
    x = _resize(x, dims, shape)
    nd = x._data.ndim
    return dispatch(FFT_C2C, x, _neg(dims, nd), _norm_mode(norm, forward), forward)


def _rfftn(name, x, s, dim, norm):
    if x.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                           f"{_dtype.scalar_type_name(x.dtype)}")
    dims, shape = _shape_and_dims(name, x, s, dim)
    _at_least_one("rfftn", dims)
    x = _resize(_promote(x, False), dims, shape)
    return dispatch(FFT_R2C, x, _neg(dims, x._data.ndim), _norm_mode(norm, True), True)


def _irfftn(name, x, s, dim, norm):
    dims, shape, last = _c2r_shape_and_dims("irfftn", x, s, dim)
    x = _resize(_promote(x, True), dims, shape)
    return dispatch(FFT_C2R, x, _neg(dims, x._data.ndim), _norm_mode(norm, False), last)


def _hfftn(name, x, s, dim, norm):
    dims, shape, last = _c2r_shape_and_dims("hfftn", x, s, dim)
    x = _resize(_promote(x, True), dims, shape)
    nd = x._data.ndim
    mode = _norm_mode(norm, True)
    if len(dims) > 1:
        x = dispatch(FFT_C2C, x, _neg(dims[:-1], nd), mode, True)
    return dispatch(FFT_C2R, _conj(x), _neg(dims[-1:], nd), mode, last)


def _ihfftn(name, x, s, dim, norm):
    if x.dtype.is_complex:
        raise RuntimeError(f"ihfftn expects a real-valued input tensor, but got "
                           f"{_dtype.scalar_type_name(x.dtype)}")
    dims, shape = _shape_and_dims(name, x, s, dim)
    _at_least_one("ihfftn", dims)
    x = _resize(_promote(x, False), dims, shape)
    nd = x._data.ndim
    mode = _norm_mode(norm, False)
    r = dispatch(FFT_R2C, x, _neg(dims[-1:], nd), mode, True)
    if len(dims) == 1:
        return _conj(r)
    r = dispatch(CONJ_PHYSICAL, r)
    return dispatch(FFT_C2C, r, _neg(dims[:-1], nd), mode, False)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """``fft.fftn``: the FFT over ``dim`` (default: every dim, or the last len(s))."""
    _check_input("fftn", input)
    return _out(_fftn_c2c("fftn", input, s, dim, norm, True), out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """``fft.ifftn``: the inverse of ``fftn``."""
    _check_input("ifftn", input)
    return _out(_fftn_c2c("ifftn", input, s, dim, norm, False), out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fft.fft2``: ``fftn`` over the last two dims."""
    _check_input("fft2", input)
    return _out(_fftn_c2c("fft2", input, s, dim, norm, True), out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fft.ifft2``: ``ifftn`` over the last two dims."""
    _check_input("ifft2", input)
    return _out(_fftn_c2c("ifft2", input, s, dim, norm, False), out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``fft.rfftn``: the FFT of a real input over ``dim``, onesided in the last of them."""
    _check_input("rfftn", input)
    return _out(_rfftn("rfftn", input, s, dim, norm), out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fft.rfft2``: ``rfftn`` over the last two dims."""
    _check_input("rfft2", input)
    return _out(_rfftn("rfft2", input, s, dim, norm), out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``fft.irfftn``: the inverse of ``rfftn``."""
    _check_input("irfftn", input)
    return _out(_irfftn("irfftn", input, s, dim, norm), out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fft.irfft2``: ``irfftn`` over the last two dims."""
    _check_input("irfft2", input)
    return _out(_irfftn("irfft2", input, s, dim, norm), out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``fft.hfftn``: the n-dimensional ``hfft`` (the last of ``dim`` Hermitian)."""
    _check_input("hfftn", input)
    return _out(_hfftn("hfftn", input, s, dim, norm), out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fft.hfft2``: ``hfftn`` over the last two dims."""
    _check_input("hfft2", input)
    return _out(_hfftn("hfft2", input, s, dim, norm), out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``fft.ihfftn``: the inverse of ``hfftn``."""
    _check_input("ihfftn", input)
    return _out(_ihfftn("ihfftn", input, s, dim, norm), out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fft.ihfft2``: ``ihfftn`` over the last two dims."""
    _check_input("ihfft2", input)
    return _out(_ihfftn("ihfft2", input, s, dim, norm), out)


# ---------------------------------------------------------------- helpers
def _freq_dtype(dtype):
    dt = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("fftfreq requires a floating point or complex dtype")
    if dt.is_complex:   # (PyTorch's arange, which fftfreq runs in the dtype, has no complex)
        raise NotImplementedError(f'"arange_cpu" not implemented for '
                                  f"'{_dtype.scalar_type_name(dt)}'")
    return dt


def _freqs(k, n, d, dtype, requires_grad, out):
    dt = _freq_dtype(dtype)
    npd = np.dtype(dt.np)
    # PyTorch: arange in the dtype, then mul_ by 1 / (n d) taken in the dtype's precision
    r = k.astype(npd) * npd.type(1.0 / (n * d))
    t = _finish(np.asarray(r, dtype=npd), requires_grad)
    return t if out is None else _out(t, out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
    """``fft.fftfreq``: the sample frequencies of an ``fft`` of ``n`` entries spaced ``d``:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n d)."""
    n = _int_arg(n, "n", "fftfreq")
    k = np.arange(n, dtype=np.int64)
    k[(n + 1) // 2:] -= n
    return _freqs(k, n, d, dtype, requires_grad, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """``fft.rfftfreq``: the sample frequencies of an ``rfft`` of ``n`` entries spaced ``d``:
    [0, 1, ..., n // 2] / (n d)."""
    n = _int_arg(n, "n", "rfftfreq")
    return _freqs(np.arange(n // 2 + 1, dtype=np.int64), n, d, dtype, requires_grad, out)


def _shift(name, input, dim, inverse):
    _check_input(name, input)
    nd = input._data.ndim
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        dims = [_wrap(dim, nd)]
    else:
        dims = [_wrap(d, nd) for d in dim]
    sizes = input._data.shape
    shifts = [(sizes[d] + 1) // 2 if inverse else sizes[d] // 2 for d in dims]
    return roll(input, shifts, dims)


def fftshift(input, dim=None):
    """``fft.fftshift``: the zero frequency moved to the middle (RollBackward0)."""
    return _shift("fftshift", input, dim, False)


def ifftshift(input, dim=None):
    """``fft.ifftshift``: the inverse of ``fftshift``."""
    return _shift("ifftshift", input, dim, True)
