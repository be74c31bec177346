"""Copies and indexing ops: cat/stack, gather/scatter, index_select/index_add, masked ops,
advanced indexing and index_put_ (table entries and public functions)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from . import formulas as F
from .dispatch import dispatch, dispatch_inplace, unary
from .registry import LINEAR, defop, export
