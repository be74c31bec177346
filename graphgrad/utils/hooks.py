"""graphgrad.utils.hooks: PyTorch's torch.utils.hooks (RemovableHandle).

The implementation is in graphgrad/_core/hooks.py: the Tensor and the graph (lower layers)
return these handles.
"""
from .._core.hooks import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle"]
from ._module_hooks import BackwardHook  # noqa: E402,F401  (nn.Module's backward hooks)
