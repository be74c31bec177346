"""``beta * input + alpha * product`` ops (addmv, addr, baddbmm, addbmm and their in-place
forms), the cross product (``cross``, ``linalg.cross``) and products PyTorch writes as
compositions of others (``inner``, ``chain_matmul``, ``linalg.multi_dot``,
``linalg.vecdot``, ``matrix_power``), whose graphs are the same compositions here.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core.dtypes import scalar_type_name
from ..._core.opmath import BFLOAT16
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..registry import export, export_linalg
from ..interpose import interposable
from .conversion import _write_out
from ..._tensor.creation import eye
from .linalg import dot, matmul, mm, tensordot
from .linalg_decompositions import inv as _inv
from ..derivatives.linalg_products import ADDBMM, ADDMV, ADDR, BADDBMM, LINALG_CROSS


WARNED = set()   # deprecation warnings already given (PyTorch's TORCH_WARN_ONCE)


def _warn_once(key, msg):
    if key not in WARNED:
        WARNED.add(key)
        warnings.warn(msg, UserWarning, stacklevel=3)


def _need(name, x, pos, argname):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _scalars(name, beta, alpha, like):
    for v, n in ((beta, "beta"), (alpha, "alpha")):
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (bool, int, float, complex)):
            raise TypeError(f"{name}(): argument '{n}' must be Number, not {type(v).__name__}")
        if like._data.dtype.kind in "iub" and isinstance(v, float) and name.startswith("addr"):
            raise RuntimeError(f"For integral input tensors, argument {n} must not be a "
                               f"floating point number. [{name}: pass an int {n}]")
    beta = beta.item() if isinstance(beta, Tensor) else beta
    alpha = alpha.item() if isinstance(alpha, Tensor) else alpha
    return beta, alpha


def _same_dtypes(name, *ts):
    names = [scalar_type_name(t._data.dtype) for t in ts]
    if len(set(names)) > 1:
        if name == "addmv":
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{names[0]}, {names[1]}, and {names[2]} [convert them with "
                               ".to(dtype)]")
        if name == "baddbmm":
            if names[1] != names[2]:
                raise RuntimeError(f"expected scalar type {names[1]} but found {names[2]} "
                                   "[baddbmm: convert batch2 with .to(batch1.dtype)]")
            raise RuntimeError(f"Input dtypes must be the same, got: input "
                               f"{names[0].lower()}, batch1: {names[1].lower()}, batch2: "
                               f"{names[2].lower()} [baddbmm: convert them with .to(dtype)]")
        bad = names[2] if names[2] != names[0] else names[1]
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {names[0]} and "
                           f"{bad} [{name}: convert them with .to(dtype)]")


def _product_op(name, op, argnames, same_dtype=True):
    def args(fname, input, a, b, beta, alpha):
        for i, (t, n) in enumerate(zip((input, a, b), ("input",) + argnames)):
            _need(fname, t, i + 1, n)
        if same_dtype:
            _same_dtypes(name, input, a, b)
        return _scalars(fname, beta, alpha, a)

    def fn(input, *rest, beta=1, alpha=1, out=None):
        if len(rest) != 2:
            raise TypeError(f"{name}() takes 3 positional arguments (input, {argnames[0]}, "
                            f"{argnames[1]}) but {len(rest) + 1} were given")
        a, b = rest
        beta, alpha = args(name, input, a, b, beta, alpha)
        r = dispatch(op, input, a, b, beta, alpha)
        return r if out is None else _write_out(r, out)

    def fn_(self, a, b, *, beta=1, alpha=1):
        beta, alpha = args(name + "_", self, a, b, beta, alpha)
        return dispatch_inplace(op, self, a, b, beta, alpha)
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = (f"``beta * input + alpha * {name[3:] if name != 'baddbmm' else 'bmm'}"
                  f"({', '.join(argnames)})`` (backward node {op.node_name}).")
    export(name)(fn)
    return fn, fn_


addmv, addmv_ = _product_op("addmv", ADDMV, ("mat", "vec"))
export("addmv_")(addmv_)
addr, addr_ = _product_op("addr", ADDR, ("vec1", "vec2"), same_dtype=False)
export("addr_", function=False)(addr_)
baddbmm, baddbmm_ = _product_op("baddbmm", BADDBMM, ("batch1", "batch2"))
export("baddbmm_", function=False)(baddbmm_)
addbmm, addbmm_ = _product_op("addbmm", ADDBMM, ("batch1", "batch2"))
export("addbmm_", function=False)(addbmm_)


# ====================================================================== cross
def _cross(name, input, other, dim):
    _need(name, input, 1, "input")
    _need(name, other, 2, "other")
    na, nb = input._data.ndim, other._data.ndim
    if na != nb:
        raise RuntimeError(f"{name}: inputs must have the same number of dimensions. [got "
                           f"shapes {list(input.shape)} and {list(other.shape)}]")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._data.dtype)} but "
                           f"found {scalar_type_name(other._data.dtype)} [{name}: convert "
                           "other with .to(input.dtype)]")
    n = max(na, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    d = dim % n
    sa, sb = input._data.shape[d], other._data.shape[d]
    if sa != 3 or sb != 3:
        raise RuntimeError(f"{name}: inputs dimension {dim} must have length 3. Got {sa} and "
                           f"{sb}")
    return dispatch(LINALG_CROSS, input, other, d - n)


@export_linalg("cross")
def linalg_cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    r = _cross("linalg.cross", input, other, dim)
    return r if out is None else _write_out(r, out)


@export()
def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: as ``linalg.cross``, but ``dim=None`` takes the first dim of size 3
    (deprecated, with PyTorch's warning)."""
    _need("cross", input, 1, "input")
    _need("cross", other, 2, "other")
    if dim is None:
        _warn_once("cross","Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.")
        shape = np.broadcast_shapes(input._data.shape, other._data.shape) \
            if input._data.ndim == other._data.ndim else input._data.shape
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError(f"no dimension of size 3 in input [cross: shapes "
                               f"{list(input.shape)} and {list(other.shape)}; pass dim=]")
    r = _cross("linalg.cross", input, other, dim)
    return r if out is None else _write_out(r, out)


# ====================================================================== compositions
@export()
def inner(input, other, *, out=None):
    """The sum of products over the last dims (``tensordot`` of the last dims; a number
    operand multiplies)."""
    _need("inner", input, 1, "input")
    _need("inner", other, 2, "other")
    if input._data.ndim == 0 or other._data.ndim == 0:
        r = input * other
    else:
        if input._data.dtype != other._data.dtype:
            raise RuntimeError("both inputs should have same dtype [inner: got "
                               f"{scalar_type_name(input._data.dtype)} and "
                               f"{scalar_type_name(other._data.dtype)}; convert with .to()]")
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner() the last dimension must match on both input tensors "
                               f"but got shapes {list(input.shape)} and {list(other.shape)}")
        if input._data.ndim == 1 and other._data.ndim == 1:
            r = dot(input, other).view(())   # (PyTorch's: ViewBackward0 over DotBackward0)
        else:
            r = tensordot(input, other, ([-1], [-1]))
    return r if out is None else _write_out(r, out)


@export_linalg("multi_dot")
def multi_dot(tensors, *, out=None):
    """The product of a list of matrices (first and last may be vectors), in the cheapest
    order of multiplication (as PyTorch chooses it)."""
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        _need("linalg.multi_dot", t, 1, f"tensors[{i}]")
        nd = t._data.ndim
        if (0 < i < n - 1 and nd != 2) or nd not in (1, 2):
            where = "first" if i == 0 else "last" if i == n - 1 else f"{i}th"
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D"
                               + ("" if 0 < i < n - 1 else " or 1D") +
                               f" but got {nd}D [the {where} argument]")
        if t._data.dtype != tensors[0]._data.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {scalar_type_name(tensors[0]._data.dtype)} and "
                               f"tensor {i} is {scalar_type_name(t._data.dtype)}")
    first_vec, last_vec = tensors[0]._data.ndim == 1, tensors[-1]._data.ndim == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(tensors[i].shape)} and {list(tensors[i + 1].shape)} "
                               "cannot be multiplied")
    if n == 2:
        r = mm(mats[0], mats[1])
    else:
        r = _chain(mats)
    if first_vec and last_vec:
        r = r.view(())
    elif first_vec:
        r = r.view(-1)
    elif last_vec:
        r = r.view(-1)
    else:
        r = r.view(r.shape)
    return r if out is None else _write_out(r, out)


def _chain(mats):
    """The matrix chain in the cheapest order (the classic dynamic programme)."""
    n = len(mats)
    if n == 3:
        a, b = mats[0].shape[0], mats[0].shape[1]
        c, d = mats[2].shape[0], mats[2].shape[1]
        cost1 = a * c * (b + d)
        cost2 = b * d * (a + c)
        if cost1 > cost2:
            return mm(mats[0], mm(mats[1], mats[2]))
        return mm(mm(mats[0], mats[1]), mats[2])
    p = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def build(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return mm(build(i, k), build(k + 1, j))
    return build(0, n - 1)


@export(method=False)
def chain_matmul(*matrices, out=None):
    """The product of 2-D matrices (deprecated in PyTorch for ``linalg.multi_dot``)."""
    if len(matrices) == 1:
        if isinstance(matrices[0], (list, tuple)):
            matrices = tuple(matrices[0])
    _warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a "
               "future PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list "
               "of two or more tensors rather than multiple parameters.")
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        _need("chain_matmul", t, 1, "matrices")
        if t._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t._data.ndim}, expected 2 instead. "
                               "[chain_matmul: every argument must be a matrix]")
    if len(matrices) == 1:
        r = matrices[0].clone()
    else:
        r = multi_dot(matrices)
    return r if out is None else _write_out(r, out)


@export_linalg("vecdot")
@interposable("linalg_vecdot")
def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y, dim)`` (inputs broadcast)."""
    _need("linalg.vecdot", x, 1, "x")
    _need("linalg.vecdot", y, 2, "y")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but x has "
                           f"dtype {scalar_type_name(x._data.dtype)} and y has dtype "
                           f"{scalar_type_name(y._data.dtype)} [convert with .to()]")
    if x._data.dtype.kind not in "fc" and x._data.dtype != BFLOAT16:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name(x._data.dtype)} [convert with "
                           ".float()]")
    if x.is_complex():
        x = x.conj()
    r = (x * y).sum(dim)
    return r if out is None else _write_out(r, out)


def _matrix_power(name, input, n):
    _need(name, input, 1, "input")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name}(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    nd = input._data.ndim
    if nd < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if nd > 1 else 1} by {input.shape[-1] if nd else 1}"
                           " matrices")
    if n == 0:
        e = eye(input.shape[-1], dtype=input.dtype)
        return input.clone().copy_(e.expand(input.shape))
    a = input
    if n < 0:
        a = _inv(input)
        n = -n
    if n == 1:
        return a.clone()
    mul = matmul
    if n == 2:
        return mul(a, a)
    if n == 3:
        return mul(mul(a, a), a)
    # binary powering, as PyTorch's: z = a, a^2, a^4 ...; result the product of those used
    result = None
    z = None
    while n:
        z = a if z is None else mul(z, z)
        if n & 1:
            result = z if result is None else mul(result, z)
        n >>= 1
    return result


@export()
def matrix_power(input, n):
    """``input`` (a square matrix or a batch) to the integer power ``n`` (negative: of its
    inverse; 0: the identity)."""
    return _matrix_power("linalg.matrix_power", input, n)


@export_linalg("matrix_power")
def linalg_matrix_power(A, n, *, out=None):
    r = _matrix_power("linalg.matrix_power", A, n)
    return r if out is None else _write_out(r, out)
