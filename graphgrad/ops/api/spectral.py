"""torch.stft / torch.istft (and their Tensor methods): PyTorch's composites of padding,
framing, the window product and the FFT primitives (ops/derivatives/fft.py), so that values,
gradients and the graph are PyTorch's (FftR2CBackward0 over AsStridedBackward0 frames;
istft's overlap-add is unfold_backward, UnfoldBackwardBackward0).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor
from ..dispatch import dispatch
from ..registry import export
from ..derivatives.fft import FFT_C2C, FFT_C2R, FFT_R2C
from ..derivatives.views import UNFOLD_BACKWARD
from .padding import pad as _pad

from .views import as_strided, view_as_real


def _check(cond, msg):
    if not cond:
        raise RuntimeError(msg)


def _frames(x, n_frames, n_fft, hop):
    """(batch, n_frames, n_fft) windows of the rows of ``x``, ``hop`` apart."""
    d = x._data
    s0, s1 = d.strides[0] // d.itemsize, d.strides[1] // d.itemsize
    try:   # (PyTorch's AsStridedBackward0; graphgrad's as_strided takes contiguous inputs)
        return as_strided(x, (d.shape[0], n_frames, n_fft), (s0, hop * s1, s1))
    except NotImplementedError:
        return x.unfold(-1, n_fft, hop)[:, :n_frames]


def _padded_window(window, win_length, n_fft, like):
    """The window centred in n_fft entries (None: a rectangular window of win_length)."""
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    if window is None:
        w = np.zeros(n_fft, like._data.real.dtype)
        w[left:left + win_length] = 1
        return Tensor._wrap(w)
    return _pad(window, (left, n_fft - win_length - left))


@export()
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform: frames of ``n_fft`` samples ``hop_length`` apart
    (centred by ``pad_mode`` padding of n_fft // 2 with ``center``), times ``window``, each
    transformed; (freq, frames) or (batch, freq, frames), complex (``return_complex=True``)
    or as view_as_real."""
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    complex_in = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)
    x = input
    nd = x._data.ndim
    if center:
        _check(nd in (1, 2), f"stft: expected a 1D or 2D tensor, but got {nd}D tensor")
        if x.dtype is _dtype.bool and pad_mode in ("reflect", "replicate"):
            mode = "reflection" if pad_mode == "reflect" else "replication"
            raise NotImplementedError(f'"{mode}_pad1d" not implemented for \'Bool\'')
        p = int(n_fft // 2)
        x = _pad(x.reshape((1,) * (3 - nd) + tuple(x.shape)), (p, p), pad_mode)
        x = x.reshape(tuple(x.shape)[-nd:])
    _check(nd in (1, 2), f"stft: expected a 1D or 2D tensor, but got {nd}D tensor")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"stft: expected a tensor of floating point or complex values, "
                           f"got {_dtype.scalar_type_name(x.dtype)}")
    if x.dtype is _dtype.float16 or x.dtype is _dtype.bfloat16:
        raise RuntimeError(f"the FFT doesn't support tensors of type: "
                           f"{_dtype.scalar_type_name(x.dtype)} (stft: use float32 or float64)")
    if nd == 1:
        x = x.unsqueeze(0)
    length = x._data.shape[1]
    _check(0 < n_fft <= length, f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    _check(hop > 0, f"stft: expected hop_length > 0, but got hop_length={hop}")
    _check(0 < win_length <= n_fft, f"stft: expected 0 < win_length <= n_fft, but got "
                                    f"win_length={win_length}")
    if window is not None:
        _check(window._data.ndim == 1 and window._data.shape[0] == win_length,
               f"stft: expected a 1D window tensor of size equal to win_length={win_length}, "
               f"but got window with size {list(window._data.shape)}")
    w = _padded_window(window, win_length, n_fft, x)
    n_frames = 1 + (length - n_fft) // hop
    frames = _frames(x, n_frames, n_fft, hop)
    if w is not None:
        frames = frames * w
    complex_fft = frames.dtype.is_complex
    onesided = (not complex_fft) if onesided is None else onesided
    norm = 1 if normalized else 0
    if complex_fft:
        _check(not onesided, "Cannot have onesided output if window or input is complex")
        out = dispatch(FFT_C2C, frames, (-1,), norm, True)
    else:
        out = dispatch(FFT_R2C, frames, (-1,), norm, onesided)
    out = out.transpose_(1, 2)
    if nd == 1:
        out = out.squeeze_(0)
    return out if return_complex else view_as_real(out)


@export()
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: each frame transformed back, times the window, overlap-added
    and divided by the summed squared window (RuntimeError where that is ~0)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    x = input
    nd = x._data.ndim
    _check(nd in (2, 3), f"istft: expected a tensor with 2 or 3 dimensions of complex "
                         f"values, but got {nd}D")
    if nd == 2:
        x = x.unsqueeze(0)
    n_freq, n_frames = x._data.shape[1], x._data.shape[2]
    onesided = (n_freq != n_fft) if onesided is None else onesided
    if onesided:
        _check(n_fft // 2 + 1 == n_freq, "istft: expected the frequency dimension (3rd to the "
               "last) of the input tensor to match n_fft / 2 + 1 when onesided=True, but got "
               f"{n_freq}")
    else:
        _check(n_fft == n_freq, "istft: expected the frequency dimension (3rd to the last) of "
               f"the input tensor to match n_fft when onesided=False, but got {n_freq}")
    _check(0 < hop <= win_length, "istft: expected 0 < hop_length <= win_length")
    _check(0 < win_length <= n_fft, "istft: expected 0 < win_length <= n_fft")
    if window is not None:
        _check(window._data.ndim == 1 and window._data.shape[0] == win_length,
               "istft: Invalid window shape. window has to be 1D and length of `win_length`")
    real_dt = np.dtype(x._data.real.dtype)
    w = _padded_window(window, win_length, n_fft, x)
    if w is None:
        w = Tensor._wrap(np.ones(n_fft, real_dt))
    x = x.transpose(1, 2)   # (channel, n_frames, fft_size)
    norm = 1 if normalized else 2
    if return_complex:
        _check(not onesided, "Cannot have onesided output if window or input is complex")
        y = dispatch(FFT_C2C, x, (-1,), norm, False)
    else:
        _check(not (w.dtype.is_complex), "Complex windows are incompatible with "
                                         "return_complex=False")
        if not onesided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        y = dispatch(FFT_C2R, x, (-1,), norm, n_fft)
    y = y * w.reshape((1, 1, n_fft))
    out_len = n_fft + hop * (n_frames - 1)
    y = dispatch(UNFOLD_BACKWARD, y, (y._data.shape[0], out_len), -1, n_fft, hop)
    # the envelope: the squared window overlap-added (differentiable in the window, as
    # PyTorch's)
    w2 = (w * w).reshape((1, 1, n_fft)).expand((1, n_frames, n_fft))
    env = dispatch(UNFOLD_BACKWARD, w2, (1, out_len), -1, n_fft, hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = out_len - n_fft // 2
    else:
        end = out_len
    y = y[:, start:min(end, out_len)]
    env = env[:, start:min(end, out_len)]
    low = np.abs(env._data).min() if env._data.size else 1.0
    if low < 1e-11:
        raise RuntimeError(f"istft(window overlap add min: {low}): the window's overlap-add "
                           "is zero somewhere (choose a window and hop_length that satisfy "
                           "the NOLA condition)")
    y = y / env
    if nd == 2:
        y = y.squeeze(0)
    if end > out_len:
        y = _pad(y, (0, end - out_len))
    return y

