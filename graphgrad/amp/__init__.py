"""``graphgrad.amp``: mixed precision (PyTorch's ``torch.amp``)."""
# autocast (autocast_mode.py)
from .autocast_mode import (autocast, custom_bwd, custom_fwd,  # noqa: F401
                            is_autocast_available)

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
