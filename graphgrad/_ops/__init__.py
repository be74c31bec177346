"""The op library: registry, dispatcher, derivative rules and public op functions.

Importing this package declares every op (each family module registers its
table entries and public functions on import) and then makes every op
reachable from the derivative rules as ``formulas.<name>``.
"""
from . import registry, dispatch, formulas  # noqa: F401
from . import pointwise, comparison, shape, reductions, linalg, inplace, conversion  # noqa: F401
from . import indexing  # noqa: F401
from . import median, misc_ops, scatter_reduce, storage  # noqa: F401

formulas.install(registry.OPS)
formulas._bind(registry.OPS)
