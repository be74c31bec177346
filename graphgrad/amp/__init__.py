"""``graphgrad.amp``: mixed precision (PyTorch's ``torch.amp``): autocast
(``autocast_mode.py``) and the gradient scaler (``grad_scaler.py``)."""
from .autocast_mode import (autocast, custom_bwd, custom_fwd,  # noqa: F401
                            is_autocast_available)
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
