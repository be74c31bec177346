"""graphgrad.func: PyTorch's ``torch.func`` function transforms.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``, ``functional_call`` and ``stack_module_state``, with torch.func's signatures;
they compose (``jacfwd(jacrev(f))``, ``grad(grad(f))``, ``grad`` inside ``jvp``) and take
pytrees of Tensors -- or NumPy arrays, which come back as NumPy arrays.  See docs/func.md.
"""
from .eager_transforms import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp,  # noqa: F401
                               linearize, vjp)
from ..nn.utils.stateless import functional_call, stack_module_state  # noqa: F401
from .vmap import vmap  # noqa: F401,E402

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "functional_call", "stack_module_state", "vmap"]
