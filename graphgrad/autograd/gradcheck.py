"""Numerical gradient checking (seeds 001/004): ``gradcheck`` and ``gradgradcheck``.

``gradcheck(func, inputs)`` compares, for every input that requires grad and
every output, the Jacobian computed by central finite differences

    J_num[e, :] = (f(x + eps e) - f(x - eps e)) / (2 eps)

with the Jacobian autograd gives: by backward (one VJP per output element,
the rows of the identity as cotangents) and, with ``check_forward_ad=True``,
by forward-mode AD (one JVP per input element).  Both are laid out as
``(input.numel(), output.numel())``, PyTorch's layout.  ``fast_mode=True``
compares a single number per (input, output) pair instead, ``v^T J u`` for
random unit vectors ``u`` and ``v`` (PyTorch's own: a default-seeded generator,
two vectors for a complex input, atol scaled by their sums), and recomputes the
full Jacobians only to explain a failure.

Complex numbers follow PyTorch's convention (Wirtinger calculus): a complex
output is checked as two real functions, its real part and its imaginary
part; for a complex input both a real and an imaginary perturbation are
taken and combined into ``ds/dx + 1j * ds/dy``, which is what backward
returns for a real function of a complex input.  In forward mode complex
inputs are split instead (their real and imaginary parts are checked as
separate real inputs).

A failure raises ``GradcheckError`` (a RuntimeError) whose message shows both
Jacobians and where they differ; with ``raise_exception=False`` the function
returns False instead (other errors, such as bad arguments, still raise).

Besides the Jacobians, gradcheck checks (as PyTorch does) that backward is
deterministic (``nondet_tol``), that a zero cotangent gives zero gradients,
that undefined (None) output gradients are handled, the gradients' dtypes
(``check_grad_dtypes``), batched gradients (``check_batched_grad``:
``autograd.grad(..., is_grads_batched=True)`` against a loop) and batched
tangents (``check_batched_forward_grad``: a batched dual level against a loop
of forward passes).

The module ``graphgrad.autograd.gradcheck`` is shadowed on the package by the
function of the same name (as in PyTorch); ``from graphgrad.autograd.gradcheck
import GradcheckError`` works through ``sys.modules``.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _tensor as _T   # partially initialised when this module loads: use at call time
from .graph import Node, next_sequence_nr

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian",
           "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


def _wrap(data):
    return _T.Tensor._wrap(data)


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
    from . import grad as _grad
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
    from . import forward_ad as fwAD
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


# ====================================================================== complex splitting
def _real(t):
    import graphgrad
    return graphgrad.real(t)


def _imag(t):
    import graphgrad
    fn = getattr(graphgrad, "imag", None)
    if fn is not None:
        return fn(t)
    return graphgrad.real(t * -1j)   # no imag op yet: Im z = Re(-i z)


def _real_and_imag_output(fn):
    def apply(part):
        def wrapped(*inputs):
            outs = _as_tuple(fn(*inputs))
            return tuple(part(o) if _is_tensor(o) and o._data.dtype.kind == "c" else o
                         for o in outs)
        return wrapped
    return apply(_real), apply(_imag)


def _real_and_imag_input(fn, complex_idx, inputs):
    """Functions of the real part (imaginary part fixed) and of the imaginary part (real
    part fixed) of the complex inputs."""
    def apply(combine):
        def wrapped(*args):
            new = list(args)
            for i in complex_idx:
                new[i] = combine(new[i], inputs[i])
            return _as_tuple(fn(*new))
        return wrapped
    real_fn = apply(lambda x, orig: x + _wrap(np.array(orig._data.imag)) * 1j)
    imag_fn = apply(lambda x, orig: _wrap(np.array(orig._data.real)) + x * 1j)
    return real_fn, imag_fn


def _part_inputs(inputs, complex_idx, part):
    res = list(inputs)
    for i in complex_idx:
        x = inputs[i]
        d = np.array(x._data.real if part == "real" else x._data.imag)
        res[i] = _wrap(d).requires_grad_(x._requires_grad)
    return tuple(res)


# ====================================================================== slow / fast checks
def _slow_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                nondet_tol, use_forward_ad=False, complex_indices=None, test_imag=False):
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, inputs, func_out, eps,
                                                is_forward_ad=use_forward_ad)
    numerical = _numerical_jacobian(func, inputs, func_out, eps, is_forward_ad=use_forward_ad)
    diff_out = [k for k, o in enumerate(func_out) if o._requires_grad]
    # numerical[input][output] -> per output, per input
    numerical = [[numerical[j][k] for j in range(len(numerical))] for k in diff_out]
    if use_forward_ad:
        analytical = _forward_ad_jacobian(func, inputs, diff_out, check_grad_dtypes)
        for i, n_per_out in enumerate(numerical):
            for j, n in enumerate(n_per_out):
                a = analytical[j][i]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_notallclose_msg(
                        a, n, i, j, complex_indices, test_imag, is_forward_ad=True, rtol=rtol,
                        atol=atol))
    else:
        diff_inputs = list(_iter_tensors(inputs, True))
        for i, o in enumerate(outputs):
            analytical = _checked_analytical(o, diff_inputs, nondet_tol, check_grad_dtypes)
            for j, (a, n) in enumerate(zip(analytical, numerical[i])):
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag,
                                                          rtol=rtol, atol=atol))
    return True


def _check_no_differentiable_outputs(func, inputs, func_out, eps, is_forward_ad=False):
    for per_input in _numerical_jacobian(func, inputs, func_out, eps,
                                         is_forward_ad=is_forward_ad):
        for jac in per_input:
            if np.any(jac != 0):
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _random_unit(rng, n, dtype=np.float64):
    v = rng.random(n)
    norm = np.linalg.norm(v)
    if norm > 0:
        v = v / norm
    return v.astype(np.result_type(dtype, np.float64) if np.dtype(dtype).kind == "c"
                    else dtype)


class _TorchCPURandom:
    """The random vectors of PyTorch's fast gradcheck, drawn the same way: a fresh
    ``torch.Generator()`` (MT19937 seeded with PyTorch's default seed) and ``torch.rand``
    in the default dtype, so fast mode passes and fails where PyTorch's does."""

    SEED = 67280421310721  # PyTorch's default_rng_seed_val

    def __init__(self):
        # NumPy's legacy RandomState seeds MT19937 as PyTorch does (init_genrand with the
        # low 32 bits) and, for the full uint32 range, hands out its raw 32-bit outputs
        self._rs = np.random.RandomState(self.SEED & 0xFFFFFFFF)

    def _raw(self, n):
        return self._rs.randint(0, 2 ** 32, size=n, dtype=np.uint64)

    def rand(self, n):
        from .._dtype import get_default_dtype
        if str(get_default_dtype()).endswith("float64"):
            r = self._raw(2 * n)  # random64(): the first draw is the high word
            r64 = (r[0::2] << np.uint64(32)) | r[1::2]
            return (r64 & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
        r = self._raw(n)
        return ((r & np.uint64((1 << 24) - 1)).astype(np.float64) * 2.0 ** -24).astype(
            np.float32)

    def unit(self, n, dtype):
        """``rand(n)`` cast to ``dtype`` and divided by its norm."""
        v = self.rand(n).astype(dtype)
        if n:
            v = v / np.sqrt(np.sum(v * v))
        return v


def _adjusted_atol(atol, u, v):
    """The atol for ``v^T J u``: the elementwise atol times ``sum(v) * sum(u)`` (an all-atol
    matrix seen through the same vectors).  A complex input has two vectors (real and
    imaginary perturbations), so its factor is ``sum(u_re) + sum(u_im)``."""
    sum_u = float(np.sum(u[0])) + float(np.sum(u[1])) if isinstance(u, tuple) \
        else float(np.sum(u))
    return atol * sum_u * (1.0 if v is None else float(np.sum(v)))


def _fast_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                nondet_tol, use_forward_ad=False, complex_indices=None, test_imag=False):
    """Compare v^T J u (backward mode: one number per input/output pair) or J u (forward
    mode) for random unit vectors u, v instead of full Jacobians.  A complex input has a
    vector for its real and one for its imaginary perturbation: v^T J u is then
    ``Re(v^T J) . u_re + i Im(v^T J) . u_im`` on both sides."""
    func_out = _as_tuple(func_out)
    gen = _TorchCPURandom()
    diff_idx = [i for i, x in enumerate(inputs) if _is_tensor(x) and x._requires_grad]
    us = []
    for i in diff_idx:
        d = inputs[i]._data
        if d.dtype.kind == "c":
            rd = _real_dtype(d.dtype)
            ur = gen.unit(d.size, rd)
            us.append((ur, gen.unit(d.size, rd)))
        else:
            us.append(gen.unit(d.size, d.dtype if d.dtype.kind == "f" else np.float64))
    diff_out = [k for k, o in enumerate(func_out) if o._requires_grad]
    # backward mode compares v^T J u (a number); forward mode J u (a vector per output)
    vs = None if use_forward_ad else [gen.unit(o._data.size, o._data.dtype)
                                      for o in outputs]

    def numerical_ju(n):
        data = inputs[diff_idx[n]]._data
        u = us[n]
        if isinstance(u, tuple):  # conjugate Wirtinger: ds/dx + i ds/dy
            dx = _central_difference(func, inputs, data, None, eps * u[0].reshape(data.shape),
                                     eps)
            dy = _central_difference(func, inputs, data, None,
                                     eps * 1j * u[1].reshape(data.shape), eps)
            return [x + 1j * y for x, y in zip(dx, dy)]
        return _central_difference(func, inputs, data, None, eps * u.reshape(data.shape), eps)

    if not outputs:
        for n in range(len(diff_idx)):
            for c in numerical_ju(n):
                if c.size and float(np.max(np.abs(c))) > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = []
    for n in range(len(diff_idx)):
        cols = numerical_ju(n)
        if use_forward_ad:
            numerical.append([cols[k] for k in diff_out])
        else:
            numerical.append([np.sum(v * cols[k]) for k, v in zip(diff_out, vs)])
    if use_forward_ad:
        analytical = _forward_ad_jacobian(func, inputs, diff_out, check_grad_dtypes,
                                          directions=us)
    else:
        diff_inputs = [inputs[i] for i in diff_idx]
        analytical = [[None] * len(diff_out) for _ in diff_idx]
        for m, o in enumerate(outputs):
            vjps = _checked_analytical(o, diff_inputs, nondet_tol, check_grad_dtypes, v=vs[m])
            for n, (g, u) in enumerate(zip(vjps, us)):
                if isinstance(u, tuple):
                    analytical[n][m] = np.dot(g.real, u[0]) + 1j * np.dot(g.imag, u[1])
                else:
                    analytical[n][m] = np.dot(g, u)
    for n in range(len(diff_idx)):
        for m in range(len(diff_out)):
            a, num = analytical[n][m], numerical[n][m]
            tol = _adjusted_atol(atol, us[n], None if vs is None else vs[m])
            if not _allclose(a, num, rtol, tol):
                msg = _notallclose_msg(a, num, m, n, complex_indices, test_imag,
                                       is_forward_ad=use_forward_ad)
                msg += _slow_mode_explanation(func, inputs, outputs, n, m, rtol, atol, eps,
                                              use_forward_ad)
                raise GradcheckError(msg)
    return True


def _slow_mode_explanation(func, inputs, outputs, input_idx, output_idx, rtol, atol, eps,
                           is_forward_ad):
    func_out = _as_tuple(func(*inputs))
    diff_out = [k for k, o in enumerate(func_out) if o._requires_grad]
    numerical = _numerical_jacobian(func, inputs, func_out, eps, is_forward_ad=is_forward_ad)
    n = numerical[input_idx][diff_out[output_idx]]
    if is_forward_ad:
        a = _forward_ad_jacobian(func, inputs, diff_out, False)[input_idx][output_idx]
    else:
        diff_inputs = list(_iter_tensors(inputs, True))
        a = _analytical_rows(outputs[output_idx], diff_inputs)[0][input_idx]
    diff = float(np.max(np.abs(a - n))) if a.size and a.shape == n.shape else 0.0
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are "
           "computed \nin fast mode (u^T J v for random unit vectors u and v). Below, we "
           "recompute numerical and analytical jacobians in slow mode:\n\n"
           f"Numerical:\n {_fmt(n)}\nAnalytical:\n{_fmt(a)}\n\n"
           f"The max per-element difference (slow mode) is: {diff}.\n"
           + _mismatch_details(a, n, rtol, atol))
    if _allclose(a, n, rtol, atol):
        msg += ("\nFast gradcheck failed but the element-wise differences are small: slow "
                "mode would have passed. Call gradcheck/gradgradcheck with fast_mode=False "
                "for this function.\n")
    return msg


# ====================================================================== other checks
def _check_inputs(inputs):
    any_req = False
    for idx, inp in enumerate(inputs):
        if _is_tensor(inp) and inp._requires_grad:
            if inp._data.dtype not in (np.float64, np.complex128):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not of "
                    "double precision floating point or complex. ", stacklevel=4)
            d = inp._data
            # (NumPy gives empty arrays zero strides: they overlap nothing)
            if d.size and not all(st > 0 or sz <= 1 for st, sz in zip(d.strides, d.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_req = True
    if not any_req:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    return True


def _check_outputs(outputs):
    for o in outputs:
        if not _is_tensor(o):
            raise TypeError(f"gradcheck expects the function to return Tensors, got "
                            f"{type(o).__name__}")


_BATCHED_MSG = (
    "gradcheck or gradgradcheck failed while testing batched gradient computation.\n"
    "This means that autograd.grad(..., is_grads_batched=True) (one backward with a leading\n"
    "batch dimension on the cotangents) disagrees with a loop of single backward calls, i.e.\n"
    "some backward formula does not handle extra leading batch dimensions of its gradient.\n"
    "If you only call backward with unbatched gradients, pass check_batched_grad=False.")


def _test_batched_grad(inputs, output, output_idx):
    from . import grad as _grad
    diff = list(_iter_tensors(inputs, True))
    rng = np.random.default_rng(1234 + output_idx)
    od = output._data

    def randn_like():
        r = rng.standard_normal(od.shape)
        if od.dtype.kind == "c":
            r = (r + 1j * rng.standard_normal(od.shape)) / np.sqrt(2)
        return r.astype(od.dtype)

    gos = [randn_like() for _ in range(2)]

    def materialize(res):
        return [np.zeros(x._data.shape, x._data.dtype) if g is None else np.array(g._data)
                for g, x in zip(res, diff)]

    expected = [materialize(_grad(output, diff, _wrap(g), retain_graph=True, allow_unused=True))
                for g in gos]
    expected = [np.stack(shards) for shards in zip(*expected)]
    try:
        res = _grad(output, diff, _wrap(np.stack(gos)), retain_graph=True, allow_unused=True,
                    is_grads_batched=True)
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n"
                             f"{_BATCHED_MSG}") from ex
    res = [np.zeros((2,) + x._data.shape, x._data.dtype) if g is None else np.asarray(g._data)
           for g, x in zip(res, diff)]
    for input_idx, (r, e) in enumerate(zip(res, expected)):
        if r.shape == e.shape and np.allclose(r, e, rtol=1e-5, atol=1e-8, equal_nan=True):
            continue
        raise GradcheckError(f"For output {output_idx} and input {input_idx}:\n\n"
                             f"{_BATCHED_MSG}\n\nGot:\n{_fmt(r)}\n\nExpected:\n{_fmt(e)}\n"
                             + _mismatch_details(r, e, 1e-5, 1e-8, layout=False))
    return True


_BATCHED_FW_MSG = (
    "gradcheck failed while testing batched gradient computation with forward-mode AD.\n"
    "This means that a batch of tangents pushed through the function at once (a leading\n"
    "batch dimension on every tangent, as functional.jacobian(strategy=\"forward-mode\")\n"
    "does) disagrees with a loop of single forward-mode passes, i.e. some op's batched JVP\n"
    "rule is wrong.  If you only use forward mode with unbatched tangents, pass\n"
    "check_batched_forward_grad=False.")


def _test_batched_forward_grad(func, inputs, B=2):
    """For each differentiable input: B random tangents pushed as one batch equal B
    unbatched forward-mode passes (the other inputs without a tangent)."""
    from . import forward_ad as fwAD
    diff = [i for i, x in enumerate(inputs) if _is_tensor(x) and x._requires_grad]
    rng = np.random.default_rng(4321)

    def tangents_of_outputs(duals):
        return [None if t is None else np.array(t._data) for t in
                (fwAD.unpack_dual(o).tangent for o in _as_tuple(func(*duals))
                 if _is_float_or_complex(o))]
    for input_idx in diff:
        x = inputs[input_idx]
        d = x._data
        tans = rng.standard_normal((B,) + d.shape)
        if d.dtype.kind == "c":
            tans = tans + 1j * rng.standard_normal((B,) + d.shape)
        tans = tans.astype(d.dtype)
        expected = []
        for b in range(B):
            with fwAD.dual_level():
                duals = list(inputs)
                duals[input_idx] = fwAD.make_dual(x.detach(), _wrap(tans[b].copy()))
                expected.append(tangents_of_outputs(duals))
        try:
            with fwAD._batched_dual_level(B):
                duals = list(inputs)
                duals[input_idx] = fwAD.make_dual(x.detach(), _wrap(tans))
                res = tangents_of_outputs(duals)
        except RuntimeError as ex:
            raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n"
                                 f"{_BATCHED_FW_MSG}") from ex
        for output_idx, r in enumerate(res):
            rows = [e[output_idx] for e in expected]
            if r is None and all(e is None for e in rows):
                continue
            shape = next(e.shape for e in rows if e is not None) if any(
                e is not None for e in rows) else r.shape[1:]
            e = np.stack([np.zeros(shape, d.dtype) if row is None else row for row in rows])
            r = np.zeros_like(e) if r is None else r
            if r.shape == e.shape and np.allclose(r, e, rtol=1e-5, atol=1e-8, equal_nan=True):
                continue
            raise GradcheckError(f"For output {output_idx} and input {input_idx}:\n\n"
                                 f"{_BATCHED_FW_MSG}\n\nGot:\n{_fmt(r)}\n\nExpected:\n"
                                 f"{_fmt(e)}\n"
                                 + _mismatch_details(r, e, 1e-5, 1e-8, layout=False))
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    from . import grad as _grad
    diff = list(_iter_tensors(inputs, True))
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = _grad(outputs, diff, [_wrap(np.zeros_like(o._data)) for o in outputs],
                  allow_unused=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if np.any(gi._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._data.dtype != di._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._data.shape != di._data.shape:
            raise GradcheckError("grad is incorrect size")
    return True


class UndefinedGradBackward(Node):
    """Turns any incoming gradient into None (PyTorch's UndefinedGrad node)."""

    __slots__ = ()

    def _apply(self, grads, mask, create_graph):
        return [None]

    apply = _apply


def _undefined_grad(o):
    """An alias of ``o`` whose backward hands the node of ``o`` an undefined gradient."""
    from .._ops.dispatch import _edge
    node = UndefinedGradBackward()
    node._seq = next_sequence_nr()
    node._next_edges = (_edge(o),)
    node._out_meta = ((o._data.shape, o._data.dtype),)
    out = _wrap(o._data)
    out._requires_grad = True
    out._grad_fn = node
    return out


_UNDEF_MSG = ("Please look at \"Notes about undefined output gradients\" in "
              "\"tools/autograd/derivatives.yaml\"")


def _test_undefined_backward_mode(func, outputs, inputs):
    from . import grad as _grad
    diff = list(_iter_tensors(inputs, True))
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature "
                      "is enabled by default, but it may break existing callers of this "
                      "function. If this is true for you, you can call this function with "
                      "\"check_undefined_grad=False\" to disable the feature")

    def check(outs):
        gos = [_wrap(np.zeros_like(o._data)) for o in outs]
        try:
            grads = _grad(outs, diff, gos, allow_unused=True)
        except RuntimeError as e:
            warn_bc()
            raise GradcheckError("Expected backward function to handle undefined output grads. "
                                 + _UNDEF_MSG) from e
        for gi in grads:
            if gi is not None and np.any(gi._data != 0):
                warn_bc()
                raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                     "output grads are undefined or zero. " + _UNDEF_MSG)
        return True

    to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(to_check[0]) > 1:
        for undef in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            to_check.append([_undefined_grad(o) if k == undef else o
                             for k, o in enumerate(outs)])
    return all(check(outs) for outs in to_check)


def _test_undefined_forward_mode(func, outputs, inputs):
    """A missing tangent must act like a zero tangent."""
    from . import forward_ad as fwAD
    diff = [i for i, x in enumerate(inputs) if _is_tensor(x) and x._requires_grad]
    rng = np.random.default_rng(7)
    with fwAD.dual_level():
        duals = list(inputs)
        for i in diff:
            x = inputs[i]
            u = _random_unit(rng, x._data.size).astype(x._data.dtype).reshape(x._data.shape)
            duals[i] = fwAD.make_dual(x.detach(), _wrap(u))
        for i in diff:
            keep = duals[i]
            x = inputs[i]
            duals[i] = fwAD.make_dual(x.detach(), _wrap(np.zeros_like(x._data)))
            outs1 = [o for o in _as_tuple(func(*duals)) if _is_float_or_complex(o)]
            duals[i] = x.detach()
            outs2 = [o for o in _as_tuple(func(*duals)) if _is_float_or_complex(o)]
            duals[i] = keep
            for k, (o1, o2) in enumerate(zip(outs1, outs2)):
                t1 = fwAD.unpack_dual(o1).tangent
                t2 = fwAD.unpack_dual(o2).tangent
                if t1 is None or t2 is None:
                    continue
                if not np.allclose(t1._data, t2._data, rtol=1e-5, atol=1e-8, equal_nan=True):
                    raise GradcheckError(
                        f"Mismatch in tangent values for output with index: {k} when input: "
                        f"{x!r} has an undefined tangent value.  Got: {t1!r} but expected: "
                        f"{t2!r}")
    return True


def _gradcheck_real_imag(check_fn, func, func_out, inputs, outputs, eps, rtol, atol,
                         check_grad_dtypes, check_forward_ad, check_backward_ad, nondet_tol,
                         check_undefined_grad):
    complex_out_idx = [i for i, o in enumerate(outputs) if o._data.dtype.kind == "c"]
    any_complex_out = any(_is_tensor(o) and o._data.dtype.kind == "c"
                          for o in _as_tuple(func_out))
    if check_backward_ad:
        if any_complex_out:
            real_fn, imag_fn = _real_and_imag_output(func)
            imag_out = imag_fn(*inputs)
            check_fn(imag_fn, imag_out, inputs, _differentiable_outputs(imag_out), eps, rtol,
                     atol, check_grad_dtypes, nondet_tol, complex_indices=complex_out_idx,
                     test_imag=True)
            real_out = real_fn(*inputs)
            check_fn(real_fn, real_out, inputs, _differentiable_outputs(real_out), eps, rtol,
                     atol, check_grad_dtypes, nondet_tol, complex_indices=complex_out_idx)
        else:
            check_fn(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                     nondet_tol)
    if check_forward_ad:
        complex_in_idx = [i for i, x in enumerate(inputs)
                          if _is_tensor(x) and x._data.dtype.kind == "c"]
        if complex_in_idx:
            real_fn, imag_fn = _real_and_imag_input(func, complex_in_idx, inputs)
            imag_inputs = _part_inputs(inputs, complex_in_idx, "imag")
            imag_out = imag_fn(*imag_inputs)
            check_fn(imag_fn, imag_out, imag_inputs, _differentiable_outputs(imag_out), eps,
                     rtol, atol, check_grad_dtypes, nondet_tol, use_forward_ad=True,
                     complex_indices=complex_in_idx, test_imag=True)
            real_inputs = _part_inputs(inputs, complex_in_idx, "real")
            real_out = real_fn(*real_inputs)
            check_fn(real_fn, real_out, real_inputs, _differentiable_outputs(real_out), eps,
                     rtol, atol, check_grad_dtypes, nondet_tol, use_forward_ad=True,
                     complex_indices=complex_in_idx)
            if check_undefined_grad:
                _test_undefined_forward_mode(imag_fn, imag_out, imag_inputs)
                _test_undefined_forward_mode(real_fn, real_out, real_inputs)
        else:
            check_fn(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                     nondet_tol, use_forward_ad=True)
            if check_undefined_grad:
                _test_undefined_forward_mode(func, outputs, inputs)


# ====================================================================== public API
def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    func: takes the inputs, returns a Tensor or a tuple of Tensors.
    inputs: a Tensor or a tuple (the ones with requires_grad=True are checked; use
        float64/complex128).
    eps, atol, rtol: finite-difference step and the tolerances of the comparison
        ``|analytical - numerical| <= atol + rtol * |numerical|``.
    raise_exception: raise GradcheckError on failure (else return False).
    nondet_tol: allowed difference between two backward runs with the same inputs.
    check_undefined_grad: backward must accept undefined (None) output gradients.
    check_grad_dtypes: the gradients' dtypes must match the inputs'.
    check_batched_grad: compare ``is_grads_batched=True`` with a loop of backward calls.
    check_batched_forward_grad: compare a batch of tangents pushed at once (a batched
        dual level, as functional.jacobian's forward mode uses) with a loop of forward passes.
    check_forward_ad / check_backward_ad: which AD modes to check.
    fast_mode: compare ``v^T J u`` for random unit vectors instead of full Jacobians.
    masked: accepted for compatibility (no sparse tensors).

    Returns True if all checks pass.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol,
                                 check_undefined_grad, check_grad_dtypes, check_batched_grad,
                                 check_forward_ad, check_backward_ad, fast_mode,
                                 check_batched_forward_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, check_batched_grad, check_forward_ad, check_backward_ad,
                      fast_mode, check_batched_forward_grad=False):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = func(*inputs)
    _check_outputs(_as_tuple(func_out))
    outputs = _differentiable_outputs(func_out)
    check_fn = _fast_check if fast_mode else _slow_check
    _gradcheck_real_imag(check_fn, func, func_out, inputs, outputs, eps, rtol, atol,
                         check_grad_dtypes, check_forward_ad, check_backward_ad, nondet_tol,
                         check_undefined_grad)
    if check_batched_forward_grad:
        _test_batched_forward_grad(func, inputs)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for i, o in enumerate(outputs):
            _test_batched_grad(inputs, o, i)
    if outputs:
        _test_backward_mul_by_grad_output(outputs, inputs)
    if check_undefined_grad and outputs:
        _test_undefined_backward_mode(func, outputs, inputs)
    return True


def _random_grad_output(x, noncontiguous):
    import graphgrad
    d = x._data
    dt = d.dtype if d.dtype.kind in "fc" else np.dtype(np.float64)
    rng = graphgrad._creation.rng()
    vals = rng.uniform(-1, 1, d.shape)
    if dt.kind == "c":
        vals = vals + 1j * rng.uniform(-1, 1, d.shape)
    vals = vals.astype(dt)
    if noncontiguous and d.size > 1:
        big = np.zeros(d.shape + (2,), dt)
        big[..., 0] = vals
        vals = big[..., 0]
    return _wrap(vals).requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of ``(inputs, grad_outputs) -> VJP of func``.

    grad_outputs: the cotangents of func's differentiable outputs (random uniform in
    [-1, 1), requiring grad, when omitted; non-contiguous with
    ``gen_non_contig_grad_outputs``).  check_rev_over_rev / check_fwd_over_rev: check the
    VJP with backward / with forward-mode AD.  The other arguments are gradcheck's.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be "
                             "True")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grads = tuple(_random_grad_output(o, gen_non_contig_grad_outputs) for o in outs)
    else:
        tupled_grads = _as_tuple(grad_outputs)
    n_out = len(tupled_grads)
    diff_in = {i for i, x in enumerate(tupled_inputs) if _is_tensor(x) and x._requires_grad}
    diff_go = {i for i, x in enumerate(tupled_grads) if x._requires_grad}

    def new_func(*args):
        from . import grad as _grad
        # gradcheck detaches inputs for forward AD: restore requires_grad
        input_args = tuple(x.requires_grad_() if i in diff_in else x
                           for i, x in enumerate(args[:len(args) - n_out]))
        outputs = _differentiable_outputs(func(*input_args))
        gos = tuple(x.requires_grad_() if i in diff_go else x
                    for i, x in enumerate(args[len(args) - n_out:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        grads = _grad(outputs, diff_args, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grads, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
