"""OpInfos of the linalg family (see tests/ops/opinfo.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401

OPS = []
