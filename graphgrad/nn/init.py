"""graphgrad.nn.init: PyTorch's torch.nn.init (weight initialisation schemes).

Every function fills its tensor in place under ``no_grad`` (so it works on leaf
parameters that require grad) and returns it.  The random ones draw from
graphgrad's generators (``generator=`` or the default one): the distributions are
PyTorch's, the numbers are not (graphgrad's generator is NumPy's PCG64, see
docs/differences.md).
"""
from __future__ import annotations

import math
import warnings

import graphgrad as _gg

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
    "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye",
    "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
    "orthogonal", "sparse",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (an ``nn.functional`` name): 1 for linear
    maps and sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for
    leaky_relu (``param`` is the slope, default 0.01), 3/4 for selu."""
    if nonlinearity in _LINEAR_FNS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check_tensor(fn, tensor):
    if not isinstance(tensor, _gg.Tensor):
        raise TypeError(f"nn.init.{fn}(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with samples of U(a, b)."""
    _check_tensor("uniform_", tensor)
    with _gg.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with samples of N(mean, std**2)."""
    _check_tensor("normal_", tensor)
    with _gg.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with samples of N(mean, std**2) truncated to [a, b] (inverse-CDF
    sampling: uniform in the CDF's image of [a, b], then erfinv)."""
    _check_tensor("trunc_normal_", tensor)
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with _gg.no_grad():
        lo, hi = _norm_cdf((a - mean) / std), _norm_cdf((b - mean) / std)
        tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
        return tensor


def constant_(tensor, val):
    """Fill ``tensor`` with ``val``."""
    _check_tensor("constant_", tensor)
    with _gg.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill ``tensor`` with ones."""
    _check_tensor("ones_", tensor)
    with _gg.no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros."""
    _check_tensor("zeros_", tensor)
    with _gg.no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill the 2-D ``tensor`` with the identity matrix (ones on the main diagonal)."""
    _check_tensor("eye_", tensor)
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _gg.no_grad():
        tensor.zero_()
        n = min(tensor.shape)
        if n:
            tensor.diagonal().fill_(1)
    return tensor


def dirac_(tensor, groups=1):
    """Fill the 3-, 4- or 5-D ``tensor`` with the Dirac delta: a convolution with it keeps
    as many input channels as possible (per group) unchanged."""
    _check_tensor("dirac_", tensor)
    nd = tensor.dim()
    if nd not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with _gg.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out))."""
    _check_tensor("xavier_uniform_", tensor)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    with _gg.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    _check_tensor("xavier_normal_", tensor)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    with _gg.no_grad():
        return tensor.normal_(0.0, std, generator=generator)


def _kaiming_std(fn, tensor, a, mode, nonlinearity):
    _check_tensor(fn, tensor)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound), bound = gain * sqrt(3 / fan) (``a`` is leaky_relu's
    negative slope, ``mode`` picks fan_in or fan_out)."""
    std = _kaiming_std("kaiming_uniform_", tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    with _gg.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std**2), std = gain / sqrt(fan)."""
    std = _kaiming_std("kaiming_normal_", tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    with _gg.no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (viewed as rows x (numel / rows)) with a (semi-)orthogonal matrix
    times ``gain``: Q of the QR decomposition of a Gaussian matrix, with the signs of R's
    diagonal folded in so that Q is Haar-distributed."""
    _check_tensor("orthogonal_", tensor)
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with _gg.no_grad():
        flat = _gg.empty((rows, cols), dtype=tensor.dtype).normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.t()
        q, r = _gg.linalg.qr(flat)
        q = q * _gg.diagonal(r, 0).sign()
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill the 2-D ``tensor`` with N(0, std**2) samples, then zero ceil(sparsity * rows)
    randomly chosen entries of each column."""
    _check_tensor("sparse_", tensor)
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with _gg.no_grad():
        tensor.normal_(0, std, generator=generator)
        for c in range(cols):
            zero_rows = _gg.randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_rows, c] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of :func:`{new_name}`."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
