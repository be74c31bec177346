"""``graphgrad.cuda.amp``: PyTorch's CUDA mixed-precision names, which cannot work here.

graphgrad runs on NumPy, on the CPU only, so ``GradScaler`` and ``autocast`` raise a
RuntimeError naming the CPU equivalents instead of silently doing nothing.
"""
from __future__ import annotations

__all__ = ["GradScaler", "autocast"]


def _unavailable(name, instead):
    raise RuntimeError(
        f"graphgrad.cuda.amp.{name}: CUDA is not available (graphgrad runs on the CPU only). "
        f"Use {instead} instead.")


class GradScaler:
    """Raises: there is no CUDA device. Use ``graphgrad.amp.GradScaler("cpu", ...)``."""

    def __init__(self, *args, **kwargs):
        _unavailable("GradScaler", "graphgrad.amp.GradScaler('cpu', ...)")


class autocast:
    """Raises: there is no CUDA device. Use ``graphgrad.amp.autocast("cpu", ...)``."""

    def __init__(self, *args, **kwargs):
        _unavailable("autocast", "graphgrad.amp.autocast('cpu', dtype=graphgrad.bfloat16)")
