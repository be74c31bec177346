"""gradcheck's further checks: inputs and outputs, batched gradients, backward linear in
the gradient, undefined output gradients.
"""
from __future__ import annotations

import warnings
import numpy as np

from ..graph import Node, next_sequence_nr
from .utils import (GradcheckError, _wrap, _is_tensor, _as_tuple, _iter_tensors,
                    _differentiable_outputs, _is_float_or_complex, _fmt, _mismatch_details)
from .modes import _random_unit
from .. import grad as _grad
from .. import forward_ad as fwAD
from ..views import _edge

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
