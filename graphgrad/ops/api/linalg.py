"""Linear algebra: matrix products, einsum, diagonals/triangles, decompositions, norms.

``matmul`` picks the same primitive PyTorch does, so graphs show the same
nodes: dot (1-D @ 1-D), mv (2-D @ 1-D), mm (2-D @ 2-D, also folding a batched
left operand), bmm for batched @ batched.

The decompositions (inv, det, slogdet, solve, cholesky, qr, eigh, svd) are one
table entry each, with PyTorch's node names (``LinalgInvExBackward0`` ...) and
derivative rules written with the table's own ops, so they differentiate again.
All work on batches of matrices (leading dims) and on complex inputs; rules
address dims from the end so gradients may carry extra leading batch dims.

Where graphgrad differs from PyTorch (values and gradients otherwise agree):

- ``einsum`` records one ``EinsumBackward0`` node per operand pair (operands
  are contracted pairwise, left to right); PyTorch decomposes into
  permute/diagonal/sum/bmm/view nodes.  A one-operand einsum returns a copy
  where PyTorch may return a view.
- The gradient of ``det`` at an exactly singular matrix is adj(A)^H (through
  the SVD), the true derivative; PyTorch 2.13 returns zeros there.  Double
  backward of ``det`` at such a point raises NotImplementedError, and the
  backward of ``slogdet`` there (logabsdet = -inf) raises instead of
  returning inf/nan.
- Decomposition nodes save their results as ``_saved_result``/``_saved_result1``...
  (PyTorch: ``_saved_inverse``, ``_saved_L``, ``_saved_Q`` ...) and no LU factors.
- Eigen- and singular vectors follow NumPy's LAPACK sign/phase choice, which
  may differ from PyTorch's; gauge-invariant quantities agree.
- ``LinAlgError`` messages do not name the failing pivot / leading minor, and
  the ``*_ex`` variants raise it too (their ``info`` is always 0) rather than
  returning a non-zero ``info`` with a meaningless result.
"""
from __future__ import annotations

import collections
import string

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..._core.dtypes import scalar_type_name
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..codegen.entries import make_matmul_entry
from ..dispatch import no_bool as _no_bool
from ..._core.opmath import half_in_float32
from ..registry import LINALG, LINEAR, defop, export, export_linalg
from ... import return_types as _rt
from ..._core import dtypes as _dtype
from ..interpose import interposable

_ndarray = np.ndarray
_np_matmul = np.matmul


def _check_mm(a, b):
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[-1]} and "
            f"{b.shape[0]}x{b.shape[-1] if b.ndim > 1 else ''})".replace("x)", ")"))


def _in_dtype(res, a):
    """NumPy multiplies bfloat16 matrices into float32; PyTorch keeps the dtype."""
    return res if res.dtype == a.dtype else res.astype(a.dtype)


def _mm(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm(): expected 2-D tensors, got {a.ndim}-D and {b.ndim}-D")
    _no_bool("addmm_impl_cpu_", a)
    _check_mm(a, b)
    return _in_dtype(a @ b, a)


def _mv(a, v):
    _no_bool("addmv_impl_cpu", a)
    if a.shape[-1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    return _in_dtype(a @ v, a)


def _dot(a, b):
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            "have the same number of elements, but got {} and {} elements respectively".format(
                a.size, b.size))
    _no_bool("dot", a)
    return np.dot(a, b)


def _bmm(a, b):
    if a.shape[-1] != b.shape[-2] or a.shape[0] != b.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _no_bool("bmm", a)
    return _in_dtype(np.matmul(a, b), a)


def _mm_self_vjp(grad, mat2):
    """``grad @ mat2^H``; a real ndarray product goes straight to the gemm (a batched
    ``grad`` broadcasts over its leading dims)."""
    if grad.__class__ is _ndarray and mat2.__class__ is _ndarray and \
            mat2.dtype.kind != "c":
        return _np_matmul(grad, mat2.T)  # (F._gemm without its frame)
    return F.matmul(grad, F.mH(mat2))


def _mm_mat2_vjp(grad, self):
    """``self^H @ grad`` (the transpose is a view: BLAS reads it as is, no copy; a batched
    ``grad`` broadcasts over its leading dims)."""
    if grad.__class__ is _ndarray and self.__class__ is _ndarray and \
            self.dtype.kind != "c":
        return _np_matmul(self.T, grad)
    return F.matmul(F.mH(self), grad)


def _product_jvp(f, a_t, b_t, a, b):
    """f(a_t, b) + f(a, b_t) for a product f; an operand without a tangent adds nothing
    (PyTorch's ZeroTensor: an inf or NaN in the other operand does not make it NaN). Only
    dot's: PyTorch's mm/mv/bmm tangents compute both terms (NaN there)."""
    if F.absent(b_t):
        return F.plus(f(a_t, b), F.absent_term(a))
    if F.absent(a_t):
        return F.plus(f(a, b_t), F.absent_term(b))
    return f(a_t, b) + f(a, b_t)


MM = defop("mm(self, mat2)", _mm, "MmBackward0", promote=True,
           self=_mm_self_vjp, mat2=_mm_mat2_vjp,
           jvp=lambda self_t, mat2_t, self, mat2: F.matmul(self_t, mat2) + F.matmul(self, mat2_t),
           batched_jvp=True)
BMM = defop("bmm(self, mat2)", _bmm, "BmmBackward0", promote=True,
            self=lambda grad, mat2: F.matmul(grad, F.mH(mat2)),
            mat2=lambda grad, self: F.matmul(F.mH(self), grad),
            jvp=lambda self_t, mat2_t, self, mat2: F.matmul(self_t, mat2)
                + F.matmul(self, mat2_t), batched_jvp=True)
MV = defop("mv(self, vec)", _mv, "MvBackward0", promote=True,
           self=lambda grad, vec: F.unsqueeze_last(grad) * F.conj(vec),
           vec=lambda grad, self: F.matmul(grad, F.conj(self)),
           jvp=lambda self_t, vec_t, self, vec: F.matmul(self_t, vec) + F.matmul(self, vec_t),
           batched_jvp=lambda self_t, vec_t, self, vec:
               F.matmul(self_t, vec) + F.matmul(vec_t, F.mT(self)))
DOT = defop("dot(self, tensor)", _dot, "DotBackward0", promote=True,
            self=lambda grad, tensor: F.unsqueeze_last(grad) * F.conj(tensor),
            tensor=lambda grad, self: F.unsqueeze_last(grad) * F.conj(self),
            jvp=lambda self_t, tensor_t, self, tensor: _product_jvp(F.dot, self_t, tensor_t,
                                                                    self, tensor),
            batched_jvp=lambda self_t, tensor_t, self, tensor:
                F.matmul(self_t, tensor) + F.matmul(tensor_t, self))


# in-place ``squeeze_(0)`` of a fresh (1, m) mm result, for 1-D @ 2-D (not a view)
_MM_SQUEEZE = defop("_matmul_squeeze_(self)", lambda a: a[0], "SqueezeBackward4",
                    self=lambda grad: F.unsqueeze(grad, -2), jvp=LINEAR,
                    batched_jvp=lambda self_t: F.select(self_t, -2, 0))


_C_NAMES = {"Float": "float", "Double": "double", "Half": "c10::Half",
            "BFloat16": "c10::BFloat16", "Long": "long int", "Int": "int", "Short": "short int",
            "Char": "signed char", "Byte": "unsigned char", "Bool": "bool",
            "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}


def _check_same_dtype(name, a, b):
    """Matrix products do not promote (PyTorch raises, each op with its own message)."""
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return
    da, db = a._data.dtype, b._data.dtype
    if da == db:
        return
    ta, tb = scalar_type_name(da), scalar_type_name(db)
    if name == "mv":
        msg = f"addmv input tensors must have the same dtype, but got {ta} and {tb}"
    elif name == "dot":
        msg = f"dot : expected both vectors to have same dtype, but found {ta} and {tb}"
    elif name == "bmm":
        msg = f"expected scalar type {ta} but found {tb}"
    else:
        msg = (f"expected m1 and m2 to have the same dtype, but got: {_C_NAMES[ta]} != "
               f"{_C_NAMES[tb]}")
    raise RuntimeError(f"{msg} [{name}: cast one operand with .to(), e.g. "
                       f"b.to({a.dtype}), to multiply them]")


def _req_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument must be Tensor, not {type(x).__name__}")


@export()
@interposable("mm")
def mm(input, mat2):
    _req_tensor("mm", input)
    _check_same_dtype("mm", input, mat2)
    return dispatch(MM, input, mat2)


@export()
@interposable("bmm")
def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (got {input.ndim}-D and {mat2.ndim}-D)")
    _check_same_dtype("bmm", input, mat2)
    return dispatch(BMM, input, mat2)


@export()
def mv(input, vec):
    _check_same_dtype("mv", input, vec)
    return dispatch(MV, input, vec)


@export()
def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D "
                           "tensors")
    _check_same_dtype("dot", input, tensor)
    return dispatch(DOT, input, tensor)


def _matmul_general(input, other):
    """``input @ other`` with NumPy/PyTorch broadcasting semantics."""
    from .shape import expand, reshape, unsqueeze
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
        # PyTorch squeezes the mm result in place: squeeze_(0) -> SqueezeBackward4
        return dispatch(_MM_SQUEEZE, mm(unsqueeze(a, 0), b))
    if na == 2 and nb == 2:
        return mm(a, b)
    if na >= 3 and nb <= 2:
        # fold the batch into the rows of one mm, as PyTorch does
        sa = a._data.shape
        if sa[-1] != b._data.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({int(np.prod(sa[:-1]))}x{sa[-1]} "
                f"and {b._data.shape[0]}x{b._data.shape[-1] if nb == 2 else 1})")
        folded = reshape(a, (int(np.prod(sa[:-1])), sa[-1]))  # (-1 is ambiguous when K is 0)
        if nb == 1:
            return dispatch(_unsafe_view(), mv(folded, b), sa[:-1])
        out = mm(folded, b)
        return dispatch(_unsafe_view(), out, sa[:-1] + (b._data.shape[1],))
    if na <= 2 and nb >= 3 and (a._requires_grad or na == 1 and _rows_fold(b._data)):
        # a 1-D/2-D operand times a batch: PyTorch folds the batch of b^T into the rows of
        # one mv/mm when a requires grad (copying b^T, so that the backward of a sums no
        # expanded copy of a), and for a vector when b^T folds without a copy
        sb = b._data.shape
        folded = reshape(b.mT, (int(np.prod(sb[:-2])) * sb[-1], sb[-2]))
        if na == 1:
            return dispatch(_unsafe_view(), mv(folded, a), sb[:-2] + (sb[-1],))
        out = dispatch(_unsafe_view(), mm(folded, a.t()), sb[:-2] + (sb[-1], a._data.shape[0]))
        return out.mT.contiguous()
    # general batched case: broadcast batch dims, then bmm
    a2 = unsqueeze(a, 0) if na == 1 else a
    b2 = unsqueeze(b, -1) if nb == 1 else b
    sa, sb = a2._data.shape, b2._data.shape
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{sb[0] if len(sb) > 2 else 1}, {sa[-1]}] but got: "
                           f"[{sb[0] if len(sb) > 2 else 1}, {sb[-2]}].")
    try:
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:  # (PyTorch's message and type, not NumPy's ValueError)
        ba, bb = sa[:-2], sb[:-2]
        n = max(len(ba), len(bb))
        ba, bb = (1,) * (n - len(ba)) + ba, (1,) * (n - len(bb)) + bb
        i = next(i for i in range(n) if ba[i] != bb[i] and 1 not in (ba[i], bb[i]))
        raise RuntimeError(f"The size of tensor a ({ba[i]}) must match the size of tensor b "
                           f"({bb[i]}) at non-singleton dimension {i} [matmul: batch dims "
                           f"{list(sa[:-2])} and {list(sb[:-2])} do not broadcast]") from None
    n_b = int(np.prod(batch)) if batch else 1
    ea = reshape(expand(a2, batch + sa[-2:]), (n_b,) + sa[-2:])
    eb = reshape(expand(b2, batch + sb[-2:]), (n_b,) + sb[-2:])
    out = bmm(ea, eb)
    # (the unsqueezed dim of a 1-D operand is dropped by the same view: no squeeze view)
    shape = batch + ((sa[-2],) if na > 1 else ()) + ((sb[-1],) if nb > 1 else ())
    return dispatch(_unsafe_view(), out, shape)


def _rows_fold(d):
    """Whether the batch dims of ``d^T`` (last two dims swapped) merge with its rows
    without a copy (or ``d`` is empty)."""
    if d.size == 0:
        return True
    shape = d.shape[:-2] + (d.shape[-1], d.shape[-2])
    strides = d.strides[:-2] + (d.strides[-1], d.strides[-2])
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _unsafe_view():
    from .shape import UNSAFE_VIEW
    return UNSAFE_VIEW


# 2-D @ 2-D of one dtype (the common case) is mm in one generated frame
matmul = export()(make_matmul_entry(MM, "matmul", ("input", "other"), _matmul_general))
matmul.__doc__ = _matmul_general.__doc__
_matmul_operator = make_matmul_entry(
    MM, "__matmul__", ("self", "other"),
    lambda self, other: _matmul_general(self, other) if isinstance(other, Tensor)
    else NotImplemented)

OPERATORS = {
    "__matmul__": _matmul_operator,
    "__rmatmul__": lambda self, other: matmul(other, self) if isinstance(other, Tensor)
    else NotImplemented,
}


# ====================================================================== helpers
class LinAlgError(RuntimeError):
    """A linear-algebra routine could not complete on its input (torch.linalg.LinAlgError)."""


LinAlgError.__module__ = "graphgrad.linalg"

_SlogdetT = _rt.slogdet
_LinalgSlogdet = _rt.linalg_slogdet
_LinalgQr = _rt.linalg_qr
_LinalgEigh = _rt.linalg_eigh
_LinalgSvd = _rt.linalg_svd
_LinalgInvEx = _rt.linalg_inv_ex
_LinalgCholeskyEx = _rt.linalg_cholesky_ex
_LinalgSolveEx = _rt.linalg_solve_ex


def _np(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _lift(arr, like):
    """A constant ndarray, as a Tensor when the rule runs on Tensors (create_graph / fw AD)."""
    return Tensor._wrap(np.asarray(arr)) if isinstance(like, Tensor) else arr


def _is_complex(x):
    return _np(x).dtype.kind == "c"


def _eye_like(x):
    """The identity of the trailing (n, n) of ``x`` in its real dtype (ndarray or Tensor)."""
    d = _np(x)
    return _lift(np.eye(d.shape[-1], dtype=np.empty(0, d.dtype).real.dtype), x)


def _off_diag_inv(e):
    """``1 / e`` off the diagonal and 0 on it, for ``e`` that is 0 on the diagonal (smooth)."""
    eye = _eye_like(e)
    return (1 - eye) / (e + eye)


def _u2(x):
    """(...,) -> (..., 1, 1): a batch of scalars against a batch of matrices."""
    return F.unsqueeze(F.unsqueeze(x, -1), -1)


def _i_im(z):
    """``1j * imag(z)`` (0 for real z), written with conj so it differentiates."""
    return (z - F.conj(z)) * 0.5


def _diag(x):
    return F.diagonal(x, 0, -2, -1)


def _diagm(v):
    return F.diag_embed(v, 0, -2, -1)


def _mm(a, b):
    return F.matmul(a, b)


def _trace(x):
    """Batched trace of the last two dims."""
    return F.einsum(x, ("ii", ""))




def _check_matrix(name, A, square=True, arg="A", kernel=None, low_ok=False):
    """Checks of a matrix argument; ``kernel``: the LAPACK kernel PyTorch names when it
    refuses half precision (NotImplementedError) instead of the generic RuntimeError;
    ``low_ok``: half precision is computed (e.g. the Frobenius norm)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(A).__name__}")
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    low = d.dtype == np.float16 or d.dtype.name == "bfloat16"
    if d.dtype.kind not in "fc" and not low:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(d.dtype)}")
    if low and not low_ok:
        if kernel is not None:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{scalar_type_name(d.dtype)}' [{name}: convert {arg} "
                                      "with .float() or .double()]")
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got "
                           f"{scalar_type_name(d.dtype)}")
    if square and d.shape[-1] != d.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{d.shape[-2]} by {d.shape[-1]} matrices")


# ====================================================================== products
def _vdot_kernel(a, b):
    _no_bool("dot", a)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.size} and {b.size} elements "
            "respectively")
    return np.asarray(np.vdot(a, b))


VDOT = defop("vdot(self, other)", _vdot_kernel, "VdotBackward0",
             self=lambda grad, other: F.unsqueeze_last(F.conj(grad)) * other,
             other=lambda grad, self: F.unsqueeze_last(grad) * self,
             jvp=lambda self_t, other_t, self, other: F.vdot(self_t, other)
                 + F.vdot(self, other_t),
             batched_jvp=lambda self_t, other_t, self, other:
                 F.matmul(F.conj(self_t), other) + F.matmul(other_t, F.conj(self)))


@export()
def vdot(input, other):
    """``sum(conj(input) * other)`` of two 1-D tensors of the same dtype."""
    _req_tensor("vdot", input)
    _req_tensor("vdot", other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found "
                           f"{scalar_type_name(input._data.dtype)} and "
                           f"{scalar_type_name(other._data.dtype)}")
    return dispatch(VDOT, input, other)


@export()
def outer(input, vec2):
    """Outer product of two 1-D tensors: ``input.reshape(-1, 1) * vec2`` (as PyTorch does)."""
    from .shape import reshape
    _req_tensor("outer", input)
    _req_tensor("outer", vec2)
    if input._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return reshape(input, (-1, 1)) * vec2


ger = export("ger")(outer)


@export()
def kron(input, other):
    """Kronecker product: the inputs viewed with interleaved singleton dims, multiplied."""
    _req_tensor("kron", input)
    _req_tensor("kron", other)
    uv = _unsafe_view()
    sa, sb = input._data.shape, other._data.shape
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a = dispatch(uv, input, tuple(x for s in sa for x in (s, 1)))
    b = dispatch(uv, other, tuple(x for s in sb for x in (1, s)))
    return dispatch(uv, a * b, tuple(p * q for p, q in zip(sa, sb)))


@export(method=False)
def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (permute, reshape, mm, reshape)."""
    from .shape import permute, reshape
    _req_tensor("tensordot", a)
    _req_tensor("tensordot", b)
    if a.dtype is not b.dtype:  # (checked first, as PyTorch's: under autocast mm would cast)
        raise RuntimeError(f"both inputs should have same dtype [tensordot: got {a.dtype} and "
                           f"{b.dtype}; cast one with .to()]")
    if out is not None:
        raise NotImplementedError("tensordot(): out= is not supported by graphgrad; use the "
                                  "returned tensor")
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > na or dims > nb:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be an int or a pair of dim lists")
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        da = [_wrap_dim(d, na) for d in da]
        db = [_wrap_dim(d, nb) for d in db]
    sa, sb = a._data.shape, b._data.shape
    for i, j in zip(da, db):
        if sa[i] != sb[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa[i]} "
                               f"in dim {i} and second has size {sb[j]} in dim {j}")
    fa = [i for i in range(na) if i not in da]
    fb = [j for j in range(nb) if j not in db]
    m = int(np.prod([sa[i] for i in fa], dtype=np.int64))
    k = int(np.prod([sa[i] for i in da], dtype=np.int64))
    n = int(np.prod([sb[j] for j in fb], dtype=np.int64))
    left = reshape(permute(a, fa + da), (m, k))
    right = reshape(permute(b, db + fb), (k, n))
    return reshape(mm(left, right), tuple(sa[i] for i in fa) + tuple(sb[j] for j in fb))


# ====================================================================== einsum
# Three ops carry einsum: ``einsum`` (one operand), ``einsum2`` (two) and
# ``einsum_expand`` (the adjoint of a one-operand einsum: writes a gradient into
# the diagonals / broadcasts of an input's labels).  Labels are explicit letters
# (the public function turns '...' into fresh letters), and every kernel
# prefixes each term with '...', so leading batch dims of gradients broadcast.
def _einsum_eq(*labels):
    *ins, out = labels
    return ",".join("..." + t for t in ins) + "->..." + out


@half_in_float32   # (NumPy's einsum has no bfloat16 loop)
def _einsum1_kernel(a, labels):
    r = np.asarray(np.einsum(_einsum_eq(*labels), a))
    return r.copy() if np.may_share_memory(r, a) else r


@half_in_float32   # (NumPy's einsum has no bfloat16 loop)
def _einsum2_kernel(a, b, labels):
    # (NumPy's optimized contraction may hand back a transposed layout; PyTorch's is row-major)
    return np.asarray(np.einsum(_einsum_eq(*labels), a, b, optimize=True), order="C")


def _einsum_expand_kernel(g, labels, sizes):
    lo, la = labels
    sizes = tuple(sizes)[len(sizes) - len(la):]
    nb = g.ndim - len(lo)
    lead = g.shape[:nb]
    uniq = "".join(dict.fromkeys(la))
    size = {c: sizes[i] for i, c in enumerate(la)}
    z = np.zeros(lead + sizes, g.dtype)
    st = z.strides
    strides = st[:nb] + tuple(sum(st[nb + i] for i, c in enumerate(la) if c == u) for u in uniq)
    view = np.lib.stride_tricks.as_strided(z, lead + tuple(size[u] for u in uniq), strides)
    present = [u for u in uniq if u in lo]
    src = g.transpose(tuple(range(nb)) + tuple(nb + lo.index(u) for u in present))
    view[...] = src.reshape(lead + tuple(size[u] if u in lo else 1 for u in uniq))
    return z


def _einsum2_grad(grad, y, lo, ly, lx, x_sizes):
    """Gradient for operand x of einsum2(x[lx], y[ly] -> lo)."""
    ux = "".join(u for u in dict.fromkeys(lx) if u in lo or u in ly)
    r = F.einsum2(grad, F.conj(y), (lo, ly, ux))
    if ux != lx:
        r = F.einsum_expand(r, (ux, lx), x_sizes)
    return r


EINSUM = defop("einsum(self, *, labels)", _einsum1_kernel, "EinsumBackward0",
               self=lambda grad, self_sym_sizes, labels:
                   F.einsum_expand(grad, (labels[1], labels[0]), self_sym_sizes),
               jvp=LINEAR, batched_jvp=True)
EINSUM_EXPAND = defop("einsum_expand(grad, *, labels, sizes)", _einsum_expand_kernel,
                      "EinsumBackwardBackward0",
                      grad=lambda grad, labels: F.einsum(grad, (labels[1], labels[0])),
                      jvp=LINEAR, batched_jvp=True)
EINSUM2 = defop("einsum2(self, other, *, labels)", _einsum2_kernel, "EinsumBackward0",
                self=lambda grad, other, self_sym_sizes, labels: _einsum2_grad(
                    grad, other, labels[2], labels[1], labels[0], self_sym_sizes),
                other=lambda grad, self, other_sym_sizes, labels: _einsum2_grad(
                    grad, self, labels[2], labels[0], labels[1], other_sym_sizes),
                jvp=lambda self_t, other_t, self, other, labels:
                    F.einsum2(self_t, other, labels) + F.einsum2(self, other_t, labels),
                batched_jvp=True)

# sublist format: 0..25 -> 'A'..'Z', 26..51 -> 'a'..'z' (PyTorch's mapping)
_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _sublist_equation(args):
    args = list(args)
    operands, terms = [], []
    while len(args) >= 2 and isinstance(args[0], Tensor):
        operands.append(args.pop(0))
        terms.append(args.pop(0))
    out = args.pop(0) if args else None
    if args:
        raise TypeError("einsum(): sublist format expects operand, sublist pairs and an optional "
                        "output sublist")

    def conv(sub):
        parts = []
        for v in sub:
            if v is Ellipsis:
                parts.append("...")
            elif isinstance(v, int) and 0 <= v < 52:
                parts.append(_LETTERS[v])
            else:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid "
                                 f"range [0, 52), got {v!r}")
        return "".join(parts)
    eq = ",".join(conv(t) for t in terms)
    if out is not None:
        eq += "->" + conv(out)
    return eq, operands


def _einsum_parse(equation, shapes):
    """Explicit labels per operand, output labels and the size of every label."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise RuntimeError("einsum(): found more than one '->' in the equation")
    lhs, rhs = eq.split("->") if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        which = "more" if len(shapes) > len(terms) else "fewer"
        raise RuntimeError(f"einsum(): {which} operands were provided than specified in the "
                           f"equation ({len(terms)} terms in {equation!r}, {len(shapes)} "
                           "operands)")
    for c in eq:
        if not (c.isascii() and c.isalpha()) and c not in ".,->":
            raise RuntimeError(f"einsum(): invalid subscript given at index {eq.index(c)} in the "
                               f"equation string, subscripts must be in [a-zA-Z]")
    fresh = iter([c for c in _LETTERS if c not in eq])
    n_ell = []
    has_ell = False
    for k, (t, shp) in enumerate(zip(terms, shapes)):
        if "..." in t:
            if t.count("...") > 1 or "." in t.replace("...", "", 1):
                raise RuntimeError(f"einsum(): found more than one ellipsis or a stray '.' for "
                                   f"operand {k}")
            has_ell = True
            n_ell.append(len(shp) - (len(t) - 3))
            if n_ell[-1] < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(t) - 3}) is more "
                    f"than the number of dimensions ({len(shp)}) for operand {k}")
        else:
            if "." in t:
                raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any "
                                   "ellipsis")
            if len(t) != len(shp):
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(t)}) does not "
                    f"match the number of dimensions ({len(shp)}) for operand {k} and no "
                    "ellipsis was given")
            n_ell.append(0)
    max_ell = max(n_ell, default=0)
    ell = "".join(next(fresh) for _ in range(max_ell))
    labels = [t.replace("...", ell[max_ell - ne:]) for t, ne in zip(terms, n_ell)]
    explicit = "".join(t.replace("...", "") for t in terms)
    if rhs is None:
        counts = collections.Counter(explicit)
        out = (ell if has_ell else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        if rhs.count("...") > 1 or "." in rhs.replace("...", "", 1):
            raise RuntimeError("einsum(): found more than one ellipsis or a stray '.' in the "
                               "output")
        for c in rhs.replace("...", ""):
            if c not in explicit:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
            if rhs.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
        out = rhs.replace("...", ell)
    size = {}
    for k, (lab, shp) in enumerate(zip(labels, shapes)):
        own = {}
        for c, n in zip(lab, shp):
            if c in own and own[c] != n:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the "
                                   f"sizes don't match, {own[c]} != {n}")
            own[c] = n
            s = size.get(c)
            if s is None or s == 1:
                size[c] = n
            elif n != 1 and n != s:
                raise RuntimeError(
                    f"einsum(): operands do not broadcast with remapped shapes "
                    f"(original->remapped): subscript {c} has size {s} in one operand and {n} "
                    f"in operand {k} ({equation!r}, shapes {[list(x) for x in shapes]})")
    return labels, out, size


@export(method=False)
@interposable("einsum")
def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``; ellipsis, diagonals, implicit output
    and the sublist format are supported.  Operands are contracted pairwise, left to right."""
    from .shape import expand
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    if not operands:
        raise ValueError("einsum(): must provide at least one operand")
    for i, o in enumerate(operands):
        if not isinstance(o, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(o).__name__}")
    labels, out, size = _einsum_parse(equation, [o._data.shape for o in operands])
    dt = operands[0]._data.dtype
    if any(o._data.dtype != dt for o in operands[1:]):
        operands = _einsum_promote(operands, labels, out)
    if operands[0]._data.dtype == np.bool_:
        operands = _einsum_bool(operands, labels, out)
    ops = []
    for o, lab in zip(operands, labels):
        want = tuple(size[c] for c in lab)
        ops.append(o if want == o._data.shape else expand(o, want))
    if len(ops) == 1:
        return dispatch(EINSUM, ops[0], (labels[0], out))
    cur, cl = ops[0], labels[0]
    for k in range(1, len(ops)):
        nl = labels[k]
        if k == len(ops) - 1:
            keep = out
        else:
            later = set("".join(labels[k + 1:])) | set(out)
            keep = "".join(c for c in dict.fromkeys(cl + nl) if c in later)
        cur = dispatch(EINSUM2, cur, ops[k], (cl, nl, keep))
        cl = keep
    return cur


def _einsum_promote(operands, labels, out):
    """Operands of different dtypes, as PyTorch takes them: promoted to the dtype all of
    them promote to (0-d operands included, unlike result_type) when no label is summed
    between operands (outer and elementwise products, sums within one operand: PyTorch
    multiplies), an error when one is (PyTorch's bmm wants one dtype)."""
    seen = collections.Counter(c for lab in labels for c in set(lab))
    dt = operands[0]._data.dtype
    for c, n in seen.items():
        if n > 1 and c not in out:
            bad = next(o._data.dtype for o in operands if o._data.dtype != dt)
            raise RuntimeError(
                f"einsum(): expected scalar type {scalar_type_name(dt)} but found "
                f"{scalar_type_name(bad)} (subscript {c} is summed between operands of "
                "different dtypes; convert them to one dtype with .to())")
    common = operands[0].dtype
    for o in operands[1:]:
        common = _dtype.promote_types(common, o.dtype)
    return [o if o.dtype == common else o.to(common) for o in operands]


def _einsum_bool(operands, labels, out):
    """Bool operands as PyTorch takes them: a label summed within one operand is a sum,
    which counts (the operands become int64); a contraction between operands is a bmm,
    which bool does not have."""
    counts = {}
    for lab in labels:
        for c in set(lab):
            counts[c] = counts.get(c, 0) + 1
    if any(n == 1 and c not in out for c, n in counts.items()):
        return [o.to(_dtype.int64) for o in operands]
    if any(n > 1 and c not in out for c, n in counts.items()):
        raise NotImplementedError('"bmm" not implemented for \'Bool\'')
    return operands


# ====================================================================== diagonals, triangles
def _diag_view(a, offset, dim1, dim2):
    """A writable view of the (offset) diagonal over dims (dim1, dim2), as the last dim."""
    nd = a.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    n1, n2 = a.shape[d1], a.shape[d2]
    if offset >= 0:
        length, axis, start = max(min(n1, n2 - offset), 0), d2, offset
    else:
        length, axis, start = max(min(n1 + offset, n2), 0), d1, -offset
    if length > 0 and start:
        key = [slice(None)] * nd
        key[axis] = slice(start, None)
        a = a[tuple(key)]
    keep = [i for i in range(nd) if i != d1 and i != d2]
    shape = tuple(a.shape[i] for i in keep) + (length,)
    strides = tuple(a.strides[i] for i in keep) + (a.strides[d1] + a.strides[d2],)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _diagonal_backward_kernel(grad, sizes, offset, dim1, dim2):
    lead = grad.shape[:grad.ndim - (len(sizes) - 1)]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    _diag_view(z, offset, dim1, dim2)[...] = grad
    return z


def _diag_embed_kernel(a, offset, dim1, dim2):
    nd = a.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    n = a.shape[-1] + abs(offset)
    rest = iter(a.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(rest) for i in range(nd))
    z = np.zeros(shape, a.dtype)
    _diag_view(z, offset, dim1, dim2)[...] = a
    return z


def _rdim(dim, nd):
    """``dim`` of an ``nd``-dim tensor counted from the end (batch-safe)."""
    return dim - nd if dim >= 0 else dim


def _diagonal_batched(self_t, self_sym_sizes, offset, dim1, dim2):
    nd = len(self_sym_sizes)
    return F.diagonal(self_t, offset, _rdim(dim1, nd), _rdim(dim2, nd))


def _diagonal_vjp(grad, self_sym_sizes, offset, dim1, dim2):
    return F.diagonal_backward(grad, tuple(self_sym_sizes), offset, dim1, dim2)


DIAGONAL = defop("diagonal(self, *, offset, dim1, dim2)", _diag_view, "DiagonalBackward0",
                 is_view=True, self=_diagonal_vjp, jvp=LINEAR, batched_jvp=_diagonal_batched)
DIAGONAL_COPY = defop("diagonal_copy(self, *, offset, dim1, dim2)",
                      lambda a, offset, dim1, dim2: _diag_view(a, offset, dim1, dim2).copy(),
                      "DiagonalBackward0_copy", self=_diagonal_vjp, jvp=LINEAR,
                      batched_jvp=_diagonal_batched)
DIAGONAL_BACKWARD = defop("diagonal_backward(grad, *, sizes, offset, dim1, dim2)",
                          _diagonal_backward_kernel, "DiagonalBackwardBackward0",
                          grad=lambda grad, offset, dim1, dim2:
                              F.diagonal(grad, offset, dim1, dim2),
                          jvp=LINEAR,
                          batched_jvp=lambda grad_t, sizes, offset, dim1, dim2:
                              F.diagonal_backward(grad_t, sizes, offset, _rdim(dim1, len(sizes)),
                                                  _rdim(dim2, len(sizes))))
DIAG_EMBED = defop("diag_embed(self, *, offset, dim1, dim2)", _diag_embed_kernel,
                   "DiagEmbedBackward0",
                   self=lambda grad, offset, dim1, dim2: F.diagonal(grad, offset, dim1, dim2),
                   jvp=LINEAR,
                   batched_jvp=lambda self_t, self_sym_sizes, offset, dim1, dim2:
                       F.diag_embed(self_t, offset, _rdim(dim1, len(self_sym_sizes) + 1),
                                    _rdim(dim2, len(self_sym_sizes) + 1)))


def _trace_vjp(grad, self_sym_sizes):
    k = min(self_sym_sizes[-2:])
    g = F.expand(F.unsqueeze_last(grad), F.shape(grad) + (k,))
    return F.diagonal_backward(g, tuple(self_sym_sizes), 0, -2, -1)


@half_in_float32
def _trace_kernel(a):
    _no_bool("trace", a)
    # (integers of any width sum to int64, as PyTorch's do; NumPy would give uint64 for uint8)
    return np.asarray(np.trace(a, axis1=-2, axis2=-1,
                               dtype=np.int64 if a.dtype.kind in "iu" else None))


TRACE = defop("trace(self)", _trace_kernel,
              "TraceBackward0", self=_trace_vjp, jvp=LINEAR, batched_jvp=True)
TRIL = defop("tril(self, *, diagonal)", lambda a, diagonal: np.tril(a, diagonal), "TrilBackward0",
             self=lambda grad, diagonal: F.tril(grad, diagonal), jvp=LINEAR, batched_jvp=True)
TRIU = defop("triu(self, *, diagonal)", lambda a, diagonal: np.triu(a, diagonal), "TriuBackward0",
             self=lambda grad, diagonal: F.triu(grad, diagonal), jvp=LINEAR, batched_jvp=True)


def _diag_dims(name, nd, dim1, dim2):
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"{name} dimensions cannot be identical {dim1}, {dim2}")
    return d1 - nd, d2 - nd


@export()
def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the diagonal of ``input`` over (dim1, dim2), appended as the last dim."""
    _req_tensor("diagonal", input)
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"diagonal(): expected a tensor with at least 2 dimensions, but got "
                           f"{nd}")
    d1, d2 = _diag_dims("diagonal", nd, dim1, dim2)
    return dispatch(DIAGONAL, input, int(offset), d1, d2)


@export(method=False)
def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    _req_tensor("diagonal_copy", input)
    nd = input._data.ndim
    d1, d2 = _diag_dims("diagonal", nd, dim1, dim2)
    return dispatch(DIAGONAL_COPY, input, int(offset), d1, d2)


@export_linalg("diagonal")
def _linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return diagonal(A, offset, dim1, dim2)


@export()
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (over dims dim1, dim2 of the result) whose ``offset`` diagonal is ``input``."""
    _req_tensor("diag_embed", input)
    nd = input._data.ndim + 1
    d1, d2 = _diag_dims("diagonal", nd, dim1, dim2)
    return dispatch(DIAG_EMBED, input, int(offset), d1, d2)


@export()
def diag(input, diagonal=0):
    """1-D input: the matrix with ``input`` on its ``diagonal``; 2-D: that diagonal (a copy)."""
    _req_tensor("diag", input)
    nd = input._data.ndim
    if nd == 1:
        return dispatch(DIAG_EMBED, input, int(diagonal), -2, -1)
    if nd == 2:
        return dispatch(DIAGONAL_COPY, input, int(diagonal), -2, -1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


@export()
def trace(input):
    """Sum of the main diagonal of a 2-D tensor."""
    _req_tensor("trace", input)
    _no_bool("trace", input._data)
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                           f"{input._data.ndim}")
    return dispatch(TRACE, input)


def _tri_check(name, input):
    _req_tensor(name, input)
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@export()
def tril(input, diagonal=0):
    """The lower triangle (on and below ``diagonal``) of the last two dims; the rest zero."""
    _tri_check("tril", input)
    return dispatch(TRIL, input, int(diagonal))


@export()
def triu(input, diagonal=0):
    """The upper triangle (on and above ``diagonal``) of the last two dims; the rest zero."""
    _tri_check("triu", input)
    return dispatch(TRIU, input, int(diagonal))


@export(method=True, function=False)
def tril_(self, diagonal=0):
    _tri_check("tril", self)
    return dispatch_inplace(TRIL, self, int(diagonal))


@export(method=True, function=False)
def triu_(self, diagonal=0):
    _tri_check("triu", self)
    return dispatch_inplace(TRIU, self, int(diagonal))


# ====================================================================== decompositions
def _lapack(name, fn, msg):
    """Run a NumPy LAPACK call, turning its LinAlgError into ours (a RuntimeError)."""
    try:
        return fn()
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{name}: {msg}") from None


def _inv_kernel(A):
    return _lapack("linalg.inv", lambda: np.linalg.inv(A),
                   "The input matrix is singular (a diagonal element of its LU factorization is "
                   "zero), so the inversion could not be completed.")


INV = defop("linalg_inv_ex(A)", _inv_kernel, "LinalgInvExBackward0",
            A=lambda grad, result: -_mm(_mm(F.mH(result), grad), F.mH(result)),
            jvp=lambda A_t, result: -_mm(_mm(result, A_t), result), batched_jvp=True)


# ---------------------------------------------------------------- det, slogdet
def _adjugate_np(A):
    """adj(A) = det(A) A^{-1}, valid for singular A too (through the SVD)."""
    U, S, Vh = np.linalg.svd(A)
    n = S.shape[-1]
    P = np.stack([np.prod(np.delete(S, i, axis=-1), axis=-1) for i in range(n)], -1)
    c = np.linalg.det(U) * np.linalg.det(Vh)
    return c[..., None, None] * ((np.conj(np.swapaxes(Vh, -1, -2)) * P[..., None, :])
                                 @ np.conj(np.swapaxes(U, -1, -2)))


def _singular(result):
    return not np.all(_np(result) != 0)


def _det_vjp(grad, A, result):
    if _singular(result):
        # the gradient of det is adj(A)^H: finite at singular matrices, where A^{-1} is not
        if isinstance(A, Tensor):
            raise NotImplementedError(
                "linalg.det: double backward (create_graph=True) at an exactly singular matrix "
                "is not implemented; perturb the matrix or differentiate once")
        return _u2(grad) * F.mH(_adjugate_np(A))
    return _u2(grad * F.conj(result)) * F.mH(F.linalg_inv_ex(A))


def _det_jvp(A_t, A, result):
    if _singular(result):
        if A._requires_grad:
            raise NotImplementedError("linalg.det: forward-over-reverse AD at an exactly singular "
                                      "matrix is not implemented")
        return _trace(_mm(_lift(_adjugate_np(A._data), A), A_t))
    return result * _trace(F.linalg_solve_ex(A, A_t, True, False))


DET = defop("linalg_det(A)", lambda A: np.asarray(np.linalg.det(A)), "LinalgDetBackward0",
            A=_det_vjp, jvp=_det_jvp, batched_jvp=True)


def _slogdet_kernel(A):
    sign, logabsdet = np.linalg.slogdet(A)
    return np.asarray(sign), np.asarray(logabsdet)


def _slogdet_vjp(grads, A, result):
    # d logabsdet = Re t, d sign = sign * i Im t, with t = tr(A^{-1} dA)
    g_sign, g_log = grads
    if _singular(result):
        raise RuntimeError("linalg.slogdet: the gradient at a singular matrix (logabsdet = -inf) "
                           "is infinite; regularize the matrix (e.g. add eps * I) first")
    w = g_log
    if _is_complex(A):
        w = g_log - 1j * F.real(F.conj(g_sign) * result * -1j)
    return _u2(w) * F.mH(F.linalg_inv_ex(A))


def _slogdet_jvp(A_t, A, result):
    t = _trace(F.linalg_solve_ex(A, A_t, True, False))
    sign_t = result * _i_im(t) if _is_complex(A) else F.zeros_like(result)
    return sign_t, F.real(t)


SLOGDET = defop("linalg_slogdet(A)", _slogdet_kernel, "LinalgSlogdetBackward0", n_outputs=2,
                A=_slogdet_vjp, jvp=_slogdet_jvp, batched_jvp=True)


# ---------------------------------------------------------------- solve
def _solve_kernel(A, B, left, vector):
    def run():
        a = A if left else np.swapaxes(A, -1, -2)
        if vector:
            return np.linalg.solve(a, B[..., None])[..., 0]
        if left:
            return np.linalg.solve(a, B)
        return np.asarray(np.swapaxes(np.linalg.solve(a, np.swapaxes(B, -1, -2)), -1, -2),
                          order="C")
    return _lapack("linalg.solve", run, "The solver failed because the input matrix is singular.")


def _solve_vjp_B(grad, A, left, vector):
    return F.linalg_solve_ex(F.mH(A), grad, left, vector)


def _solve_vjp_A(grad, A, result, left, vector):
    gB = _solve_vjp_B(grad, A, left, vector)
    X = F.conj(result)
    if vector:
        return -(F.unsqueeze(gB, -1) * F.unsqueeze(X, -2) if left
                 else F.unsqueeze(X, -1) * F.unsqueeze(gB, -2))
    return -(_mm(gB, F.mT(X)) if left else _mm(F.mT(X), gB))


def _solve_jvp(A_t, B_t, A, result, left, vector):
    if vector:
        AX = F.einsum2(A_t, result, ("ij", "j", "i") if left else ("ji", "j", "i"))
    else:
        AX = _mm(A_t, result) if left else _mm(result, A_t)
    return F.linalg_solve_ex(A, B_t - AX, left, vector)


def _solve_jvp_batched(A_t, B_t, A, B, result, left, vector):
    # A and B broadcast over their batch dims: pad the tangents (their leading dims are the
    # tangents' batch) to the result's batch rank first
    nb = F.ndim(result) - (1 if vector else 2)
    A_t = F.pad_batched(A_t, F.ndim(A), nb + 2)
    B_t = F.pad_batched(B_t, F.ndim(B), F.ndim(result))
    return _solve_jvp(A_t, B_t, A, result, left, vector)


SOLVE = defop("linalg_solve_ex(A, B, *, left, vector)", _solve_kernel, "LinalgSolveExBackward0",
              A=_solve_vjp_A, B=_solve_vjp_B, jvp=_solve_jvp, batched_jvp=_solve_jvp_batched)


# ---------------------------------------------------------------- cholesky
def _cholesky_kernel(A, upper):
    L = _lapack("linalg.cholesky", lambda: np.linalg.cholesky(A),
                "The factorization could not be completed because the input is not "
                "positive-definite.")
    return np.conj(np.swapaxes(L, -1, -2)) if upper else L


def _phi(X):
    """The lower triangle of X with its diagonal halved."""
    return F.tril(X, -1) + 0.5 * _diagm(_diag(X))


def _cholesky_vjp(grad, result, upper):
    # A = L L^H, L^{-1} dA L^{-H} = phi(...) + phi(...)^H: gA = L^{-H} P L^{-1} with
    # T = tril(L^H gL), P = (T + tril(T, -1)^H) / 2 (PyTorch's representative of the gradient
    # on Hermitian perturbations)
    L, gL = (F.mH(result), F.mH(grad)) if upper else (result, grad)
    Linv = F.linalg_inv_ex(L)
    T = F.tril(_mm(F.mH(L), gL), 0)
    P = 0.5 * (T + F.mH(F.tril(T, -1)))
    return _mm(_mm(F.mH(Linv), P), Linv)


def _cholesky_jvp(A_t, result, upper):
    L = F.mH(result) if upper else result
    Linv = F.linalg_inv_ex(L)
    L_t = _mm(L, _phi(_mm(_mm(Linv, A_t), F.mH(Linv))))
    return F.mH(L_t) if upper else L_t


CHOLESKY = defop("linalg_cholesky_ex(A, *, upper)", _cholesky_kernel,
                 "LinalgCholeskyExBackward0", A=_cholesky_vjp, jvp=_cholesky_jvp, batched_jvp=True)


# ---------------------------------------------------------------- qr
def _qr_kernel(A, mode):
    if mode == "r":
        return np.empty((0,), A.dtype), np.linalg.qr(A, mode="r")
    Q, R = np.linalg.qr(A, mode=mode)
    return Q, R


def _qr_check_diff(Q, R, mode):
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr.")
    m, n = F.shape(Q)[-2], F.shape(R)[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    return m, n


def _copyltu(M):
    """Hermitian matrix from the strict lower triangle of M and the real part of its diagonal."""
    low = F.tril(M, -1)
    D = _diagm(_diag(M))
    return low + F.mH(low) + 0.5 * (D + F.conj(D))


def _qr_vjp_tall(gQ, gR, Q, R):
    # m >= n: gA = (gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}
    N = _copyltu(_mm(R, F.mH(gR)) - _mm(F.mH(gQ), Q))
    return F.linalg_solve_ex(F.mH(R), gQ + _mm(Q, N), False, False)


def _qr_vjp(grads, result, result1, mode):
    Q, R = result, result1
    gQ, gR = grads
    m, n = _qr_check_diff(Q, R, mode)
    if m >= n:
        return _qr_vjp_tall(gQ, gR, Q, R)
    # wide: A = [X | Y] with X = Q R1 square and Y = Q R2
    sizes = F.shape(R)[:-2] + (m, n)
    R1, R2 = F.slice(R, -1, 0, m, 1), F.slice(R, -1, m, n, 1)
    gR1, gR2 = F.slice(gR, -1, 0, m, 1), F.slice(gR, -1, m, n, 1)
    gX = _qr_vjp_tall(gQ + _mm(_mm(Q, R2), F.mH(gR2)), gR1, Q, R1)
    gY = _mm(Q, gR2)
    return F.slice_backward(gX, sizes, -1, 0, m, 1) + F.slice_backward(gY, sizes, -1, m, n, 1)


def _qr_jvp_tall(A_t, Q, R):
    AR = F.linalg_solve_ex(R, A_t, False, False)           # A_t R^{-1}
    X = _mm(F.mH(Q), AR)
    low = F.tril(X, -1)
    D = _diagm(_diag(X))
    XC = X - (low - F.mH(low) + 0.5 * (D - F.conj(D)))     # X - Q^H dQ
    return AR - _mm(Q, XC), _mm(XC, R)


def _qr_jvp(A_t, result, result1, mode):
    Q, R = result, result1
    m, n = _qr_check_diff(Q, R, mode)
    if m >= n:
        return _qr_jvp_tall(A_t, Q, R)
    sizes = F.shape(R)
    R1, R2 = F.slice(R, -1, 0, m, 1), F.slice(R, -1, m, n, 1)
    Q_t, R1_t = _qr_jvp_tall(F.slice(A_t, -1, 0, m, 1), Q, R1)
    R2_t = _mm(F.mH(Q_t), _mm(Q, R2)) + _mm(F.mH(Q), F.slice(A_t, -1, m, n, 1))
    return Q_t, (F.slice_backward(R1_t, sizes, -1, 0, m, 1)
                 + F.slice_backward(R2_t, sizes, -1, m, n, 1))


QR = defop("linalg_qr(A, *, mode)", _qr_kernel, "LinalgQrBackward0", n_outputs=2,
           A=_qr_vjp, jvp=_qr_jvp, batched_jvp=True)


# ---------------------------------------------------------------- eigh
def _eigh_kernel(A, UPLO):
    w, V = _lapack("linalg.eigh", lambda: np.linalg.eigh(A, UPLO=UPLO),
                   "The algorithm failed to converge because the input matrix is "
                   "ill-conditioned or has too many repeated eigenvalues.")
    return w, V


def _eigh_vjp(grads, result, result1):
    # gA = V (diag(gL) + (V^H gV) / (L_j - L_i)) V^H  (distinct eigenvalues)
    gL, gV = grads
    L, V = result, result1
    Fm = _off_diag_inv(F.unsqueeze(L, -2) - F.unsqueeze(L, -1))
    inner = _diagm(gL) + Fm * _mm(F.mH(V), gV)
    return _mm(_mm(V, inner), F.mH(V))


def _eigh_jvp(A_t, result, result1):
    L, V = result, result1
    K = _mm(_mm(F.mH(V), A_t), V)
    Fm = _off_diag_inv(F.unsqueeze(L, -2) - F.unsqueeze(L, -1))
    return F.real(_diag(K)), _mm(V, Fm * K)


EIGH = defop("linalg_eigh(A, *, UPLO)", _eigh_kernel, "LinalgEighBackward0", n_outputs=2,
             A=_eigh_vjp, jvp=_eigh_jvp, batched_jvp=True)


# ---------------------------------------------------------------- svd
def _svd_kernel(A, full_matrices):
    U, S, Vh = _lapack("linalg.svd", lambda: np.linalg.svd(A, full_matrices=full_matrices),
                       "The algorithm failed to converge because the input matrix is "
                       "ill-conditioned or has too many repeated singular values.")
    return U, S, Vh


def _svd_vjp(grads, result, result1, result2, full_matrices):
    gU, gS, gVh = grads
    U, S, Vh = result, result1, result2
    m, n = F.shape(U)[-2], F.shape(Vh)[-1]
    k = min(m, n)
    if full_matrices and m != n:
        # only the first k columns of U / rows of Vh are determined by A (as PyTorch does)
        U, gU = F.slice(U, -1, 0, k, 1), F.slice(gU, -1, 0, k, 1)
        Vh, gVh = F.slice(Vh, -2, 0, k, 1), F.slice(gVh, -2, 0, k, 1)
    V, gV = F.mH(Vh), F.mH(gVh)
    X = _mm(F.mH(U), gU)
    Y = _mm(Vh, gV)
    S2 = S * S
    Fm = _off_diag_inv(F.unsqueeze(S2, -2) - F.unsqueeze(S2, -1))   # 1 / (s_j^2 - s_i^2)
    Sr, Sc = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
    inner = Fm * (X - F.mH(X)) * Sr + Sc * (Fm * (Y - F.mH(Y))) + _diagm(gS)
    if _is_complex(U):
        inner = inner + _diagm(_i_im(_diag(X)) / S)
    gA = _mm(_mm(U, inner), Vh)
    if m > k:
        gA = gA + _mm((gU - _mm(U, X)) / Sr, Vh)
    if n > k:
        gA = gA + _mm(U / Sr, F.mH(gV - _mm(V, Y)))
    return gA


def _svd_jvp(A_t, result, result1, result2, full_matrices):
    U, S, Vh = result, result1, result2
    m, n = F.shape(U)[-2], F.shape(Vh)[-1]
    k = min(m, n)
    full = full_matrices and m != n
    if full:
        # as PyTorch: tangents of the first k vectors; the extra (non-unique) ones get zero,
        # the adjoint of the VJP ignoring their cotangents
        U_sizes, Vh_sizes = F.shape(U), F.shape(Vh)
        U, Vh = F.slice(U, -1, 0, k, 1), F.slice(Vh, -2, 0, k, 1)
    V = F.mH(Vh)
    dP = _mm(_mm(F.mH(U), A_t), V)
    Fm = _off_diag_inv(F.unsqueeze(S * S, -2) - F.unsqueeze(S * S, -1))
    Sr, Sc = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
    dPS, SdP = dP * Sr, Sc * dP
    OU = Fm * (dPS + F.mH(dPS))
    OV = Fm * (SdP + F.mH(SdP))
    if _is_complex(U):
        OU = OU + _diagm(_i_im(_diag(dP)) / S)
    dU, dV = _mm(U, OU), _mm(V, OV)
    if m > k:
        dU = dU + (_mm(A_t, V) - _mm(U, dP)) / Sr
    if n > k:
        dV = dV + (_mm(F.mH(A_t), U) - _mm(V, F.mH(dP))) / Sr
    dVh = F.mH(dV)
    if full:
        dU = F.slice_backward(dU, U_sizes, -1, 0, k, 1)
        dVh = F.slice_backward(dVh, Vh_sizes, -2, 0, k, 1)
    return dU, F.real(_diag(dP)), dVh


SVD = defop("linalg_svd(A, *, full_matrices)", _svd_kernel, "LinalgSvdBackward0", n_outputs=3,
            A=_svd_vjp, jvp=_svd_jvp, batched_jvp=True)


# ---------------------------------------------------------------- public functions
@export_linalg("inv")
def inv(A, *, out=None):
    """The inverse of a (batch of) square matrices."""
    _no_out("linalg.inv", out)
    _check_matrix("linalg.inv", A)
    return dispatch(INV, A)


@export()
def inverse(input):
    _check_matrix("inverse", input)
    return dispatch(INV, input)


@export_linalg("inv_ex")
def inv_ex(A, *, check_errors=False, out=None):
    _no_out("linalg.inv_ex", out)
    inverse_ = inv(A)
    return _LinalgInvEx(inverse_, Tensor._wrap(np.zeros(A._data.shape[:-2], np.int32)))


@export_linalg("det")
def det(A, *, out=None):
    """The determinant of a (batch of) square matrices."""
    _no_out("linalg.det", out)
    _check_matrix("linalg.det", A, kernel="lu_cpu")
    return dispatch(DET, A)


@export("det")
def _det_top(input):
    _check_matrix("det", input, kernel="lu_cpu")
    return dispatch(DET, input)


@export_linalg("slogdet")
def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``."""
    _no_out("linalg.slogdet", out)
    _check_matrix("linalg.slogdet", A)
    return _LinalgSlogdet(*dispatch(SLOGDET, A))


@export("slogdet")
def _slogdet_top(input):
    _check_matrix("slogdet", input)
    return _SlogdetT(*dispatch(SLOGDET, input))


@export()
def logdet(input):
    """``log(det(input))``: NaN where the determinant is negative (real input)."""
    from .comparison import where
    _check_matrix("logdet", input)
    sign, logabsdet = dispatch(SLOGDET, input)
    if input._data.dtype.kind == "c":
        from .pointwise import log
        return log(sign) + logabsdet
    nan = Tensor._wrap(np.asarray(np.nan, logabsdet._data.dtype))
    return where(sign == -1, nan, logabsdet)


def _solve_vector_case(A, B):
    a, b = A._data.shape, B._data.shape
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


@export_linalg("solve")
@interposable("linalg_solve")
def solve(A, B, *, left=True, out=None):
    """The solution X of ``A X = B`` (``X A = B`` when ``left=False``); B may be a vector."""
    _no_out("linalg.solve", out)
    _check_matrix("linalg.solve", A, kernel="lu_cpu")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_type_name(A._data.dtype)} and B of type "
            f"{scalar_type_name(B._data.dtype)} instead")
    vector = _solve_vector_case(A, B)
    n = A._data.shape[-1]
    sb = B._data.shape
    k_dim = sb[-1] if vector else (sb[-2] if left else sb[-1])
    if B._data.ndim < 1 or k_dim != n or (not vector and B._data.ndim < 2):
        shp = (f"{sb[-1]}x1" if vector else f"{sb[-2]}x{sb[-1]}") if sb else "0"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shp})")
    try:
        bsa = A._data.shape[:-2]
        bsb = sb[:-1] if vector else sb[:-2]
        np.broadcast_shapes(bsa, bsb)
    except ValueError:
        raise RuntimeError(f"linalg.solve: the batch dimensions of A {list(bsa)} and B "
                           f"{list(bsb)} do not broadcast") from None
    return dispatch(SOLVE, A, B, bool(left), vector)


@export_linalg("solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    X = solve(A, B, left=left, out=out)
    return _LinalgSolveEx(X, Tensor._wrap(np.zeros(A._data.shape[:-2], np.int32)))


@export_linalg("cholesky")
def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (``A = L L^H``) of a Hermitian positive-definite matrix; U = L^H
    with ``upper=True``.  Only the lower triangle of A is read."""
    _no_out("linalg.cholesky", out)
    _check_matrix("linalg.cholesky", A, kernel="cholesky_cpu")
    return dispatch(CHOLESKY, A, bool(upper))


@export_linalg("cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    L = cholesky(A, upper=upper, out=out)
    return _LinalgCholeskyEx(L, Tensor._wrap(np.zeros(A._data.shape[:-2], np.int32)))


@export_linalg("qr")
def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``; ``mode`` is 'reduced', 'complete' or 'r' (Q empty)."""
    _no_out("linalg.qr", out)
    _check_matrix("linalg.qr", A, square=False, kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return _LinalgQr(*dispatch(QR, A, mode))


@export_linalg("eigh")
def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of a Hermitian matrix; only
    the ``UPLO`` triangle is read.  Gradients assume distinct eigenvalues."""
    _no_out("linalg.eigh", out)
    if isinstance(A, Tensor) and (A._data.dtype.kind not in "fc" or A._data.dtype == np.float16):
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for '
                                  f"'{scalar_type_name(A._data.dtype)}' [linalg.eigh: convert "
                                  "A with A.double() or A.float()]")
    _check_matrix("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return _LinalgEigh(*dispatch(EIGH, A, UPLO))


@export_linalg("eigvalsh")
def eigvalsh(A, UPLO="L", *, out=None):
    return eigh(A, UPLO, out=out).eigenvalues


@export_linalg("svd")
def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending.  Gradients assume
    distinct non-zero singular values and a loss invariant to the singular vectors' phases."""
    _no_out("linalg.svd", out)
    _check_matrix("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    return _LinalgSvd(*dispatch(SVD, A, bool(full_matrices)))


@export_linalg("svdvals")
def svdvals(A, *, driver=None, out=None):
    _no_out("linalg.svdvals", out)
    _check_matrix("linalg.svdvals", A, square=False, kernel="linalg_svd_cpu")
    return dispatch(SVD, A, False)[1]


def _no_out(name, out):
    if out is not None:
        raise NotImplementedError(f"{name}(): out= is not supported by graphgrad; use the "
                                  "returned tensor")


# ====================================================================== norms
_INF = float("inf")


def _public(name):
    from .reductions import amax, amin, sum
    return {"sum": sum, "amax": amax, "amin": amin}[name]


def _vector_norm(*args, **kwargs):
    return LINALG["vector_norm"](*args, **kwargs)


@export_linalg("matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norms over the two dims ``dim``: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    _no_out("linalg.matrix_norm", out)
    _req_tensor("linalg.matrix_norm", A)
    nd = A._data.ndim
    if nd < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    d0, d1 = _wrap_dim(dim[0], nd), _wrap_dim(dim[1], nd)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if dtype is not None:
        A = A.to(dtype)
    _check_matrix("linalg.matrix_norm", A, square=False,
                  low_ok=ord not in ("nuc", 2, -2))  # (those take the SVD)
    if isinstance(ord, str):
        if ord == "fro":
            return _vector_norm(A, 2, (d0, d1), keepdim)
        if ord != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord in ("nuc", 2, -2):
        from .shape import permute, unsqueeze
        perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
        S = svdvals(permute(A, perm))
        r = _public("sum" if ord == "nuc" else "amax" if ord == 2 else "amin")(S, -1, keepdim)
        if keepdim:
            # back to A's layout: (..., 1, 1) with the two 1s moved to d0, d1
            inv_perm = [perm.index(i) for i in range(nd)]
            r = permute(unsqueeze(r, -1), inv_perm)
        return r
    # induced 1 / inf norms: max (min) over one dim of the absolute sums over the other
    d_sum, d_max = (d0, d1) if ord in (1, -1) else (d1, d0)
    v = _vector_norm(A, 1, d_sum, keepdim)
    if not keepdim and d_max > d_sum:
        d_max -= 1
    return _public("amax" if ord > 0 else "amin")(v, d_max, keepdim)


@export_linalg("norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: ``dim`` of length 1 (or a 1-D input) gives a vector norm, length 2
    (or a 2-D input with ``ord`` given) a matrix norm; no ``ord`` and no ``dim``: the 2-norm of
    the flattened input."""
    _no_out("linalg.norm", out)
    _req_tensor("linalg.norm", A)
    nd = A._data.ndim
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            if isinstance(ord, str):
                raise RuntimeError(f"linalg.norm: ord {ord!r} is a matrix norm, but dim "
                                   f"{list(dims)} selects a vector; pass two dims")
            return _vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dims)}")
    if ord is None:
        return _vector_norm(A, 2, None, keepdim, dtype=dtype)
    if nd == 2:
        return matrix_norm(A, ord, (0, 1), keepdim, dtype=dtype)
    if nd == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.norm: ord {ord!r} is a matrix norm but the input is 1-D")
        return _vector_norm(A, ord, 0, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or "
                       f"2D. Got {nd}D.")


LINALG["LinAlgError"] = LinAlgError
LINALG["matmul"] = matmul


# ============================================================ cdist
# The p-norm distance between each row of x1 (..., P, M) and each row of x2 (..., R, M),
# batch dims broadcast: (..., P, R).  Rules follow PyTorch's _cdist_backward, including its
# zeros where the distance is 0 (and, for p < 1, where a coordinate difference is 0).
def _cdist_kernel(x1, x2, p):
    d = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if d.shape[-1] == 0:
        return np.zeros(d.shape[:-1], d.dtype)
    if p == 0:
        return (d != 0).sum(-1).astype(d.dtype)
    if p == 1:
        return d.sum(-1)
    if p == 2:
        return np.sqrt((d * d).sum(-1))
    if p == np.inf:
        return d.max(-1)
    return ((d ** p).sum(-1)) ** (1.0 / p)


def _cdist_diff(x1, x2):
    s1, s2 = F.shape(x1), F.shape(x2)
    return F.reshape(x1, tuple(s1[:-1]) + (1, s1[-1])) - \
        F.reshape(x2, tuple(s2[:-2]) + (1,) + tuple(s2[-2:]))


def _cdist_weight(x1, x2, result, p):
    """d result / d (x1_i - x2_j), per coordinate: shape (..., P, R, M); None for p == 0."""
    if p == 0:
        return None
    diff = _cdist_diff(x1, x2)
    if p == 1:
        return F.sign(diff)
    dist = F.reshape(result, tuple(F.shape(result)) + (1,))
    if p == np.inf:
        return F.where(F.abs(diff) == dist, F.sign(diff), 0.0)
    zero = dist == 0
    if p < 1:
        zero = zero | (diff == 0)
    safe_dist = F.where(zero, 1.0, dist)
    if p == 2:
        return F.where(zero, 0.0, diff / safe_dist)
    absd = F.where(zero, 1.0, F.abs(diff))
    return F.where(zero, 0.0, F.sign(diff) * (absd / safe_dist) ** (p - 1))


def _sum_axis(x, from_end):
    return F.sum_dim_IntList(x, (F.ndim(x) - from_end,), False, None)


def _cdist_vjp(which):
    def rule(grad, x1, x2, result, p, x1_sym_sizes, x2_sym_sizes):
        w = _cdist_weight(x1, x2, result, p)
        sizes = x1_sym_sizes if which == 1 else x2_sym_sizes
        if w is None:
            return F.zeros_like(x1 if which == 1 else x2)
        gw = F.reshape(grad, tuple(F.shape(grad)) + (1,)) * w
        g = _sum_axis(gw, 2) if which == 1 else -_sum_axis(gw, 3)
        return F.sum_to(g, sizes, F.ndim(result))
    return rule


def _cdist_jvp(x1_t, x2_t, x1, x2, result, p):
    w = _cdist_weight(x1, x2, result, p)
    if w is None:
        return F.zeros_like(result)
    return _sum_axis(w * _cdist_diff(x1_t, x2_t), 1)


def _cdist_batched_jvp(x1_t, x2_t, x1, x2, result, p, x1_sym_sizes, x2_sym_sizes):
    # each tangent's own dims padded to the broadcast rank, so that their leading batch
    # dims line up (broadcast batch dims + P/R + M)
    nd = F.ndim(result)
    return _cdist_jvp(F.pad_batched(x1_t, len(x1_sym_sizes), nd),
                      F.pad_batched(x2_t, len(x2_sym_sizes), nd), x1, x2, result, p)


CDIST = defop("_cdist_forward(x1, x2, *, p)", _cdist_kernel, "CdistBackward0",
              x1=_cdist_vjp(1), x2=_cdist_vjp(2), jvp=_cdist_jvp,
              batched_jvp=_cdist_batched_jvp)


@export(method=False)
@interposable("cdist")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances between the rows of ``x1`` and ``x2`` (batches broadcast).

    ``compute_mode`` is accepted and checked; the distances are always computed from the
    coordinate differences (PyTorch's matrix-product shortcut for p=2 changes only the
    last bits and the node name, see docs/differences.md)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"cdist(): argument '{name.lower()}' must be Tensor, not "
                            f"{type(x).__name__}")
        if x._data.dtype.kind not in "fV":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{scalar_type_name(x.dtype)}")
        if x._data.dtype.itemsize == 2:
            raise NotImplementedError(f'"cdist" not implemented for '
                                      f"'{scalar_type_name(x.dtype)}' (as in PyTorch; convert "
                                      "to float32 first)")
        if x._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{x._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._data.shape[-1]} X2: {x2._data.shape[-1]}")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"cdist: X1 and X2 must have the same dtype, got {x1.dtype} and "
                           f"{x2.dtype}")
    p = float(p)
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    try:
        np.broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    except ValueError:
        raise RuntimeError(f"cdist: the batch dims of X1 {list(x1._data.shape[:-2])} and X2 "
                           f"{list(x2._data.shape[:-2])} do not broadcast") from None
    return dispatch(CDIST, x1, x2, p)
