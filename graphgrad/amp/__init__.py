"""``graphgrad.amp``: mixed-precision training tools (PyTorch's ``torch.amp``).

``GradScaler`` lives in ``grad_scaler.py``; autocast (``autocast_mode.py``) is added next
to it.
"""
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler"]
