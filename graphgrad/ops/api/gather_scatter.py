"""gather, scatter (src or value), scatter_add and take_along_dim: table entries and public
functions.  Index tensors are non-differentiable tensor inputs, broadcast over leading (batch)
dims in the kernels; ``dim`` is stored negative, or None for a 0-d self.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..registry import defop, export
from .indexing import _finish, _neg, _type_name


# ============================================================ gather / scatter
# ``dim`` is negative, or None for a 0-d self (handled as a 1-element 1-d tensor).
def _along_key(idx, dim):
    nd = idx.ndim
    ax = nd + dim
    return tuple(idx if i == ax else
                 np.arange(idx.shape[i]).reshape((-1,) + (1,) * (nd - 1 - i))
                 for i in range(nd))


def _full_index(index, a_ndim, unbatched_ndim, shape):
    lead = shape[:a_ndim - unbatched_ndim]
    return np.broadcast_to(index, lead + index.shape) if lead else index


def _lifted(kernel):
    """Run ``kernel(a, index, *rest, dim)`` on a 0-d self (dim None) as on a 1-element 1-d."""
    def run(a, index, *rest):
        *mid, dim = rest
        if dim is not None:
            return kernel(a, index, *mid, dim)
        a1 = a[..., None]
        idx = np.asarray(index).reshape(-1)
        mid = [m[..., None] if isinstance(m, np.ndarray) else m for m in mid]
        return kernel(a1, idx, *mid, -1)[..., 0]
    return run


def _gather_kernel(a, index, dim):
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    return a[_along_key(idx, dim)]


def _src_part(src, shape):
    src = np.asarray(src)
    if src.ndim == 0:
        return src
    if src.ndim < len(shape):
        src = np.broadcast_to(src, shape[:len(shape) - src.ndim] + src.shape)
    return src[tuple(slice(0, k) for k in shape)]


def _scatter_kernel(a, index, src, dim):
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    out[_along_key(idx, dim)] = _src_part(src, idx.shape)
    return out


def _scatter_value_kernel(a, index, value, dim):
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    out[_along_key(idx, dim)] = value
    return out


def _scatter_add_kernel(a, index, src, dim):
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    np.add.at(out, _along_key(idx, dim), _src_part(src, idx.shape).astype(out.dtype, copy=False))
    return out


def _scatter_reduce_kernel(a, index, src, reduce, dim):
    """``scatter(..., reduce='add' | 'multiply')``: duplicates accumulate."""
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    ufunc = np.add if reduce == "add" else np.multiply
    src = _src_part(src, idx.shape) if isinstance(src, np.ndarray) else src
    ufunc.at(out, _along_key(idx, dim), np.asarray(src).astype(out.dtype, copy=False))
    return out


def _no_scatter_derivative(grad):
    raise RuntimeError("derivative for aten::scatter is not implemented")


def _no_scatter_jvp(*tangents):
    raise NotImplementedError("Trying to use forward AD with aten::scatter that does not "
                              "support it.")


def _gather_backward_kernel(grad, index, sizes, dim):
    if dim is None:
        return _gather_backward_kernel(grad[..., None], np.asarray(index).reshape(-1), (1,),
                                       -1)[..., 0]
    lead = grad.shape[:grad.ndim - index.ndim]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    idx = _full_index(index, grad.ndim, index.ndim, grad.shape)
    np.add.at(z, _along_key(idx, dim), grad)
    return z


def _pad_to(g, sizes):
    """Zero-pad the trailing dims of ``g`` up to ``sizes`` (src larger than index)."""
    gs = F.shape(g)[len(F.shape(g)) - len(sizes):]
    if tuple(gs) == tuple(sizes):
        return g
    pads = []
    for have, want in reversed(list(zip(gs, sizes))):
        pads += [0, want - have]
    return F.constant_pad_nd(g, tuple(pads), 0)


GATHER = defop("gather(self, index, *, dim)", _lifted(_gather_kernel), "GatherBackward0",
               # (self itself is saved, as PyTorch saves it, though only its shape is used:
               # modifying it in place before backward is an error there too)
               self=lambda grad, self, index, dim:
                   F.gather_backward(grad, index, tuple(self.shape), dim),
               jvp=lambda self_t, index, dim: F.gather(self_t, index, dim), batched_jvp=True)
GATHER_BACKWARD = defop("gather_backward(grad, index, *, sizes, dim)", _gather_backward_kernel,
                        "ScatterAddBackward0",
                        grad=lambda grad, index, dim: F.gather(grad, index, dim),
                        jvp=lambda grad_t, index, sizes, dim:
                            F.gather_backward(grad_t, index, sizes, dim), batched_jvp=True)
SCATTER = defop("scatter.src(self, index, src, *, dim)", _lifted(_scatter_kernel),
                "ScatterBackward0",
                self=lambda grad, index, dim: F.scatter_value(grad, index, dim, 0),
                src=lambda grad, index, src_sym_sizes, dim:
                    _pad_to(F.gather(grad, index, dim), src_sym_sizes),
                jvp=lambda self_t, src_t, index, dim: F.scatter_src(self_t, index, src_t, dim),
                batched_jvp=lambda self_t, src_t, self_sym_sizes, src_sym_sizes, index, dim:
                    F.scatter_src(F.match_batch(self_t, len(self_sym_sizes), src_t,
                                                len(src_sym_sizes)), index, src_t, dim))
SCATTER_VALUE = defop("scatter.value(self, index, *, dim, value)",
                      lambda a, index, dim, value: _lifted(_scatter_value_kernel)(
                          a, index, value, dim),
                      "ScatterBackward1",
                      self=lambda grad, index, dim: F.scatter_value(grad, index, dim, 0),
                      jvp=lambda self_t, index, dim: F.scatter_value(self_t, index, dim, 0),
                      batched_jvp=True)
SCATTER_ADD = defop("scatter_add(self, index, src, *, dim)", _lifted(_scatter_add_kernel),
                    "ScatterAddBackward0",
                    self=lambda grad: grad,
                    src=lambda grad, index, src_sym_sizes, dim:
                        _pad_to(F.gather(grad, index, dim), src_sym_sizes),
                    jvp=lambda self_t, src_t, index, dim:
                        F.scatter_add(self_t, index, src_t, dim),
                    batched_jvp=lambda self_t, src_t, self_sym_sizes, src_sym_sizes, index, dim:
                        F.scatter_add(F.match_batch(self_t, len(self_sym_sizes), src_t,
                                                    len(src_sym_sizes)), index, src_t, dim))


# PyTorch has no derivative for scatter with a reduction: its node raises in backward
SCATTER_REDUCE = defop("scatter.reduce(self, index, src, *, dim, reduce)",
                       lambda a, index, src, dim, reduce: _lifted(_scatter_reduce_kernel)(
                           a, index, src, reduce, dim),
                       "NotImplemented", self=_no_scatter_derivative, src=_no_scatter_derivative,
                       jvp=lambda self_t, src_t: _no_scatter_jvp(), batched_jvp=True)
SCATTER_VALUE_REDUCE = defop("scatter.value_reduce(self, index, *, dim, value, reduce)",
                             lambda a, index, dim, value, reduce: _lifted(
                                 _scatter_reduce_kernel)(a, index, value, reduce, dim),
                             "NotImplemented", self=_no_scatter_derivative,
                             jvp=lambda self_t: _no_scatter_jvp(), batched_jvp=True)
for _op in (SCATTER_REDUCE, SCATTER_VALUE_REDUCE):  # (PyTorch's name for such nodes)
    _op.node_cls.name = lambda self: "torch::autograd::NotImplemented"


def _check_index(fn, input, dim, index, other=None, other_name="src"):
    """PyTorch's gather/scatter index checks; returns the wrapped dim."""
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    ix = index._data
    if ix.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index (got {index.dtype})")
    if ix.ndim != nd and not (nd == 0 and ix.ndim <= 1) and ix.size:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as input "
                           f"tensor ({fn}: index has {ix.ndim}, input has {nd})")
    shp = input._data.shape if nd else (1,)
    ixs = ix.shape if ix.ndim else (1,)
    for j in range(len(ixs)):
        if j != d and ixs[j] > shp[j]:
            raise RuntimeError(
                f"Size does not match at dimension {j} expected index {list(ix.shape)} to be no "
                f"larger than self {list(input._data.shape)} apart from dimension {d}")
    if other is not None:
        os_ = other._data.shape if other._data.ndim else (1,)
        if other._data.ndim != ix.ndim and ix.ndim:
            raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                               f"{other_name} tensor")
        for j in range(len(ixs)):
            if ixs[j] > os_[j]:
                raise RuntimeError(
                    f"Size does not match at dimension {j} expected index {list(ix.shape)} to be "
                    f"no larger than {other_name} {list(other._data.shape)}")
    n = shp[d]
    if ix.size:
        bad = ix[(ix < 0) | (ix >= n)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension "
                               f"{d} with size {n}")
    return None if nd == 0 else _neg(d, nd)


@export()
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (GatherBackward0)."""
    d = _check_index("gather", input, dim, index)
    if input._data.ndim and index._data.ndim == 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return _finish(dispatch(GATHER, input, index, d), out)


def _scatter_args(fn, input, dim, index, src, value, reduce):
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is None:
        src = value
    if src is None:
        raise TypeError(f"{fn}() missing the source: pass src=<Tensor> or value=<number>")
    if isinstance(src, Tensor):
        if src._data.dtype != input._data.dtype:
            raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype (got "
                               f"{input.dtype} and {src.dtype})")
        return _check_index(fn, input, dim, index, src), src
    return _check_index(fn, input, dim, index), src


@export()
def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    """A copy of ``input`` with ``src`` (a tensor or a number) written at ``index`` along dim."""
    d, src = _scatter_args("scatter", input, dim, index, src, value, reduce)
    if reduce is not None:  # (no derivative: the node raises in backward, as PyTorch's)
        if isinstance(src, Tensor):
            return _finish(dispatch(SCATTER_REDUCE, input, index, src, d, reduce), out)
        return _finish(dispatch(SCATTER_VALUE_REDUCE, input, index, d, src, reduce), out)
    if isinstance(src, Tensor):
        return _finish(dispatch(SCATTER, input, index, src, d), out)
    return _finish(dispatch(SCATTER_VALUE, input, index, d, src), out)


@export(function=False)
def scatter_(input, dim, index, src=None, *, value=None, reduce=None):
    d, src = _scatter_args("scatter_", input, dim, index, src, value, reduce)
    if reduce is not None:
        if isinstance(src, Tensor):
            return dispatch_inplace(SCATTER_REDUCE, input, index, src, d, reduce)
        return dispatch_inplace(SCATTER_VALUE_REDUCE, input, index, d, src, reduce)
    if isinstance(src, Tensor):
        return dispatch_inplace(SCATTER, input, index, src, d)
    return dispatch_inplace(SCATTER_VALUE, input, index, d, src)


@export()
def scatter_add(input, dim, index, src, *, out=None):
    """A copy of ``input`` with ``src`` added at ``index`` along dim (duplicates accumulate)."""
    d, src = _scatter_args("scatter_add", input, dim, index, src, None, None)
    return _finish(dispatch(SCATTER_ADD, input, index, src, d), out)


@export(function=False)
def scatter_add_(input, dim, index, src):
    d, src = _scatter_args("scatter_add_", input, dim, index, src, None, None)
    return dispatch_inplace(SCATTER_ADD, input, index, src, d)


@export()
def take_along_dim(input, indices, dim=None, *, out=None):
    """``gather`` with the index broadcast against the input (flattened when dim is None)."""
    from .shape import expand, reshape
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_type_name(indices)}")
    if dim is None:
        return _finish(gather(reshape(input, (-1,)), 0, reshape(indices, (-1,))), out)
    nd = input._data.ndim
    if indices._data.ndim != nd:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {nd} dimensions for input, and "
                           f"{indices._data.ndim} dimensions for indices")
    d = _wrap_dim(dim, nd)
    si, sx = list(input._data.shape), list(indices._data.shape)
    si[d] = sx[d] = 1
    try:
        b = list(np.broadcast_shapes(tuple(si), tuple(sx)))
    except ValueError:
        k = next(k for k in range(nd) if si[k] != sx[k] and si[k] != 1 and sx[k] != 1)
        raise RuntimeError(
            f"The size of tensor a ({si[k]}) must match the size of tensor b ({sx[k]}) at "
            f"non-singleton dimension {k} (torch.take_along_dim(): input of shape "
            f"{list(input._data.shape)} and indices of shape {list(indices._data.shape)} must "
            f"broadcast in every dimension but dim={d})") from None
    bi, bx = list(b), list(b)
    bi[d], bx[d] = input._data.shape[d], indices._data.shape[d]
    if tuple(bi) != input._data.shape:
        input = expand(input, tuple(bi))
    if tuple(bx) != indices._data.shape:
        indices = expand(indices, tuple(bx))
    return _finish(gather(input, d, indices), out)
