"""graphgrad.linalg: PyTorch's torch.linalg namespace (functions of ops/api/linalg.py)."""
from ..ops.registry import LINALG as _LINALG

globals().update(_LINALG)
