"""graphgrad.linalg: PyTorch's torch.linalg namespace (functions of ops/api/linalg.py and
ops/api/linalg_decompositions.py)."""
from ..ops.registry import LINALG as _LINALG

globals().update(_LINALG)
