"""``graphgrad.nn.parallel``: PyTorch's data-parallel wrappers on a CPU-only machine."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
