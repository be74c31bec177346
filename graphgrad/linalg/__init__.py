"""graphgrad.linalg: PyTorch's torch.linalg namespace (functions registered by _ops/linalg.py)."""
from .._ops.registry import LINALG as _LINALG

globals().update(_LINALG)
