"""Layer 5: public op functions and Tensor methods by family, each with its table entries.

Importing this package declares every op of these families (registry.OPS) and publishes
their functions (registry.PUBLIC, registry.METHODS).
"""
from . import pointwise, pointwise_unary, pointwise_binary  # noqa: F401
from . import comparison, shape, reductions, linalg, inplace, conversion  # noqa: F401
from . import indexing  # noqa: F401
from . import median, misc_ops, scatter_reduce, storage  # noqa: F401
