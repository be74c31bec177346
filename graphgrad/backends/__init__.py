"""torch.backends: graphgrad has only the CPU (NumPy) backend; the accelerator backends
report themselves unavailable, as in a CPU-only PyTorch build."""
from __future__ import annotations

from . import cuda, mps  # noqa: F401

__all__ = ["cuda", "mps"]
