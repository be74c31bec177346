"""pad: nn.functional's entry to the padding ops (graphgrad/ops/api/padding.py)."""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ...ops.api.padding import pad as _pad


def pad(input, pad, mode="constant", value=None):
    """Pad (or crop, with negative widths) the trailing dims of ``input``.

    ``pad`` is ``(left, right)`` for the last dim, then for the dim before, ...; ``mode`` is
    ``'constant'`` (with ``value``, default 0), ``'reflect'``, ``'replicate'`` or
    ``'circular'``.  See graphgrad/ops/api/padding.py.
    """
    if mode in ("reflect", "replicate") and isinstance(input, Tensor) and \
            input._data.dtype == np.bool_ and len(pad) in (2, 4, 6):
        kernel = ("reflection" if mode == "reflect" else "replication") + f"_pad{len(pad) // 2}d"
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return _pad(input, pad, mode, value)
