"""``graphgrad.cpu.amp``: PyTorch's deprecated ``torch.cpu.amp`` names."""
from .autocast_mode import autocast  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler", "autocast"]
