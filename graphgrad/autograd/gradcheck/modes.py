"""The slow (full Jacobian) and fast (random projections) checks, complex inputs and
outputs split into real and imaginary parts.
"""
from __future__ import annotations

import numpy as np

from .utils import (GradcheckError, _wrap, _is_tensor, _as_tuple, _iter_tensors, _real_dtype,
                    _fmt, _mismatch_details, _notallclose_msg, _allclose)
from .jacobians import (_central_difference, _numerical_jacobian, _analytical_rows,
                        _checked_analytical, _forward_ad_jacobian)
from ..._core.dtypes import get_default_dtype

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
