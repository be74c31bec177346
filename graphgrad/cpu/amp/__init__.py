"""``graphgrad.cpu.amp``: PyTorch's deprecated CPU mixed-precision aliases."""
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler"]
