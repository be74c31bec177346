"""graphgrad.func: PyTorch's ``torch.func`` function transforms.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``, ``functional_call`` and ``stack_module_state``, with torch.func's signatures;
they compose (``jacfwd(jacrev(f))``, ``grad(grad(f))``, ``grad`` inside ``jvp``) and take
pytrees of Tensors -- or NumPy arrays, which come back as NumPy arrays.  HIPS autograd's
``elementwise_grad``, ``value_and_grad`` and ``jacobian`` (and ``argnum=``) are here too,
for HIPS programs.  See docs/func.md.
"""
from .eager_transforms import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp,  # noqa: F401
                               linearize, vjp)
from ..nn.utils.stateless import functional_call, stack_module_state  # noqa: F401
from .vmap import vmap  # noqa: F401,E402
# HIPS autograd's names (grad and hessian above take its argnum= too)
from .differential_operators import elementwise_grad, jacobian, value_and_grad  # noqa: F401,E402

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "functional_call", "stack_module_state", "vmap",
           "elementwise_grad", "value_and_grad", "jacobian"]
