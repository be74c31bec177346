"""Polymorphic helpers for derivative rules: each works on ndarrays and on Tensors.

A rule such as ``lambda grad, self: grad * F.cos(self)`` runs on plain
ndarrays in an ordinary backward (NumPy speed, no graph) and on Tensors when
``create_graph=True`` or in forward mode (recorded, so derivatives of
derivatives work).  Every op in the table is reachable here as ``F.<name>``
(made on first use by the module ``__getattr__``); the helpers below add what rules need beyond
single ops.  Gradients may carry extra *leading* batch dimensions
(``is_grads_batched``), so helpers address dimensions from the end.
"""
from __future__ import annotations

import builtins  # (ops named like builtins, e.g. `complex`, are F.complex: use builtins.<name>)

import numpy as np

from .._tensor.tensor import Tensor
from .dispatch import dispatch
from .registry import OPS as _OP
from .._core.opmath import BFLOAT16, FLOAT16, half_in_float32
from .._core.state import tls
from .._core import dtypes as _dtype

_ndarray = np.ndarray


def _is_t(x):
    return isinstance(x, Tensor)


def make_poly(op):
    """A function running ``op`` on Tensors (recorded) or on ndarrays (kernel only)."""
    kernel = op.kernel
    nt = len(op.tensor_params)

    raw = getattr(kernel, "raw", None)  # opmath.float16_via_float64
    if raw is not None:
        def poly(x):
            if x.__class__ is not _ndarray and isinstance(x, Tensor):
                return dispatch(op, x)
            if x.dtype is FLOAT16:
                return kernel(x)
            return raw(x)
    elif nt == 1 and len(op.params) == 1:
        def poly(x):
            if x.__class__ is not _ndarray and isinstance(x, Tensor):
                return dispatch(op, x)
            return kernel(x)
    elif nt == 1:
        def poly(x, *attrs):
            if x.__class__ is not _ndarray and isinstance(x, Tensor):
                return dispatch(op, x, *attrs)
            return kernel(x, *attrs)
    else:
        def poly(*args):
            for a in args[:nt]:
                if isinstance(a, Tensor):
                    return dispatch(op, *args)
            return kernel(*args)
    poly.__name__ = op.name
    return poly


def __getattr__(name):
    """``F.<op>``: the polymorphic function of a table op (``F.sum_dim_IntList`` for the op
    ``sum.dim_IntList``), made on first use and kept as a module attribute.  Resolved
    through the registry at call time, so no op module has to be imported before this one
    and no install step has to run after them."""
    op = _OP.get(name)
    if op is None:
        for key, candidate in _OP.items():
            if key.replace(".", "_") == name:
                op = candidate
                break
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r} (no helper "
                                 "and no table op of that name)")
    fn = globals()[name] = make_poly(op)
    return fn


# ------------------------------------------------------------------ basics
def conj(x):
    """Complex conjugate; the identity (no copy) on real values."""
    c = x.__class__
    if c is _ndarray:
        return np.conj(x) if x.dtype.kind == "c" else x
    if c is float or c is int:
        return x
    if isinstance(x, Tensor):
        return dispatch(_OP["conj_physical"], x) if x._data.dtype.kind == "c" else x
    if isinstance(x, builtins.complex):
        return x.conjugate()
    if x.__class__ is _ndarray or isinstance(x, np.generic):
        return np.conj(x) if x.dtype.kind == "c" else x
    return x


def real_if(x, like_real):
    """Keep the real part when the input was real (PyTorch's handle_r_to_c)."""
    if not like_real:
        return x
    if isinstance(x, Tensor):
        return dispatch(_OP["real"], x) if x._data.dtype.kind == "c" else x
    return x.real if np.iscomplexobj(x) else x


def shape(x):
    return tuple(x._data.shape) if isinstance(x, Tensor) else np.shape(x)


def ndim(x):
    return x._data.ndim if isinstance(x, Tensor) else np.ndim(x)


def batch_shape(grad, out_ndim):
    """The leading batch dimensions of a gradient whose trailing dims are the output's."""
    s = shape(grad)
    return s[:len(s) - out_ndim]


def lead(x, nd):
    """How many leading batch dims ``x`` has beyond its ``nd`` logical dims."""
    return ndim(x) - nd


def neg_dims(dims, nd):
    """Dims of an ``nd``-dim tensor counted from the end (``None``: all of them)."""
    if dims is None:
        return tuple(range(-nd, 0))
    return tuple(d - nd if d >= 0 else d for d in dims)


def pad_batched(t, nd, to_nd):
    """A batched ``t`` (leading dims + ``nd`` logical dims) with singleton dims inserted after
    the leading ones so that it has ``to_nd`` logical dims (broadcasts right-aligned)."""
    if to_nd <= nd:
        return t
    s = shape(t)
    k = len(s) - nd
    return reshape(t, s[:k] + (1,) * (to_nd - nd) + s[k:])


def match_batch(t, nd, other, other_nd):
    """``t`` (``nd`` logical dims) given the leading batch dims of ``other`` when it has
    none of its own (the unbatched zeros standing in for a missing tangent)."""
    b = batch_shape(other, other_nd)
    if not b or len(shape(t)) > nd:
        return t
    return expand(t, b + shape(t))


def zeros_like(x):
    if isinstance(x, Tensor):
        return Tensor._wrap(np.zeros_like(x._data))
    return np.zeros_like(x)


def reshape_to(grad, sizes, out_ndim):
    """Reshape a (batched) gradient of an ``out_ndim``-d output to ``batch + sizes``."""
    return reshape(grad, batch_shape(grad, out_ndim) + tuple(sizes))


def reshape(x, sizes):
    if isinstance(x, Tensor):
        from .api.shape import reshape as _reshape
        return _reshape(x, tuple(sizes))
    return np.reshape(x, sizes)


def sum_to(grad, sizes, out_ndim=None):
    """Sum a broadcast gradient back to ``sizes`` (keeping leading batch dims).

    ``out_ndim`` is the ndim of the broadcast output (without batch dims); by
    default it is taken as ``len(sizes)`` plus nothing, i.e. no batch dims.
    """
    gs = shape(grad)
    if out_ndim is None:
        out_ndim = len(gs)
    nb = len(gs) - out_ndim
    lead = out_ndim - len(sizes)
    axes = list(range(nb, nb + lead))
    for i, s in enumerate(sizes):
        if s == 1 and gs[nb + lead + i] != 1:
            axes.append(nb + lead + i)
    if not axes:
        return grad
    if isinstance(grad, Tensor):
        r = dispatch(_OP["sum.dim_IntList"], grad, tuple(axes), True, None)
    elif grad.dtype is BFLOAT16 or grad.dtype is FLOAT16:  # in float32, rounded once (PyTorch)
        r = grad.sum(axis=tuple(axes), keepdims=True, dtype=np.float32).astype(grad.dtype)
    elif len(axes) == lead:
        # only leading dims summed away (a bias): the sum already has the shape, and is a
        # fresh array rather than a view of one, so AccumulateGrad takes it without a copy
        if nb == 0 and grad.size > _GEMV_SUM and sizes and grad.flags.c_contiguous and \
                (grad.dtype == np.float32 or grad.dtype == np.float64):
            return _sum_rows_gemv(grad, sizes)
        r = grad.sum(axis=tuple(axes))
        return r if sizes or nb else np.asarray(r)   # (a sum of every dim is a NumPy scalar)
    else:
        r = grad.sum(axis=tuple(axes), keepdims=True)
    return reshape(r, gs[:nb] + tuple(sizes))


# A large C-contiguous float gradient summed over its leading dims (the bias of a linear
# layer on a batch, W8's (1024, 512)) is one BLAS product ones @ (rows, n): ~4x faster
# than NumPy's reduction over the leading axis, which adds the rows one after another (so
# does the product's accumulators: the same accuracy, the last bits rounding differently).
_GEMV_SUM = 16384


def _sum_rows_gemv(grad, sizes):
    n = 1
    for s in sizes:
        n *= s
    g2 = grad.reshape(-1, n)
    return np.matmul(np.ones(g2.shape[0], grad.dtype), g2).reshape(sizes)


def _small(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n <= 256


def expand_reduced(grad, sizes, dims, keepdim):
    """Broadcast the gradient of a reduction over ``dims`` back to ``sizes``."""
    n = len(sizes)
    if dims is None:
        dims = tuple(range(n))
    if not keepdim:
        gs = shape(grad)
        if not gs:  # a full reduction's 0-d gradient expands as it is (as PyTorch's: no
            # ViewBackward0 in a create_graph graph); a small array is filled instead (a
            # third of broadcast_to's cost, and the engine may add into it or keep it)
            if grad.__class__ is _ndarray and _small(sizes):
                return np.full(sizes, grad)
            return expand(grad, tuple(sizes))
        nb = len(gs) - (n - len(set(dims)))
        kept = list(gs[:nb])
        j = nb
        for i in range(n):
            if i in dims:
                kept.append(1)
            else:
                kept.append(gs[j])
                j += 1
        grad = reshape(grad, tuple(kept))
    return expand(grad, batch_shape(grad, n) + tuple(sizes))


def expand(x, sizes):
    if isinstance(x, Tensor):
        from .api.shape import expand as _expand
        return _expand(x, tuple(sizes))
    return np.broadcast_to(x, sizes)


@half_in_float32
def div_count(grad, n):
    """``grad / n`` for an element count ``n`` (a mean's gradient): a float16 or bfloat16
    array is divided in float32 and rounded once, as PyTorch divides (NumPy would first
    round ``n`` to the half type: 257 is 256 in bfloat16)."""
    return grad / n


def numel(sizes, dims=None):
    n = 1
    for i, s in enumerate(sizes):
        if dims is None or i in dims:
            n *= s
    return n


def mT(x):
    """Swap the last two dims (batched-safe transpose)."""
    if isinstance(x, Tensor):
        return dispatch(_OP["transpose"], x, -2, -1)
    return np.swapaxes(x, -1, -2)


def mH(x):
    return conj(mT(x))


def t(x):
    """The transpose of a matrix, through ``t`` on a 2-d Tensor (TBackward0, as PyTorch's
    formulas' ``.t()``); else as ``mT`` (a batched gradient's last two dims)."""
    if isinstance(x, Tensor) and x._data.ndim == 2:
        return dispatch(_OP["t"], x)
    return mT(x)


def tH(x):
    """The conjugate transpose of a matrix: ``t`` then ``conj`` (PyTorch's mm formulas'
    ``mat.t().conj()``)."""
    return conj(t(x))


def matmul(a, b):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if _constant_product(a, b):
            # nothing to record (no grad, no tangent to push): the ndarray path below, which
            # also folds a batch times one matrix into one gemm (the batched JVPs' products,
            # e.g. W6's)
            return Tensor._wrap(np.asarray(matmul(a._data, b._data)))
        from .api.linalg import matmul as _mm
        return _mm(a, b)
    if b.ndim == 2 and a.ndim == 2:
        return _gemm(a, b)  # a fresh array (no view), so AccumulateGrad can take it as is
    if b.ndim == 2 and a.ndim > 2 and a.size:
        # a batch of matrices times one matrix (batched gradients: grad @ W^T): one gemm on
        # the stacked rows instead of NumPy's loop of one small product per batch entry
        lead = a.shape[:-1]
        return _gemm(a.reshape(-1, a.shape[-1]), b).reshape(lead + (b.shape[-1],))
    return np.matmul(a, b)


def _constant_product(a, b):
    """Whether ``a @ b`` of two Tensors would record nothing: neither requires grad, no
    forward-AD level, inference mode or hook is active (``tls.extras_on``), same float dtype."""
    return (a.__class__ is Tensor and b.__class__ is Tensor and not tls.extras_on
            and not a._requires_grad and not b._requires_grad
            and a._data.dtype == b._data.dtype and a._data.dtype.kind in "fc"
            and a._data.ndim and b._data.ndim)


def _gemm(a, b):
    """``a @ b`` for 2-D ndarrays: a fresh array (AccumulateGrad may take it as is).

    A plain ``np.matmul``, so a rule's product is the same BLAS call (and the same
    OpenBLAS threading) as the hand-written NumPy code it competes with.  Splitting
    mid-size products into row blocks below OpenBLAS's threading threshold (one thread
    each) was measured here to cost 1.4-2x on an idle machine (W3's 32x128x128
    products: 36 us one-threaded, 26 us on two threads, 50 us as two row blocks) and
    only helped when another process kept the second core busy.
    """
    return np.matmul(a, b)


_np_multiply = np.multiply


def tanh_vjp(grad, result):
    """``grad * conj(1 - result * result)`` (tanh's VJP, also its JVP).

    On real ndarrays of one shape and dtype (an ordinary backward) the three passes
    write into one fresh array instead of allocating three; same operations, same
    rounding.  float16 and bfloat16 compute in float32 and round once, as PyTorch's
    tanh_backward kernel does."""
    if grad.__class__ is _ndarray and result.__class__ is _ndarray:
        dt = result.dtype
        gt = grad.dtype
        if dt.kind == "f" and (gt is dt or gt == dt) and grad.shape == result.shape:
            if dt is FLOAT16:
                return _tanh_vjp_half(grad, result)
            d = _np_multiply(result, result)
            if d.__class__ is not _ndarray:  # 0-d: NumPy returned a scalar
                d = np.asarray(d)
            np.subtract(1, d, out=d)
            return np.multiply(grad, d, out=d)
        if dt is BFLOAT16 or dt is FLOAT16:  # (bfloat16's kind is "V"; batched gradients)
            return _tanh_vjp_half(grad, result)
    return grad * conj(1 - result * result)


@half_in_float32
def _tanh_vjp_half(grad, result):
    return grad * (1 - result * result)


def where(cond, a, b):
    if isinstance(cond, Tensor) or isinstance(a, Tensor) or isinstance(b, Tensor):
        from .api.comparison import where as _where
        if not isinstance(cond, Tensor):
            cond = Tensor._wrap(np.asarray(cond))
        like = a if isinstance(a, Tensor) else b
        if not isinstance(a, Tensor):
            a = Tensor._wrap(np.asarray(a, dtype=like._data.dtype))
        if not isinstance(b, Tensor):
            b = Tensor._wrap(np.asarray(b, dtype=like._data.dtype))
        return _where(cond, a, b)
    return np.where(cond, a, b)


def unsqueeze_last(x):
    if isinstance(x, Tensor):
        return dispatch(_OP["unsqueeze"], x, x._data.ndim)
    return np.expand_dims(x, -1)


def cast(x, np_dtype):
    if isinstance(x, Tensor):
        return dispatch(_OP["_to_copy"], x, _dtype.from_numpy_dtype(np_dtype))
    return x.astype(np_dtype, copy=False)




# ------------------------------------------------------------------ pointwise family
def is_complex(x):
    """Whether ``x`` (ndarray, Tensor or number) holds complex values."""
    if isinstance(x, Tensor):
        return x._data.dtype.kind == "c"
    if isinstance(x, builtins.complex):
        return True
    return getattr(x, "dtype", None) is not None and x.dtype.kind == "c"


def absent(t):
    """Whether a JVP rule's tangent ``t`` stands in for an input that has none (PyTorch's
    efficient ZeroTensor, which makes a product with it zero even against inf or NaN):
    the Python 0.0 of a number operand or the zeros forward AD marks as such."""
    return t.__class__ is float or getattr(t, "_absent_tangent", False)


def absent_term(*factors):
    """What a JVP term with an absent tangent adds: nothing (no 0 * inf), yet, like
    PyTorch's product with a ZeroTensor, it is recorded: a zero that requires grad when a
    factor does (gradient 0), or None when none does."""
    z = None
    for x in factors:
        if isinstance(x, Tensor) and x._requires_grad:
            t = where(np.ones((), np.bool_), 0.0, x)
            z = t if z is None else z + t
    return z


def plus(r, z):
    """``r + z`` for an ``absent_term`` z (None: r)."""
    return r if z is None else r + z
