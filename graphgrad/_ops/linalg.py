"""Matrix products: mm, mv, dot, bmm and ``matmul`` composed from them like PyTorch's.

``matmul`` picks the same primitive PyTorch does, so graphs show the same
nodes: dot (1-D @ 1-D), mv (2-D @ 1-D), mm (2-D @ 2-D, also folding a batched
left operand), bmm for batched @ batched.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from . import formulas as F
from .dispatch import dispatch
from .registry import defop, export


def _check_mm(a, b):
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[-1]} and "
            f"{b.shape[0]}x{b.shape[-1] if b.ndim > 1 else ''})".replace("x)", ")"))


def _mm(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm(): expected 2-D tensors, got {a.ndim}-D and {b.ndim}-D")
    _check_mm(a, b)
    return a @ b


def _mv(a, v):
    if a.shape[-1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    return a @ v


def _dot(a, b):
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            "have the same number of elements, but got {} and {} elements respectively".format(
                a.size, b.size))
    return np.dot(a, b)


def _bmm(a, b):
    if a.shape[-1] != b.shape[-2] or a.shape[0] != b.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return np.matmul(a, b)


MM = defop("mm(self, mat2)", _mm, "MmBackward0", promote=True,
           self=lambda grad, mat2: F.matmul(grad, F.mH(mat2)),
           mat2=lambda grad, self: F.matmul(F.mH(self), grad),
           jvp=lambda self_t, mat2_t, self, mat2: F.matmul(self_t, mat2) + F.matmul(self, mat2_t))
BMM = defop("bmm(self, mat2)", _bmm, "BmmBackward0", promote=True,
            self=lambda grad, mat2: F.matmul(grad, F.mH(mat2)),
            mat2=lambda grad, self: F.matmul(F.mH(self), grad),
            jvp=lambda self_t, mat2_t, self, mat2: F.matmul(self_t, mat2)
                + F.matmul(self, mat2_t))
MV = defop("mv(self, vec)", _mv, "MvBackward0", promote=True,
           self=lambda grad, vec: F.unsqueeze_last(grad) * F.conj(vec),
           vec=lambda grad, self: F.matmul(grad, F.conj(self)),
           jvp=lambda self_t, vec_t, self, vec: F.matmul(self_t, vec) + F.matmul(self, vec_t))
DOT = defop("dot(self, tensor)", _dot, "DotBackward0", promote=True,
            self=lambda grad, tensor: F.unsqueeze_last(grad) * F.conj(tensor),
            tensor=lambda grad, self: F.unsqueeze_last(grad) * F.conj(self),
            jvp=lambda self_t, tensor_t, self, tensor: F.dot(self_t, tensor)
                + F.dot(self, tensor_t))


def _req_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument must be Tensor, not {type(x).__name__}")


@export()
def mm(input, mat2):
    _req_tensor("mm", input)
    return dispatch(MM, input, mat2)


@export()
def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (got {input.ndim}-D and {mat2.ndim}-D)")
    return dispatch(BMM, input, mat2)


@export()
def mv(input, vec):
    return dispatch(MV, input, vec)


@export()
def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D "
                           "tensors")
    return dispatch(DOT, input, tensor)


@export()
def matmul(input, other):
    """``input @ other`` with NumPy/PyTorch broadcasting semantics."""
    from .shape import expand, reshape, squeeze, unsqueeze
    _req_tensor("matmul", input)
    _req_tensor("matmul", other)
    a, b = input, other
    na, nb = a._data.ndim, b._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D")
    if na == 1 and nb == 1:
        return dot(a, b)
    if na == 2 and nb == 1:
        return mv(a, b)
    if na == 1 and nb == 2:
        return squeeze(mm(unsqueeze(a, 0), b), 0)
    if na == 2 and nb == 2:
        return mm(a, b)
    if na >= 3 and nb <= 2:
        # fold the batch into the rows of one mm, as PyTorch does
        sa = a._data.shape
        if sa[-1] != b._data.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({int(np.prod(sa[:-1]))}x{sa[-1]} "
                f"and {b._data.shape[0]}x{b._data.shape[-1] if nb == 2 else 1})")
        folded = reshape(a, (-1, sa[-1]))
        if nb == 1:
            return dispatch(_unsafe_view(), mv(folded, b), sa[:-1])
        out = mm(folded, b)
        return dispatch(_unsafe_view(), out, sa[:-1] + (b._data.shape[1],))
    # general batched case: broadcast batch dims, then bmm
    a2 = unsqueeze(a, 0) if na == 1 else a
    b2 = unsqueeze(b, -1) if nb == 1 else b
    sa, sb = a2._data.shape, b2._data.shape
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{sb[0] if len(sb) > 2 else 1}, {sa[-1]}] but got: "
                           f"[{sb[0] if len(sb) > 2 else 1}, {sb[-2]}].")
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    n_b = int(np.prod(batch)) if batch else 1
    ea = reshape(expand(a2, batch + sa[-2:]), (n_b,) + sa[-2:])
    eb = reshape(expand(b2, batch + sb[-2:]), (n_b,) + sb[-2:])
    out = bmm(ea, eb)
    shape = batch + (sa[-2], sb[-1])
    out = dispatch(_unsafe_view(), out, shape)
    if na == 1:
        out = squeeze(out, -2)
    if nb == 1:
        out = squeeze(out, -1)
    return out


def _unsafe_view():
    from .shape import UNSAFE_VIEW
    return UNSAFE_VIEW


OPERATORS = {
    "__matmul__": lambda self, other: matmul(self, other) if isinstance(other, Tensor)
    else NotImplemented,
    "__rmatmul__": lambda self, other: matmul(other, self) if isinstance(other, Tensor)
    else NotImplemented,
}
