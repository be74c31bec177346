"""gradcheck's error type and small helpers: tensors of the inputs/outputs, messages."""
from __future__ import annotations

import numpy as np

from ..._tensor import tensor as _T
from ..._tensor.tensor import Tensor

class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


_wrap = Tensor._wrap


def _is_tensor(x):
    return isinstance(x, _T.Tensor)


# ====================================================================== helpers
def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _iter_tensors(x, only_requiring_grad=False):
    if _is_tensor(x):
        if x._requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, (list, tuple)):
        for el in x:
            yield from _iter_tensors(el, only_requiring_grad)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o._requires_grad)


def _is_float_or_complex(x):
    return _is_tensor(x) and x._data.dtype.kind in "fcV" and x.dtype.category >= 2


def _real_dtype(dt):
    return np.empty(0, dt).real.dtype


def _to_tensor(a):
    return _wrap(np.array(a))


def _fmt(a):
    """An ndarray shown as a graphgrad tensor (PyTorch's messages print tensors); a
    fast-mode scalar as a Python number."""
    a = np.asarray(a)
    if a.ndim == 0:
        return repr(a.item())
    return repr(_to_tensor(a))


def _mismatch_details(a, n, rtol, atol, layout=True):
    """Where ``a`` (analytical) and ``n`` (numerical) differ, in words."""
    a = np.asarray(a)
    n = np.asarray(n)
    if a.shape != n.shape:
        return f"The analytical shape {list(a.shape)} differs from the numerical shape " \
               f"{list(n.shape)}.\n"
    diff = np.abs(a - n)
    bad = ~(diff <= atol + rtol * np.abs(n))
    bad |= np.isnan(a) != np.isnan(n)
    if a.ndim == 0 or a.size == 0:
        return (f"|analytical - numerical| = {float(diff) if a.ndim == 0 else 0.0:.6g} (allowed: "
                f"atol {atol:.3g} + rtol {rtol:.3g} * |numerical|).\n")
    idx = [tuple(int(i) for i in ix) for ix in np.argwhere(bad)]
    if not idx:
        return ""
    worst = np.unravel_index(int(np.nanargmax(np.where(bad, diff, -1.0))), a.shape)
    worst = tuple(int(i) for i in worst)
    where = "(input element, output element) " if layout and a.ndim == 2 else ""
    shown = ", ".join(str(i) for i in idx[:10]) + (", ..." if len(idx) > 10 else "")
    return (f"Mismatched entries {where}({len(idx)} of {a.size}, atol={atol:.3g}, "
            f"rtol={rtol:.3g}): {shown}\n"
            f"Largest difference at {worst}: numerical {n[worst]!r}, analytical "
            f"{a[worst]!r} (|difference| {diff[worst]:.6g}).\n")


def _notallclose_msg(a, n, output_idx, input_idx, complex_indices, test_imag=False,
                     is_forward_ad=False, rtol=None, atol=None):
    out_is_complex = not is_forward_ad and complex_indices and output_idx in complex_indices
    inp_is_complex = is_forward_ad and complex_indices and input_idx in complex_indices
    part = "imaginary" if test_imag else "real"
    element = "inputs" if is_forward_ad else "outputs"
    prefix = f"While considering the {part} part of complex {element} only, " \
        if (out_is_complex or inp_is_complex) else ""
    mode = "computed with forward mode " if is_forward_ad else ""
    msg = (f"{prefix}Jacobian {mode}mismatch for output {output_idx} with respect to input "
           f"{input_idx},\nnumerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n")
    if rtol is not None:
        msg += _mismatch_details(a, n, rtol, atol)
    return msg


def _allclose(a, n, rtol, atol):
    a = np.asarray(a)
    n = np.asarray(n)
    if a.shape != n.shape:
        return False
    return bool(np.allclose(a, n, rtol=rtol, atol=atol))


def _eval(fn, inputs):
    """Evaluate ``fn`` and return copies of its outputs' arrays."""
    outs = _as_tuple(fn(*inputs))
    return [np.array(o._data) if _is_tensor(o) else np.asarray(o) for o in outs]


def _check_same(o1, o2, eps, idx=None):
    on = f"on index {idx} " if idx is not None else ""
    if o1.shape != o2.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs "
                             f"are perturbed {on}by {eps}, but got: shapes {list(o1.shape)} and "
                             f"{list(o2.shape)}.")
    if o1.dtype != o2.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs "
                             f"are perturbed {on}by {eps}, but got: dtypes {o1.dtype} and "
                             f"{o2.dtype}.")
