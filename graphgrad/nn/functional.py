"""graphgrad.nn.functional: PyTorch's torch.nn.functional (table entries and functions)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .._ops import formulas as F
from .._ops.dispatch import binary, dispatch, unary
from .._ops.registry import LINEAR, ELEMENTWISE, defop
