"""``graphgrad.save`` / ``graphgrad.load`` in PyTorch's file format.

A file is a zip archive (stored, not compressed) whose records all sit under one folder
(the file's stem, or ``archive`` for a file object), as ``torch.save`` writes them:

- ``data.pkl``: a pickle (protocol 2) of the object in which every tensor is
  ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  OrderedDict())`` and every storage a persistent id ``('storage', torch.<Type>Storage, key,
  'cpu', numel)``; a Parameter is ``torch._utils._rebuild_parameter(tensor, requires_grad,
  OrderedDict())``, dtypes are the globals ``torch.float32`` ..., devices ``torch.device``
  and sizes ``torch.Size``;
- ``data/<key>``: the raw bytes of each storage, 64-byte aligned in the file;
- ``byteorder``, ``version`` (3), ``.format_version``, ``.storage_alignment`` and
  ``.data/serialization_id``.

Tensors that view one NumPy buffer share one storage (their offsets and strides are
written), so views loaded back still share memory.  The pickle names PyTorch's functions
without importing torch, and ``load`` maps those names to graphgrad's, so files go both ways
between graphgrad and PyTorch and torch is never needed.

``load(weights_only=True)`` (the default, as in PyTorch) unpickles with an allow-list of
globals (containers, tensors, Parameters, dtypes, devices, sizes, storages and the tensor
rebuild functions; ``add_safe_globals`` adds more): any other global -- ``os.system``, a
class with a malicious ``__reduce__`` -- stops the load with ``pickle.UnpicklingError``
before anything is called.  ``weights_only=False`` unpickles arbitrary objects (only for
trusted files).

The writer (``save``, the pickler that names PyTorch's globals) is in ``_writer.py``; the
reader (``load``, the allow-listed unpickler, the rebuild functions and the safe-globals
registry) in ``_reader.py``.
"""
from __future__ import annotations

from ._reader import (add_safe_globals, clear_safe_globals, get_safe_globals,  # noqa: F401
                      load, safe_globals)
from ._writer import DEFAULT_PROTOCOL, save  # noqa: F401

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "DEFAULT_PROTOCOL"]
