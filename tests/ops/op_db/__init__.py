"""The op table: one OpInfo per op, collected from one module per op family."""
from tests.ops.op_db import (core, extra, indexing, linalg, missing2, nn, nn_layers,
                             nn_loss_upsample, pointwise, reductions, shape)
from tests.ops.op_db import activation_more, special
from tests.ops.op_db import linalg_lu, linalg_more, linalg_products, pointwise_more  # ops-point

OP_DB = []
for _family in (core, pointwise, reductions, linalg, shape, indexing, nn, extra, missing2,
                nn_layers, nn_loss_upsample, activation_more, special):
    OP_DB.extend(_family.OPS)
from tests.ops.op_db import stats as _stats  # noqa: E402  (ops-reduce)
OP_DB.extend(_stats.OPS)

from tests.ops.op_db import shape_more  # noqa: E402  (ops-shape family)
OP_DB.extend(shape_more.OPS)
OP_DB.extend(linalg_products.OPS + pointwise_more.OPS + linalg_more.OPS  # ops-point
             + linalg_lu.OPS)

_names = [op.name for op in OP_DB]
_dups = sorted({n for n in _names if _names.count(n) > 1})
assert not _dups, f"duplicate OpInfo names: {_dups}"
