"""linear (addmm with PyTorch's node, AddmmBackward0)."""
from __future__ import annotations

import numpy as np

from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ...ops import formulas as F, registry as _registry
from ...ops.dispatch import dispatch, no_bool
from ...ops.registry import defop, export
from ...ops.api.linalg import _check_same_dtype
from ..._core.opmath import half_in_float32
from ...ops.api.conversion import _write_out
from ...ops.api.linalg import matmul as _matmul
from ...ops.api.shape import t as _t
from ._utils import _tensor_arg, _bpad
from ...ops.interpose import interposable

# ====================================================================== linear
@half_in_float32
def _addmm_kernel(bias, mat1, mat2, beta, alpha):
    no_bool("addmm_impl_cpu_", mat1)
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"addmm: mat1 and mat2 must be matrices, got {mat1.ndim}-D and "
                           f"{mat2.ndim}-D")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    out = mat1 @ mat2
    if alpha != 1:
        out *= alpha
    if beta != 0:
        b = bias if beta == 1 else bias * beta
        if np.broadcast_shapes(b.shape, out.shape) != out.shape:
            raise RuntimeError(f"The expanded size of the tensor bias {list(b.shape)} must match "
                               f"the result shape {list(out.shape)}")
        out += b
    return out


def _scaled(x, alpha):
    return x if alpha == 1 else x * F.conj(alpha)


def _declare_addmm():
    # another family may have declared torch.addmm already: reuse it if it has PyTorch's
    # signature, else keep this one under a private name
    existing = _registry.OPS.get("addmm")
    if existing is not None and existing.params == ("self", "mat1", "mat2", "beta", "alpha"):
        return existing
    name = "addmm" if existing is None else "_nn_addmm"
    return defop(
        f"{name}(self, mat1, mat2, *, beta, alpha)", _addmm_kernel, "AddmmBackward0",
        promote=True,
        self=lambda grad, beta: _scaled(grad, beta),
        mat1=lambda grad, mat2, alpha: _scaled(F.matmul(grad, F.mH(mat2)), alpha),
        mat2=lambda grad, mat1, alpha: _scaled(F.matmul(F.mH(mat1), grad), alpha),
        jvp=lambda self_t, mat1_t, mat2_t, mat1, mat2, beta, alpha:
            _scaled(F.matmul(mat1_t, mat2) + F.matmul(mat1, mat2_t), alpha) + self_t * beta,
        batched_jvp=lambda self_t, mat1_t, mat2_t, self, mat1, mat2, beta, alpha:
            _scaled(F.matmul(mat1_t, mat2) + F.matmul(mat1, mat2_t), alpha)
            + _bpad(self_t, self, 2) * beta)


ADDMM = _declare_addmm()


def _check_addmm_dtypes(input, mat1, mat2):
    """addmm does not promote: PyTorch's errors for operands of different dtypes."""
    if not all(isinstance(t, Tensor) for t in (input, mat1, mat2)):
        return
    _check_same_dtype("mm", mat1, mat2)
    a, b = input._data.dtype, mat2._data.dtype
    if a != b:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{scalar_type_name(a)} and {scalar_type_name(b)} [addmm: cast the "
                           "bias or the matrices with .to()]")


if "addmm" not in _registry.PUBLIC:
    @export("addmm")
    @interposable("addmm")
    def _addmm_public(input, mat1, mat2, *, beta=1, alpha=1, out=None):
        """``graphgrad.addmm(input, mat1, mat2, *, beta=1, alpha=1)``: beta input + alpha
        mat1 @ mat2 (AddmmBackward0)."""
        _check_addmm_dtypes(input, mat1, mat2)
        r = dispatch(ADDMM, input, mat1, mat2, beta, alpha)
        return r if out is None else _write_out(r, out)

    _addmm_public.__name__ = _addmm_public.__qualname__ = "addmm"


@interposable("linear")
def linear(input, weight, bias=None):
    """``linear(input, weight, bias=None)``: input @ weight.T + bias, with weight (out, in).
    A 2-D input with a bias is one ``addmm`` (AddmmBackward0 <- TBackward0), as in PyTorch;
    other ranks fold their leading dims around it."""
    _tensor_arg("linear", input)
    _tensor_arg("linear", weight, "weight", 2)
    wt = _t(weight)
    nd = input._data.ndim
    if nd == 2 and weight._data.ndim == 1 and bias is not None:
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
    if bias is not None and weight._data.ndim == 2 and nd >= 1:
        _check_addmm_dtypes(bias, input, wt)
        if nd == 2:
            return dispatch(ADDMM, bias, input, wt, 1, 1)
        n_in = input._data.shape[-1]
        if n_in != weight._data.shape[1]:
            rows = input._data.size // n_in if n_in else 0
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{n_in} and "
                               f"{weight._data.shape[1]}x{weight._data.shape[0]})")
        out = dispatch(ADDMM, bias, input.reshape(-1, n_in), wt, 1, 1)
        return out.view(input._data.shape[:-1] + (weight._data.shape[0],))
    out = _matmul(input, wt)
    return out if bias is None else out + bias
