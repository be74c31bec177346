"""Numerical (finite differences), analytical (backward) and forward-AD Jacobians."""
from __future__ import annotations

import warnings
import numpy as np

from .utils import GradcheckError, _wrap, _is_tensor, _as_tuple, _iter_tensors, _eval, _check_same
from .. import grad as _grad
from .. import forward_ad as fwAD

def _central_difference(fn, inputs, data, where, delta, eps):
    """``(f(x + delta) - f(x - delta)) / (2 eps)`` for each output, flattened; ``where``
    indexes the perturbed entries of ``data`` (or is None for the whole array)."""
    key = ... if where is None else where
    orig = np.array(data[key])
    data[key] = orig - delta
    try:
        a = _eval(fn, inputs)
        data[key] = orig + delta
        b = _eval(fn, inputs)
    finally:
        data[key] = orig
    res = []
    for x, y in zip(a, b):
        _check_same(x, y, eps, where if where is not None else None)
        if x.dtype.kind in "fc":
            d = (y - x) / (2 * eps)
        else:
            d = (y.astype(np.float64) - x.astype(np.float64)) / (2 * eps)
        res.append(d.reshape(-1))
    return res


def _directional(fn, inputs, data, where, direction, eps, complex_input):
    """Numerical derivative of every output along ``direction`` (a perturbation of ``data``
    without eps); for a complex input, the conjugate Wirtinger combination ds/dx + i ds/dy."""
    dx = _central_difference(fn, inputs, data, where, eps * direction, eps)
    if not complex_input:
        return dx
    dy = _central_difference(fn, inputs, data, where, eps * 1j * direction, eps)
    return [x + 1j * y for x, y in zip(dx, dy)]


def _jac_dtype(out_dtype, complex_input):
    if complex_input or out_dtype.kind == "c":
        return np.complex64 if out_dtype in (np.float32, np.complex64) else np.complex128
    return out_dtype if out_dtype.kind == "f" else np.dtype(np.float64)


def _numerical_jacobian(fn, inputs, outputs, eps, is_forward_ad=False, targets=None):
    """Per input that requires grad (or per tensor of ``targets``, perturbed in place while
    ``fn(*inputs)`` is evaluated): a list over ``outputs`` of (in_numel, out_numel)
    finite-difference Jacobians."""
    outs0 = [np.asarray(o._data) for o in outputs]
    result = []
    for inp in (inputs if targets is None else targets):
        if not (_is_tensor(inp) and inp._requires_grad):
            continue
        data = inp._data
        complex_input = data.dtype.kind == "c" and not is_forward_ad
        jacs = [np.zeros((data.size, o.size), _jac_dtype(o.dtype, complex_input)) for o in outs0]
        for e, idx in enumerate(np.ndindex(*data.shape)):
            cols = _directional(fn, inputs, data, idx, 1.0, eps, complex_input)
            for j, c in zip(jacs, cols):
                j[e] = c
        result.append(jacs)
    return result


def _deprecated(name):
    warnings.warn(f"`{name}` was part of PyTorch's private API and not meant to be exposed; "
                  "it is deprecated (in PyTorch and in graphgrad) and will be removed. Use "
                  "gradcheck / gradgradcheck, or autograd.functional.jacobian.",
                  FutureWarning, stacklevel=3)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated PyTorch API: the finite-difference Jacobians of the first output of
    ``fn(inputs)`` (``fn`` takes the inputs as one tuple) with respect to each tensor of
    ``target`` (default: the inputs) that requires grad."""
    _deprecated("get_numerical_jacobian")
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    tupled = _as_tuple(inputs)

    def packed(*inps):
        return fn(inps)

    outs = _as_tuple(packed(*tupled))
    if any(_is_tensor(o) and o._data.dtype.kind == "c" for o in outs):
        raise ValueError("Expected output to be non-complex. get_numerical_jacobian no longer "
                         "supports functions that return complex outputs.")
    targets = None if target is None else list(_iter_tensors(target, True))
    jac = _numerical_jacobian(packed, tupled, outs, eps, targets=targets)
    return tuple(_wrap(j[0]) for j in jac)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated PyTorch API: ``(jacobians, reentrant, correct_grad_sizes,
    correct_grad_types)`` of ``output`` w.r.t. the inputs that require grad."""
    _deprecated("get_analytical_jacobian")
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    if output._data.dtype.kind == "c":
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no longer "
                         "supports functions that return complex outputs.")
    diff = list(_iter_tensors(inputs, True))
    j1, types_ok, sizes_ok = _analytical_rows(output, diff)
    j2, _, _ = _analytical_rows(output, diff)
    reentrant = _jacobians_equal(j1, j2, nondet_tol)
    return tuple(_wrap(j) for j in j1), reentrant, sizes_ok, types_ok


# ====================================================================== analytical
def _vjp(output, diff_inputs, grad_output):
    return _grad(output, diff_inputs, _wrap(grad_output), retain_graph=True, allow_unused=True)


def _analytical_rows(output, diff_inputs):
    """Backward with each standard basis cotangent: (in_numel, out_numel) per input."""
    od = output._data
    jacs = [np.zeros((x._data.size, od.size), x._data.dtype) for x in diff_inputs]
    types_ok = sizes_ok = True
    go = np.zeros(od.shape, od.dtype)
    flat = go.reshape(-1)
    for j in range(od.size):
        flat[:] = 0
        flat[j] = 1
        grads = _vjp(output, diff_inputs, go.copy())
        for k, (g, x) in enumerate(zip(grads, diff_inputs)):
            if g is None:
                continue
            gd = g._data
            if gd.dtype != x._data.dtype:
                types_ok = False
            if gd.size != x._data.size:
                sizes_ok = False
                continue
            jacs[k][:, j] = gd.reshape(-1)
    return jacs, types_ok, sizes_ok


def _analytical_vjps(output, diff_inputs, v):
    """``v^T J`` per input (flattened), zeros for an unreachable input."""
    od = output._data
    grads = _vjp(output, diff_inputs, np.asarray(v, od.dtype).reshape(od.shape))
    types_ok = sizes_ok = True
    res = []
    for g, x in zip(grads, diff_inputs):
        if g is None:
            res.append(np.zeros(x._data.size, x._data.dtype))
            continue
        if g._data.dtype != x._data.dtype:
            types_ok = False
        if g._data.size != x._data.size:
            sizes_ok = False
            res.append(np.zeros(x._data.size, x._data.dtype))
            continue
        res.append(np.array(g._data).reshape(-1))
    return res, types_ok, sizes_ok


def _jacobians_equal(j1, j2, nondet_tol):
    for a, b in zip(j1, j2):
        if a.size and float(np.max(np.abs(a - b))) > nondet_tol:
            return False
    return True


_NONDET_MSG = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient. The tolerance for nondeterminism was {}.\n\n"
    "NOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n")


def _checked_analytical(output, diff_inputs, nondet_tol, check_grad_dtypes, v=None):
    """Analytical Jacobians (or v^T J with ``v``) computed twice: dtype, size and
    determinism checks."""
    if v is None:
        j1, types_ok, sizes_ok = _analytical_rows(output, diff_inputs)
        j2, _, _ = _analytical_rows(output, diff_inputs)
    else:
        j1, types_ok, sizes_ok = _analytical_vjps(output, diff_inputs, v)
        j2, _, _ = _analytical_vjps(output, diff_inputs, v)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not _jacobians_equal(j1, j2, nondet_tol):
        raise GradcheckError(_NONDET_MSG.format(nondet_tol))
    return j1


def _forward_ad_jacobian(func, inputs, output_idx, check_grad_dtypes, directions=None):
    """Forward-mode Jacobians: per input that requires grad, a list over the outputs in
    ``output_idx`` of (in_numel, out_numel) arrays -- or, with ``directions`` (one flat
    vector per input), of J u (out_numel,) arrays."""
    diff = [i for i, x in enumerate(inputs) if _is_tensor(x) and x._requires_grad]
    for i in diff:
        if inputs[i]._data.dtype.kind == "c":
            raise ValueError("Expected inputs to be non-complex for "
                             "_get_analytical_jacobian_forward_ad.")
    result = []
    with fwAD.dual_level():
        duals = list(inputs)
        tangents = []
        for i in diff:
            x = inputs[i]
            d = fwAD.make_dual(x.detach(), _wrap(np.zeros_like(x._data)))
            duals[i] = d
            tangents.append(fwAD.unpack_dual(d).tangent)

        def run():
            outs = _as_tuple(func(*duals))
            res = []
            for k in output_idx:
                o = outs[k]
                primal, tan = fwAD.unpack_dual(o)
                if check_grad_dtypes and tan is not None and \
                        (primal._data.dtype.kind == "c") != (tan._data.dtype.kind == "c"):
                    raise GradcheckError("Forward AD gradient has dtype mismatch.")
                if tan is None:
                    res.append(np.zeros(o._data.size, o._data.dtype))
                else:
                    res.append(np.array(tan._data, dtype=np.result_type(
                        tan._data.dtype, o._data.dtype)).reshape(-1))
            return res

        for n, t in enumerate(tangents):
            td = t._data
            if directions is not None:
                td[...] = np.asarray(directions[n]).reshape(td.shape)
                try:
                    result.append(run())
                finally:
                    td[...] = 0
                continue
            flat_cols = None
            for e, idx in enumerate(np.ndindex(*td.shape)):
                td[idx] = 1
                try:
                    cols = run()
                finally:
                    td[idx] = 0
                if flat_cols is None:
                    flat_cols = [np.zeros((td.size, c.size), c.dtype) for c in cols]
                for j, c in zip(flat_cols, cols):
                    j[e] = c
            if flat_cols is None:  # empty input
                outs = _as_tuple(func(*duals))
                flat_cols = [np.zeros((0, outs[k]._data.size), outs[k]._data.dtype)
                             for k in output_idx]
            result.append(flat_cols)
    return result
