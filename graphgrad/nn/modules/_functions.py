"""Autograd Functions used by nn.Module's machinery (defined with BackwardHook, which
routes a module's tensors through them)."""
from ...utils._module_hooks import BackwardHookFunction  # noqa: F401

__all__ = ["BackwardHookFunction"]
