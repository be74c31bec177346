"""Named-tuple result types, mirroring ``torch.return_types``.

Ops that return several tensors return one of these: ``x.max(dim=1)`` gives
``return_types.max(values=..., indices=...)``, which unpacks like a tuple and
exposes its fields by name, as PyTorch's structseqs do.  Class names and field
order are PyTorch's.
"""
from __future__ import annotations

import threading
from collections import namedtuple

# (each class is made when its name is first read, by the module __getattr__ below: the
# 31 named tuples cost ~2 ms of ``import graphgrad``)
_FIELDS = {}
_MAKE_LOCK = threading.Lock()  # (two threads' first reads must get the same class)


def _make(name, fields):
    base = namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"graphgrad.return_types.{name}(\n{body})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                               "__module__": "graphgrad.return_types",
                               "n_fields": len(fields), "n_sequence_fields": len(fields),
                               "n_unnamed_fields": 0})
    cls.__qualname__ = name
    globals()[name] = cls
    return cls


for _name, _fields in [
    # reductions
    ("max", ("values", "indices")),
    ("min", ("values", "indices")),
    ("sort", ("values", "indices")),
    ("topk", ("values", "indices")),
    ("kthvalue", ("values", "indices")),
    ("median", ("values", "indices")),
    ("nanmedian", ("values", "indices")),
    ("mode", ("values", "indices")),
    ("cummax", ("values", "indices")),
    ("cummin", ("values", "indices")),
    ("aminmax", ("min", "max")),
    # pointwise
    ("frexp", ("mantissa", "exponent")),
    # linear algebra
    ("slogdet", ("sign", "logabsdet")),
    ("linalg_slogdet", ("sign", "logabsdet")),
    ("qr", ("Q", "R")),
    ("linalg_qr", ("Q", "R")),
    ("svd", ("U", "S", "V")),
    ("linalg_svd", ("U", "S", "Vh")),
    ("linalg_eigh", ("eigenvalues", "eigenvectors")),
    ("linalg_eig", ("eigenvalues", "eigenvectors")),
    ("linalg_inv_ex", ("inverse", "info")),
    ("linalg_cholesky_ex", ("L", "info")),
    ("linalg_solve_ex", ("result", "info")),
    ("linalg_lu_factor", ("LU", "pivots")),
    ("linalg_lu_factor_ex", ("LU", "pivots", "info")),   # ops-point
    ("linalg_ldl_factor", ("LD", "pivots")),   # ops-point
    ("linalg_ldl_factor_ex", ("LD", "pivots", "info")),   # ops-point
    ("linalg_lu", ("P", "L", "U")),
    ("lu_unpack", ("P", "L", "U")),
    ("linalg_lstsq", ("solution", "residuals", "rank", "singular_values")),
    ("triangular_solve", ("solution", "cloned_coefficient")),
    ("histogram", ("hist", "bin_edges")),
    ("histogramdd", ("hist", "bin_edges")),
]:
    _FIELDS[_name] = _fields

del _name, _fields

__all__ = list(_FIELDS)


def __getattr__(name):
    fields = _FIELDS.get(name)
    if fields is None:
        raise AttributeError(f"module 'graphgrad.return_types' has no attribute {name!r}")
    with _MAKE_LOCK:
        cls = globals().get(name)
        return cls if cls is not None else _make(name, fields)


def __dir__():
    return sorted(set(globals()) | set(_FIELDS))
