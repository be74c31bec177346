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
- The ``*_ex`` variants' partial results for failed matrices come from LAPACK's
  unblocked algorithms (NOTE [LAPACK info] in linalg_decompositions.py).
"""
from __future__ import annotations

import collections
import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..._core.dtypes import scalar_type_name
from ..dispatch import dispatch, no_bool as _no_bool
from ..derivatives.shape import UNSAFE_VIEW
from ..inplace import dispatch_inplace
from ..codegen.entries import make_matmul_entry, make_mv_entry
from ..registry import LINALG, export, export_linalg
from ..._core import dtypes as _dtype
from ..derivatives.linalg import (
    BMM, DIAGONAL, DIAGONAL_COPY, DIAG_EMBED, DOT, EINSUM, EINSUM2, MM, MV, TRACE, TRIL, TRIU,
    VDOT, _MM_SQUEEZE)
from ..kernels.linalg import LinAlgError
from ..interpose import interposable


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


def _mv_general(input, vec):
    if isinstance(input, Tensor) and isinstance(vec, Tensor) and \
            (input._data.ndim != 2 or vec._data.ndim != 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, "
                           f"{vec._data.ndim} [mv: a 2-D matrix and a 1-D vector; "
                           "use matmul for other ranks]")
    _check_same_dtype("mv", input, vec)
    return dispatch(MV, input, vec)


# a matrix times a vector of one dtype (``B @ x``) is mv in one generated frame
mv = export("mv")(make_mv_entry(MV, "mv", ("input", "vec"), _mv_general))
mv.__doc__ = "``input @ vec`` for a 2-D ``input`` and a 1-D ``vec`` (PyTorch's mv)."


@export()
def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D "
                           "tensors")
    _check_same_dtype("dot", input, tensor)
    return dispatch(DOT, input, tensor)


def _matmul_general(input, other):
    """``input @ other`` with NumPy/PyTorch broadcasting semantics."""
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
    # (imported here, after the products of 1-D and 2-D operands: the import statement
    # cost each matrix-vector product ~12 k instructions, a fifth of the whole call)
    from .shape import expand, reshape, unsqueeze
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
            return dispatch(UNSAFE_VIEW, mv(folded, b), sa[:-1])
        out = mm(folded, b)
        return dispatch(UNSAFE_VIEW, out, sa[:-1] + (b._data.shape[1],))
    if na <= 2 and nb >= 3 and (a._requires_grad or na == 1 and _rows_fold(b._data)):
        # a 1-D/2-D operand times a batch: PyTorch folds the batch of b^T into the rows of
        # one mv/mm when a requires grad (copying b^T, so that the backward of a sums no
        # expanded copy of a), and for a vector when b^T folds without a copy
        sb = b._data.shape
        folded = reshape(b.mT, (int(np.prod(sb[:-2])) * sb[-1], sb[-2]))
        if na == 1:
            return dispatch(UNSAFE_VIEW, mv(folded, a), sb[:-2] + (sb[-1],))
        out = dispatch(UNSAFE_VIEW, mm(folded, a.t()), sb[:-2] + (sb[-1], a._data.shape[0]))
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
    return dispatch(UNSAFE_VIEW, out, shape)


def _rows_fold(d):
    """Whether the batch dims of ``d^T`` (last two dims swapped) merge with its rows
    without a copy (or ``d`` is empty)."""
    if d.size == 0:
        return True
    shape = d.shape[:-2] + (d.shape[-1], d.shape[-2])
    strides = d.strides[:-2] + (d.strides[-1], d.strides[-2])
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


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
LinAlgError.__module__ = "graphgrad.linalg"


# ====================================================================== products
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
    uv = UNSAFE_VIEW
    sa, sb = input._data.shape, other._data.shape
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a = dispatch(uv, input, tuple(x for s in sa for x in (s, 1)))
    b = dispatch(uv, other, tuple(x for s in sb for x in (1, s)))
    return dispatch(uv, a * b, tuple(p * q for p, q in zip(sa, sb)))


@export(method=False)
def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (permute, reshape, mm, reshape)."""
    from .shape import reshape
    from .views import permute
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
# sublist format: 0..25 -> 'A'..'Z', 26..51 -> 'a'..'z' (PyTorch's mapping)
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # (einsum's subscripts)


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
    if len(args) == 1 and not isinstance(args[0], str):
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
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
    if nd < 2:   # (PyTorch wraps dim1/dim2 first: an IndexError)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, "
                         f"{max(nd, 1) - 1}], but got {max(nd, 1)}) (diagonal() needs a "
                         f"tensor with at least 2 dimensions, got {nd})")
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


LINALG["LinAlgError"] = LinAlgError
LINALG["matmul"] = matmul
