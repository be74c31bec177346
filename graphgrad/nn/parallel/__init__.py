"""``graphgrad.nn.parallel``: PyTorch's data-parallel wrappers on a CPU-only machine."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
