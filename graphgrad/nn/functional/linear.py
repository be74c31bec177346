"""linear (addmm with PyTorch's node, AddmmBackward0)."""
from __future__ import annotations

from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ...ops import registry as _registry
from ...ops.dispatch import dispatch
from ...ops.registry import export
from ...ops.api.linalg import _check_same_dtype, matmul as _matmul
from ...ops.api.conversion import _write_out
from ...ops.api.shape import t as _t
from ._utils import _tensor_arg
from ...ops.derivatives.nn_linear import ADDMM

from ...ops.interpose import interposable

# ====================================================================== linear
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
