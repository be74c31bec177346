"""``gradient``: the numerical derivative of sampled values along each requested dim, by
second-order central differences inside and first- or second-order one-sided differences at
the ends (``edge_order``), for unit, scalar or coordinate ``spacing`` -- a composite of table
ops, in PyTorch's order (so its graph has PyTorch's node names).
"""
from __future__ import annotations

import numbers

from ..._tensor.tensor import Tensor, _wrap_dim
from ..registry import export
from .copies import cat
from .reductions import _check_tensor
from .stats_composite import _div_s, _mul_s


def _sl(x, d, start, stop=None):
    n = x.shape[d]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return x.narrow(d, start, max(stop - start, 0))


def _dims_of(input, dim):
    nd = input._data.ndim
    if dim is None:
        return list(range(nd))
    if isinstance(dim, (list, tuple)):
        out = [_wrap_dim(int(d), nd) for d in dim]
    else:
        out = [_wrap_dim(int(dim), nd)]
    if len(set(out)) != len(out):
        raise RuntimeError(f"torch.gradient: dim {list(dim)} appears multiple times in the "
                           "list of dims")
    return out


def _spacings(input, spacing, dims, dim_given):
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(dims):
            if dim_given:
                raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a "
                                   f"scalar or it's spacing and dim arguments to have the same "
                                   f"length, but got a spacing argument of length {len(sp)} "
                                   f"and a dim argument of length {len(dims)}.")
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, "
                               f"or a list of length equal to 'self.dim() = "
                               f"{input._data.ndim}', since dim argument was not given, but got "
                               f"a list of length {len(sp)}")
        return sp
    return [spacing] * len(dims)


def _coordinate_gradient(x, coords, d, edge_order):
    if coords._data.ndim != 1 or coords.shape[0] != x.shape[d]:
        raise RuntimeError(f"torch.gradient expected each tensor of spacing to be 1-d with "
                           f"one coordinate per sample of dim {d} (got "
                           f"{list(coords.shape)}, the input has {x.shape[d]})")
    shape = [1] * x._data.ndim
    shape[d] = -1
    dx = coords.diff(1, 0)
    dx1, dx2 = _sl(dx, 0, 0, -1), _sl(dx, 0, 1)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _sl(x, d, 0, -2) + b * _sl(x, d, 1, -1) + c * _sl(x, d, 2)
    if edge_order == 1:
        pre = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / dx[0]
        app = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
        b = (h0 + h1) / (h0 * h1)
        c = -h0 / (h1 * (h0 + h1))
        pre = a * _sl(x, d, 0, 1) + b * _sl(x, d, 1, 2) + c * _sl(x, d, 2, 3)
        hl, hm = dx[-1], dx[-2]
        a = hl / (hm * (hl + hm))
        b = -(hl + hm) / (hl * hm)
        c = (2 * hl + hm) / (hl * (hl + hm))
        app = a * _sl(x, d, -3, -2) + b * _sl(x, d, -2, -1) + c * _sl(x, d, -1)
    return cat([pre, center, app], d)


def _uniform_gradient(x, h, d, edge_order):
    center = _div_s(_sl(x, d, 2) - _sl(x, d, 0, -2), h)
    if edge_order == 1:
        pre = _div_s(_sl(x, d, 1, 2) - _sl(x, d, 0, 1), h)
        app = _div_s(_sl(x, d, -1) - _sl(x, d, -2, -1), h)
    else:
        pre = _div_s(_mul_s(_sl(x, d, 0, 1), -1.5) + _mul_s(_sl(x, d, 1, 2), 2.0)
                     - _mul_s(_sl(x, d, 2, 3), 0.5), h)
        app = _div_s(_mul_s(_sl(x, d, -3, -2), 0.5) - _mul_s(_sl(x, d, -2, -1), 2.0)
                     + _mul_s(_sl(x, d, -1), 1.5), h)
    return cat([pre, _div_s(center, 2), app], d)


@export(method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates of the derivative of ``input`` (samples of a function) along each dim of
    ``dim`` (default all): a tuple with one tensor per dim.  ``spacing``: a number (the
    sample distance), a list of numbers (one per dim) or a list of 1-d coordinate tensors."""
    _check_tensor("gradient", input)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims_of(input, dim)
    sps = _spacings(input, spacing, dims, dim is not None)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               f"edge_order+1 (dim {d} has {input.shape[d]}, edge_order "
                               f"{edge_order})")
    out = []
    for d, h in zip(dims, sps):
        if isinstance(h, Tensor):
            if h._data.ndim == 0:
                out.append(_uniform_gradient(input, h.item(), d, edge_order))
            else:
                out.append(_coordinate_gradient(input, h, d, edge_order))
        elif isinstance(h, numbers.Number) and not isinstance(h, bool):
            out.append(_uniform_gradient(input, h, d, edge_order))
        else:
            raise TypeError(f"gradient(): spacing must be a number, a list of numbers or a list "
                            f"of tensors, not {type(h).__name__}")
    return tuple(out)
