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

import numpy as np

from .utils import GradcheckError, _wrap, _is_tensor, _as_tuple, _differentiable_outputs
from .modes import (_real_and_imag_output, _real_and_imag_input, _part_inputs, _slow_check,
                    _fast_check)
from .checks import (_check_inputs, _check_outputs, _test_batched_grad,
                     _test_batched_forward_grad, _test_backward_mul_by_grad_output,
                     _test_undefined_backward_mode, _test_undefined_forward_mode)

from .jacobians import get_analytical_jacobian, get_numerical_jacobian  # noqa: F401
from .. import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian",
           "get_analytical_jacobian"]


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
    rng = graphgrad._tensor.creation.rng()
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
