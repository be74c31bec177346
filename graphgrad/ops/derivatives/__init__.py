"""Layer 4: the derivative table (PyTorch's derivatives.yaml), one module per op family.

The modules here hold only table entries and the named rule helpers they use, under
family banners (``# ==== <family>``); the NumPy kernels live in ``ops/kernels/`` and the
public functions (argument checks, then ``dispatch``/``unary``/``binary``) in ``ops/api/``,
which import their entries from here.  Importing a module declares its ops (registry.OPS).

Vocabulary (the same in every module)
-------------------------------------
An entry::

    NAME = defop("name.overload(self, other, *, attr)", kernel, "NameBackward0",
                 self=<VJP rule>, other=<VJP rule>, jvp=<JVP rule>, <properties>)

- signature: tensor inputs before ``*``, attributes after.  An input given a VJP rule is
  differentiable (its node gets an edge); an input without one is not (PyTorch's
  non-differentiable arguments, e.g. an index).  An op without any VJP records no node.
- a rule's *parameter names* say what it needs, and so what the node saves:
  ``grad``    the gradient of the (single) output;  ``grads`` those of all outputs;
  ``result``, ``result1``, ...  the forward outputs;
  ``self``, ``other``, ...      an input or attribute by its signature name;
  ``self_sym_sizes``            an input's shape only (the tensor is not saved);
  ``self_t``, ...               (JVP rules only) an input's tangent, zeros when absent.
- rules use operators and ``F.<op>`` (``ops/formulas.py``): they run on ndarrays in a plain
  backward and on Tensors (recorded) under ``create_graph=True`` and in forward mode.
  Complex rules follow PyTorch's convention ``grad * conj(f'(z))``.
- ``jvp=ELEMENTWISE``: the JVP is the single VJP applied to the tangent (diagonal Jacobian;
  derivatives.yaml's ``auto_element_wise``); ``jvp=LINEAR``: the op applied to the tangents
  (``auto_linear``); else a rule.
- ``ZERO`` (below): the VJP of a piecewise-constant input (floor, sign, ...): zeros of the
  gradient's shape, derivatives.yaml's ``zeros_like(grad)``.
- properties: ``promote`` (True: PyTorch's result type; "float": also int -> float),
  ``is_view``, ``n_outputs``, ``nondiff_outputs``, ``check_inputs``, ``batched_jvp``
  (True / POINTWISE / a rule: how the JVP takes a batch of tangents), ``half_scalar_kernel``
  (float16/bfloat16 tensor with a Python float taken in float32).  See ``registry.defop``.
"""
from __future__ import annotations

from .. import formulas as F


def ZERO(grad):
    """The VJP of a piecewise-constant input: zeros (derivatives.yaml's ``zeros_like(grad)``)."""
    return F.zeros_like(grad)
