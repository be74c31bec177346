"""The op table: one OpInfo per op, collected from one module per op family."""
from tests.ops.op_db import (activation_more, core, extra, indexing, linalg, linalg_lu,
                             linalg_more, linalg_products, missing2, nn, nn_layers,
                             nn_loss_upsample, pointwise, pointwise_more, reductions, shape,
                             shape_more, special, stats)

OP_DB = []
for _family in (core, pointwise, reductions, linalg, shape, indexing, nn, extra, missing2,
                nn_layers, nn_loss_upsample, activation_more, special, stats, shape_more,
                linalg_products, pointwise_more, linalg_more, linalg_lu):
    OP_DB.extend(_family.OPS)
from tests.ops.op_db import nn_3d  # noqa: E402  (api3d branch)
OP_DB.extend(nn_3d.OPS)

# embedding_bag, local_response_norm, channel_shuffle (apinn branch)
from tests.ops.op_db import nn_apinn  # noqa: E402
OP_DB.extend(nn_apinn.OPS)

from tests.ops.op_db import fft as _fft_family, legacy as _legacy  # noqa: E402  (apifft)
OP_DB.extend(_fft_family.OPS + _legacy.OPS)

_names = [op.name for op in OP_DB]
_dups = sorted({n for n in _names if _names.count(n) > 1})
assert not _dups, f"duplicate OpInfo names: {_dups}"
