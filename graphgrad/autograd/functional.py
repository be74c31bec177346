"""Higher-level autograd (seed 004): jacobian, hessian, vjp, jvp, vhp, hvp.

Each function takes a user function of Tensors and the point (a Tensor or a
tuple of Tensors) and returns results with PyTorch's structure: a Tensor
where PyTorch gives a Tensor, tuples (nested for several inputs and
outputs) where PyTorch gives tuples -- lists for forward-mode jacobians, as
PyTorch does.

How they are computed:

- ``vjp``: one backward.  ``jvp`` and ``hvp``: the double-backward trick
  (the VJP is linear in its cotangent, so differentiating it with respect to
  the cotangent gives J v), like PyTorch.  ``vhp``: a double backward.
- ``jacobian(vectorize=False)``: one backward per output element, exactly
  the naive loop -- it works for any backward function.
- ``jacobian(vectorize=True)`` (reverse mode): ONE batched backward.  The
  cotangents are the rows of the identity matrix over all output elements,
  given as a leading batch dimension (``autograd.grad(...,
  is_grads_batched=True)``); every op's VJP accepts leading batch dims, so
  no vmap is needed.
- ``jacobian(strategy="forward-mode", vectorize=True)``: ONE forward pass.
  The tangents are the rows of the identity over all input elements, given
  as a leading batch dimension of every input's tangent (a batched dual
  level, ``forward_ad._batched_dual_level``); every op's JVP takes batched
  tangents (``batched_jvp`` in the op table), so ``func`` runs once and
  each output's ``(N, *out_shape)`` tangent holds its Jacobian columns --
  PyTorch gets the same by vmapping its JVP.
- ``hessian``: the jacobian of the (create_graph) gradient, so with
  ``vectorize=True`` it is one backward with create_graph plus one batched
  backward through that graph; with ``outer_jacobian_strategy=
  "forward-mode"`` (forward-over-reverse) it is that one create_graph
  backward run once under the batched dual level.
"""
from __future__ import annotations

import numpy as np

from .._tensor import tensor as _T
from .._tensor.tensor import Tensor
from .._core.state import grad_mode_set, tls
from . import grad as _grad
from . import forward_ad as fwAD
from .. import autograd as _autograd
from .engine import execute
from .views import _edge

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]



_wrap = Tensor._wrap


# ----------------------------------------------------------------- utilities
def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """``(was_tuple, tuple_of_tensors)``, raising PyTorch's TypeError for anything else."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, _T.Tensor):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                                f"tuple of Tensors but the value at index {i} has type "
                                f"{type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the given {arg_name} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undo the tupling of inputs/outputs: ``to_unpack`` is a flag or (outputs, inputs) flags."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh inputs to differentiate with respect to.

    With ``create_graph`` an input that already requires grad keeps its history (through a
    view, so that nothing accumulates into the user's leaves); otherwise it is detached and
    made to require grad when ``need_graph``.
    """
    res = []
    for inp in inputs:
        if create_graph and inp._requires_grad:
            res.append(inp.view_as(inp))
        else:
            d = inp.detach()
            if need_graph:
                d.requires_grad_(True)
            res.append(d)
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    """Detach results unless the user asked for a graph (``create_graph=True``); recurses
    into nested tuples."""
    if isinstance(inputs[0], _T.Tensor):
        if create_graph:
            return tuple(inputs)
        return tuple(x.detach() for x in inputs)
    return tuple(_grad_postprocess(x, create_graph) for x in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v._data.shape != el_other._data.shape:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got "
                               f"{el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    """In strict mode, complain about results that do not depend on the inputs."""
    if not strict:
        return
    if input_type not in ("outputs", "grad_inputs", "jacobian", "hessian"):
        raise RuntimeError(f"Invalid input_type to _check_requires_grad: {input_type}")
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp._requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    f"The hessian of the user-provided function with respect to input {i} is "
                    "independent of the input. This is not allowed in strict mode. You should "
                    "ensure that your function is thrice differentiable and that the hessian "
                    "depends on the inputs.")
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided "
                    f"function with respect to input {i} is independent of the input. This is "
                    "not allowed in strict mode. You should ensure that your function is twice "
                    "differentiable and that the jacobian depends on the inputs (this would be "
                    "violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode.")
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
                   is_grads_batched=False):
    """``autograd.grad`` over the outputs that require grad; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grads = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out._requires_grad:
            new_outputs.append(out)
            new_grads.append(g)
    if not new_outputs:
        return (None,) * len(inputs)
    return _grad(new_outputs, inputs, new_grads, allow_unused=True, create_graph=create_graph,
                 retain_graph=retain_graph, is_grads_batched=is_grads_batched)


_STAGE_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Replace None gradients by zeros shaped like ``refs`` (or raise in strict mode)."""
    if stage not in _STAGE_ERRORS:
        raise RuntimeError(f"Invalid stage argument '{stage}' to _fill_in_zeros")
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STAGE_ERRORS[stage].format(i=i))
            g = _wrap(np.zeros_like(refs[i]._data))
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


class _grad_mode:
    """Set grad mode for a block (cheaper than the public context managers): on the
    thread's attribute dict (NOTE [thread dict]), written only where the mode differs."""

    __slots__ = ("mode", "prev", "d")

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        d = self.d = tls.__dict__
        prev = self.prev = d.get("_grad_enabled", True)
        if prev != self.mode:
            grad_mode_set(d, self.mode)

    def __exit__(self, *exc):
        d = self.d
        if d.get("_grad_enabled", True) != self.prev:  # (also if the block changed it)
            grad_mode_set(d, self.prev)


def _zeros_requiring_grad(t):
    z = _wrap(np.zeros_like(t._data))
    z._requires_grad = True
    return z


# ----------------------------------------------------------------- vjp / jvp
def _product_result(outputs, res, create_graph, is_outputs_tuple, is_res_tuple):
    """What vjp/jvp/vhp/hvp return: ``(outputs, product)`` in the caller's structures."""
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(res, is_res_tuple))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    v: cotangent(s) shaped like the outputs; may be omitted when func returns one element.
    create_graph: make the results differentiable.  strict: raise when an output does not
    depend on the inputs instead of returning zeros.
    """
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0]._data.size != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with _grad_mode(True if create_graph else tls.grad_enabled):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return _product_result(outputs, res, create_graph, is_outputs_tuple, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``.

    Computed with the double-backward trick, like PyTorch: the VJP ``u -> J^T u`` is linear
    in ``u``, and its gradient with respect to ``u`` along ``v`` is ``J v``.
    """
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0]._data.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # the value of the cotangent does not matter (the VJP is linear in it): zeros
        grad_outputs = tuple(_zeros_requiring_grad(out) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return _product_result(outputs, res, create_graph, is_outputs_tuple, is_outputs_tuple)


# ----------------------------------------------------------------- jacobian
def _standard_basis(tensors, numels):
    """Cotangents/tangents for all elements at once: one (total, *shape) block per tensor,
    the blocks together forming the identity matrix over the concatenated elements."""
    total = sum(numels)
    out = []
    off = 0
    for t, n in zip(tensors, numels):
        d = t._data
        block = np.zeros((total, n), dtype=d.dtype)
        if n:  # the ones at (off + j, j): every (n + 1)-th element of the flat block
            start = off * n
            block.reshape(-1)[start:start + (n - 1) * (n + 1) + 1:n + 1] = 1
        out.append(block.reshape((total,) + d.shape))
        off += n
    return out


def _stack(tensors, shape):
    """``stack(tensors).view(shape)``, differentiable (the loop jacobian with create_graph)."""
    import graphgrad
    if not tensors:  # an empty output: PyTorch's loop fails in stack() too
        raise RuntimeError("stack expects a non-empty TensorList")
    if len(tensors) == 1:
        return tensors[0].view(shape)
    if not any(t._requires_grad for t in tensors):
        return _wrap(np.stack([t._data for t in tensors]).reshape(shape))
    return graphgrad.stack(tensors, 0).view(shape)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Returns a Tensor when func has one input and one output; a tuple over inputs (or over
    outputs) when one of them is a tuple; a tuple (over outputs) of tuples (over inputs)
    when both are.  Entry ``[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``.

    vectorize=True computes everything in one batched backward (reverse mode) or in one
    forward pass with batched tangents (``strategy="forward-mode"``, which requires
    vectorize=True).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "graphgrad.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)

    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "graphgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                    "are not supported together. Please either set `strict=False` or "
                    "`vectorize=False`.")
            res = _jacrev_batched(outputs, inputs, create_graph)
        else:
            res = _jacrev_loop(outputs, inputs, create_graph, strict)
            res = tuple(_grad_postprocess(r, create_graph) for r in res)
        return _tuple_postprocess(res, (is_outputs_tuple, is_inputs_tuple))


def _jacrev_batched(outputs, inputs, create_graph):
    """All rows of the Jacobian in one backward: the identity's rows as a batch of
    cotangents (``is_grads_batched``).  The blocks are final: fresh Tensors that need no
    detaching (without create_graph they carry no history)."""
    numels = [o._data.size for o in outputs]
    basis = _standard_basis(outputs, numels)
    diff = [k for k, o in enumerate(outputs) if o._requires_grad]
    if not diff:
        vj = (None,) * len(inputs)
    elif _autograd.vmap_grad_hook is not None:  # (inside vmap: what grad() does there)
        vj = _grad([outputs[k] for k in diff], inputs, [_wrap(basis[k]) for k in diff],
                   create_graph=create_graph, allow_unused=True, is_grads_batched=True)
    else:
        vj = _batched_vjp([outputs[k] for k in diff], inputs, [basis[k] for k in diff],
                          create_graph)
    # split each input's (total, *in_shape) block by output rows
    single = len(outputs) == 1
    per_input = []
    for g, inp in zip(vj, inputs):
        ishape = inp._data.shape
        row = []
        off = 0
        for o, n in zip(outputs, numels):
            shape = o._data.shape + ishape
            if g is None:
                row.append(_wrap(np.zeros(shape, inp._data.dtype)))
            elif not isinstance(g, Tensor):  # (the engine's ndarray)
                d = g if single else g[off:off + n]
                row.append(_wrap(d.reshape(shape)))
            elif g._requires_grad:  # (create_graph)
                part = (g if single else g[off:off + n]).view(shape)
                row.append(part if create_graph else part.detach())
            else:
                d = g._data if single else g._data[off:off + n]
                row.append(_wrap(d.reshape(shape)))
            off += n
        per_input.append(row)
    return tuple(zip(*per_input))


def _batched_vjp(outputs, inputs, seeds, create_graph):
    """``autograd.grad(outputs, inputs, seeds, allow_unused=True, is_grads_batched=True)``
    for ``_jacrev_batched``, whose arguments are what grad() would check them to be:
    Tensors that require grad (the outputs, which reach the inputs' fresh leaves or
    views), ``seeds`` ndarrays shaped ``(total,) + output shape`` of their dtypes.  The
    gradients as the engine gives them: an ndarray (a Tensor under create_graph) or None
    per input."""
    if create_graph:
        seeds = [_wrap(s) for s in seeds]
    return execute([_edge(o) for o in outputs], seeds, create_graph, create_graph,
                   inputs=[_edge(t) for t in inputs], accumulate=False, batch_nd=1)


def _jacrev_loop(outputs, inputs, create_graph, strict):
    """One backward per output element (works for any backward function)."""
    res = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        n = out._data.size
        flat = None
        for j in range(n):
            if n == 1:
                target = out
                seed = (_wrap(np.ones_like(out._data)),) if out._requires_grad else None
            else:
                if flat is None:
                    flat = out.reshape(-1)
                target = flat[j]
                seed = None
            vj = _autograd_grad((target,), inputs, seed, retain_graph=True,
                                create_graph=create_graph)
            for k, (g, inp) in enumerate(zip(vj, inputs)):
                if g is not None:
                    if strict and create_graph and not g._requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of input "
                            f"{i}. This is not allowed in strict mode when create_graph=True.")
                    rows[k].append(g)
                else:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input "
                            f"{k}. This is not allowed in strict mode.")
                    rows[k].append(_wrap(np.zeros_like(inp._data)))
        res.append(tuple(_stack(r, out._data.shape + inp._data.shape)
                         for r, inp in zip(rows, inputs)))
    return tuple(res)


def _jacfwd(func, inputs, strict=False, vectorize=False):
    """Forward-mode Jacobian in ONE forward pass: the one-hot tangents of all N input
    elements (the rows of the identity, as for the reverse-mode cotangents) are a leading
    batch dim of size N on every input's tangent (``forward_ad._batched_dual_level``), so
    ``func`` runs once and each output's tangent, ``(N, *out_shape)``, holds its Jacobian
    columns.  Returns lists, as PyTorch does."""
    if strict:
        raise RuntimeError(
            'graphgrad.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            'are not supported together (yet). Please either set `strict=False` or '
            '`strategy="reverse-mode"`.')
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian is only implemented for `vectorize=True`.")
    numels = [inp._data.size for inp in inputs]
    basis = _standard_basis(inputs, numels)
    with fwAD._batched_dual_level(sum(numels)):
        duals = tuple(fwAD.make_dual(inp, _wrap(b)) for inp, b in zip(inputs, basis))
        is_outputs_tuple, outs = _as_tuple(func(*duals), "outputs", "jacobian")
        tangents = [fwAD.unpack_dual(o).tangent for o in outs]
    res = []
    for o, tan in zip(outs, tangents):
        row = []
        off = 0
        for inp, n in zip(inputs, numels):
            row.append(_jacobian_block(tan, off, n, o._data, inp._data))
            off += n
        res.append(row)
    return _tuple_postprocess(res, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_block(tan, off, n, out_data, in_data):
    """The ``out_shape + in_shape`` Jacobian of one output with respect to one input: rows
    ``off:off + n`` of the output's batched tangent (one column per input element), with
    the batch dim moved last.  Zeros when the output has no tangent."""
    shape = out_data.shape + in_data.shape
    if tan is None:
        return _wrap(np.zeros(shape, out_data.dtype))
    if tan._requires_grad:   # forward-over-reverse: keep the tangent's graph
        part = tan if n == tan._data.shape[0] else tan[off:off + n]
        return part.movedim(0, -1).reshape(shape)
    part = np.moveaxis(tan._data[off:off + n], 0, -1)
    return _wrap(np.ascontiguousarray(part).reshape(shape))


# ----------------------------------------------------------------- hessian
def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function ``func`` at ``inputs``.

    A Tensor of shape ``inputs.shape * 2`` for one input; for a tuple of inputs a tuple of
    tuples, entry ``[i][j]`` of shape ``inputs[i].shape + inputs[j].shape``.  Computed as
    the jacobian of the gradient (with vectorize=True: one batched backward through the
    gradient's graph).
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, _T.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out._data.size != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze() if out._data.ndim else out

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# ----------------------------------------------------------------- vhp / hvp
def _scalar_function_checks(outputs, is_outputs_tuple, name):
    if is_outputs_tuple or not isinstance(outputs[0], _T.Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0]._data.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain "
                           "a single element")


def _first_derivative(func, inputs, v, create_graph, strict, name):
    """vhp/hvp's common start: check inputs and v, run ``func``, take its gradient
    with ``create_graph=True`` (call under grad mode)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0]._data.size != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                          name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _scalar_function_checks(outputs, is_outputs_tuple, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar function ``func``."""
    with _grad_mode(True):
        (is_inputs_tuple, inputs, v, is_outputs_tuple, outputs,
         jac) = _first_derivative(func, inputs, v, create_graph, strict, "vhp")
    with _grad_mode(True if create_graph else tls.grad_enabled):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return _product_result(outputs, res, create_graph, is_outputs_tuple, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar function ``func`` (double-backward trick)."""
    with _grad_mode(True):
        (is_inputs_tuple, inputs, v, is_outputs_tuple, outputs,
         jac) = _first_derivative(func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_zeros_requiring_grad(inp) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with _grad_mode(True if create_graph else tls.grad_enabled):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return _product_result(outputs, res, create_graph, is_outputs_tuple, is_inputs_tuple)
