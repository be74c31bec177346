"""HIPS autograd's names for the transforms: ``elementwise_grad``, ``value_and_grad`` and
``jacobian`` (``grad`` and ``hessian`` are torch.func's, which take HIPS's ``argnum=``
too), so that a HIPS autograd program runs with ``from graphgrad.func import grad,
jacobian, hessian, elementwise_grad, value_and_grad``.

Semantics are HIPS autograd's (``autograd/differential_operators.py``): ``argnum`` is an
int or a tuple/list of ints (then a tuple of results), keyword arguments go to the
function, NumPy arrays and scalars in give NumPy arrays and scalars out, and bad outputs
raise HIPS's ``TypeError``.  Each is built on torch.func's transforms (one backward pass
each; ``jacobian`` is ``jacrev``: one batched backward).
"""
from __future__ import annotations

import functools

import numpy as np

from .._tensor.tensor import Tensor
from ._pytree import tree_flatten
from .eager_transforms import grad, grad_and_value, jacrev

__all__ = ["elementwise_grad", "value_and_grad", "jacobian"]


def _hips_argnum(argnum, api):
    if isinstance(argnum, list):
        argnum = tuple(argnum)
    if isinstance(argnum, bool) or not isinstance(argnum, (int, tuple)):
        raise TypeError(f"{api}: argnum must be an int or a tuple/list of ints, got "
                        f"{type(argnum).__name__}")
    return argnum


def value_and_grad(fun, argnum=0):
    """HIPS autograd's ``value_and_grad(fun, argnum=0)(*args, **kwargs)`` -> ``(value,
    gradient)``: ``fun``'s value and its gradient with respect to the argument(s)
    ``argnum`` (note the order: torch.func's ``grad_and_value`` gives ``(gradient,
    value)``).  ``fun`` returns one element: a 0-d Tensor, or a Tensor of any shape with
    one element (its value keeps that shape)."""
    argnum = _hips_argnum(argnum, "value_and_grad")

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        shape = []

        def scalar_fun(*a, **k):
            out = fun(*a, **k)
            if isinstance(out, Tensor) and out.dim():
                if out.numel() != 1:
                    raise TypeError(
                        f"value_and_grad(f)(*args): f returned a Tensor of shape "
                        f"{tuple(out.shape)}; value_and_grad only applies to real "
                        "scalar-output functions (one element). Try jacobian or "
                        "elementwise_grad, or reduce the output (e.g. .sum()).")
                shape.append(tuple(out.shape))
                out = out.reshape(())
            return out

        g, value = grad_and_value(scalar_fun, argnum)(*args, **kwargs)
        if shape:
            value = value.reshape(shape[0])
        elif isinstance(value, np.ndarray):
            value = value[()]   # (a NumPy scalar, as NumPy's reductions give)
        return value, g
    return wrapper


def elementwise_grad(fun, argnum=0):
    """HIPS autograd's ``elementwise_grad(fun, argnum=0)``: the vector-Jacobian product
    with ones -- the sum of the Jacobian's rows, shaped like the argument(s) -- in one
    backward pass.  It is the derivative of each output element with respect to its own
    input element when ``fun`` is elementwise (the Jacobian is diagonal); otherwise it is
    the gradient of the sum of all outputs, as in HIPS.  ``fun`` may return a pytree of
    real Tensors (all of them are summed)."""
    argnum = _hips_argnum(argnum, "elementwise_grad")

    def total(*args, **kwargs):
        out = fun(*args, **kwargs)
        leaves = tree_flatten(out)[0]
        if not leaves:
            raise TypeError("elementwise_grad(f)(*args): f returned an empty structure; "
                            "expected a Tensor or a pytree of Tensors")
        s = None
        for o in leaves:
            if not isinstance(o, Tensor):
                raise TypeError(f"elementwise_grad(f)(*args): f returned {type(o).__name__}; "
                                "expected Tensors (compute f with graphgrad ops so that its "
                                "output depends on the argument)")
            if o.is_complex():
                raise TypeError("elementwise_grad(f)(*args): Elementwise_grad only applies to "
                                f"real-output functions, f returned a {o.dtype} Tensor. "
                                "Differentiate its real part (.real) instead.")
            s = o.sum() if s is None else s + o.sum()
        return s

    return functools.wraps(fun)(grad(total, argnum))


def jacobian(fun, argnum=0):
    """HIPS autograd's ``jacobian(fun, argnum=0)(*args, **kwargs)``: the Jacobian of
    ``fun`` with respect to the argument ``argnum``, shaped ``out.shape + in.shape``
    (``jacrev``: one batched backward).  A tuple ``argnum`` gives one Jacobian per
    argument, a pytree output a pytree of Jacobians (as ``jacrev``)."""
    argnum = _hips_argnum(argnum, "jacobian")

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        f = functools.partial(fun, **kwargs) if kwargs else fun
        return jacrev(f, argnum)(*args)
    return wrapper

