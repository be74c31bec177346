"""The op table: one OpInfo per op, collected from one module per op family."""
from tests.ops.op_db import core

OP_DB = []
for _family in (core,):
    OP_DB.extend(_family.OPS)

_names = [op.name for op in OP_DB]
assert len(_names) == len(set(_names)), "duplicate OpInfo names"
