"""NumPy kernels of the linalg_products family: addmv, addr, baddbmm, addbmm, linalg_cross.

Functions of ndarrays; the entries that use them are in ops/derivatives/linalg_products.py,
the public functions in ops/api/linalg_products.py.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import no_bool
from ..._core.opmath import BFLOAT16, half_in_float32


def _in_dtype(res, a):
    """NumPy multiplies bfloat16 matrices into float32; PyTorch keeps the dtype."""
    return res if res.dtype == a.dtype else res.astype(a.dtype)


def _expand_self(name, self, shape):
    """``self`` broadcast to the product's ``shape`` (PyTorch's expand error otherwise)."""
    try:
        if np.broadcast_shapes(self.shape, shape) == tuple(shape):
            return
    except ValueError:
        pass
    pad = (1,) * (len(shape) - self.ndim) + tuple(self.shape)
    for i in range(len(shape) - 1, -1, -1):
        if i >= len(pad) - self.ndim and pad[i] != shape[i] and pad[i] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[i]}) must match the existing size "
                f"({pad[i]}) at non-singleton dimension {i}.  Target sizes: {list(shape)}.  "
                f"Tensor sizes: {list(self.shape)} [{name}: make input broadcastable to the "
                "product's shape]")
    raise RuntimeError(f"{name}: input of shape {list(self.shape)} has more dims than the "
                       f"product's shape {list(shape)}")


def _combine(out, self, beta, alpha):
    """``beta * self + alpha * out`` (self ignored when beta == 0, as PyTorch's: a NaN in it
    does not propagate)."""
    if out.dtype == np.bool_:
        r = out & bool(alpha)
        return r | (self & bool(beta)) if beta else r
    if alpha != 1:
        out = out * (alpha if out.dtype.kind != "i" else int(alpha))
    if beta != 0:
        out = out + (self if beta == 1 else self * (beta if out.dtype.kind != "i"
                                                    else int(beta)))
    return out


@half_in_float32
def _addmv_kernel(self, mat, vec, beta, alpha):
    no_bool("addmv_impl_cpu", mat)
    if mat.ndim != 2 or vec.ndim != 1 or self.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    if mat.shape[1] != vec.shape[0] or (self.ndim == 1 and self.shape[0] not in
                                        (1, mat.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({self.shape[0] if self.ndim else 1}), "
                           f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    out = _in_dtype(mat @ vec, mat)
    return _in_dtype(np.asarray(_combine(out, self, beta, alpha)), mat)


def _addr_kernel(self, vec1, vec2, beta, alpha):
    for v, n in ((vec1, "vec1"), (vec2, "vec2")):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {n}, but got {v.ndim}-D")
    shape = (vec1.shape[0], vec2.shape[0])
    _expand_self("addr", self, shape)
    # half types: op by op in the type (PyTorch's kernel rounds after each step)
    out = np.multiply.outer(vec1 * alpha if alpha != 1 and vec1.dtype != np.bool_ else vec1,
                            vec2)
    alpha = 1 if out.dtype != np.bool_ else alpha
    if beta not in (0, 1) and out.dtype != np.bool_:
        self = (self * beta).astype(out.dtype, copy=False)
        beta = 1
    return _in_dtype(np.asarray(np.broadcast_to(_combine(out, self, beta, alpha), shape)),
                     vec1)


def _check_batches(b1, b2, name):
    for b, n in ((b1, "batch1"), (b2, "batch2")):
        if b.ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(b.ndim, 1)}, {max(b.ndim, 1) - 1}], but got 2) [{name}: "
                             f"{n} must be a 3-D tensor (batch, n, m), got shape "
                             f"{list(b.shape)}]")
        if b.ndim > 3:
            raise RuntimeError(f"{name}: {n} must be a 3D tensor, got shape {list(b.shape)}")


@half_in_float32
def _baddbmm_kernel(self, b1, b2, beta, alpha):
    no_bool("baddbmm", b1)
    _check_batches(b1, b2, "baddbmm")
    if b2.shape[:2] != (b1.shape[0], b1.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, "
                           f"{b2.shape[1]}].")
    shape = (b1.shape[0], b1.shape[1], b2.shape[2])
    _expand_self("baddbmm", self, shape)
    out = _in_dtype(np.matmul(b1, b2), b1)
    return _in_dtype(np.asarray(np.broadcast_to(_combine(out, self, beta, alpha), shape)), b1)


def _addbmm_kernel(self, b1, b2, beta, alpha):
    no_bool("addmm_impl_cpu_", b1)
    _check_batches(b1, b2, "addbmm")
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{b1.shape[0]} and {b2.shape[0]}")
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} "
                           f"and {b2.shape[1]}x{b2.shape[2]})")
    shape = (b1.shape[1], b2.shape[2])
    _expand_self("addbmm", self, shape)
    if b1.dtype in (np.float16, BFLOAT16):
        # PyTorch adds one batch's product at a time (an addmm_ each), rounding after each
        r = np.broadcast_to(self, shape).astype(np.float32) * beta if beta else \
            np.zeros(shape, np.float32)
        for i in range(b1.shape[0]):
            r = (r + alpha * (b1[i].astype(np.float32) @ b2[i].astype(np.float32))) \
                .astype(b1.dtype).astype(np.float32)
        return r.astype(b1.dtype)
    out = _in_dtype(np.matmul(b1, b2).sum(0, dtype=b1.dtype if b1.dtype.kind == "i" else None),
                    b1)
    return _in_dtype(np.asarray(np.broadcast_to(_combine(out, self, beta, alpha), shape)), b1)


def _cross_kernel(a, b, dim):
    no_bool("cross", a)
    return _in_dtype(np.ascontiguousarray(np.cross(a, b, axis=dim)), a)
