"""Saved-tensor hooks (seed 004 "saved tensors"), exported from graphgrad.autograd.graph.

- ``saved_tensors_hooks(pack, unpack)``: every tensor saved for backward while
  the context is active (by built-in ops and custom Functions) is passed to
  ``pack``; backward gets ``unpack(packed)`` instead.  The innermost pair wins.
- ``save_on_cpu``: PyTorch moves saved tensors to CPU memory; graphgrad lives
  on the CPU already, so the pair is the identity (kept for API parity).
- ``disable_saved_tensors_hooks(msg)``: registering hooks inside raises ``msg``.
- ``allow_mutation_on_saved_tensors()``: a saved tensor modified in place
  inside the context is cloned first, so backward still sees the saved value.
"""
from __future__ import annotations

import numpy as np

from .._state import tls
from .saved import VersionCounter


class saved_tensors_hooks:
    """Context manager installing a pack/unpack hook pair for saved tensors."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    # A stack, as PyTorch's: entering pushes this pair, leaving pops the innermost pair
    # (whichever context pushed it).  A backward restores the stack it started with, so
    # hooks that enter or leave a context while unpacking do not outlive it.
    def __enter__(self):
        if tls.saved_hooks_disabled:
            raise RuntimeError(tls.saved_hooks_disabled)
        tls.saved_hooks = tls.saved_hooks + ((self.pack_hook, self.unpack_hook),)
        tls.refresh()
        return self

    def __exit__(self, *exc):
        tls.saved_hooks = tls.saved_hooks[:-1]
        tls.refresh()


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors in CPU memory (already the case in graphgrad: identity hooks)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t, lambda t: t)


class disable_saved_tensors_hooks:
    """Inside this context, installing saved-tensor hooks raises ``error_message``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._prev = tls.saved_hooks_disabled
        tls.saved_hooks_disabled = self.error_message
        tls.refresh()
        return self

    def __exit__(self, *exc):
        tls.saved_hooks_disabled = self._prev
        tls.refresh()


class allow_mutation_on_saved_tensors:
    """Clone saved tensors that are about to be modified in place, so backward still works."""

    def __enter__(self):
        self._prev = tls.mutation_ctx
        self.saved = []  # SavedVariables created inside the context
        tls.mutation_ctx = self
        tls.refresh()
        return self

    def __exit__(self, *exc):
        tls.mutation_ctx = self._prev
        tls.refresh()


def note_saved(sv):
    """Called for each SavedVariable created while allow_mutation_on_saved_tensors is on."""
    ctx = tls.mutation_ctx
    if ctx is not None and sv.data is not None:
        ctx.saved.append(sv)


def before_inplace(tensor):
    """Clone the saved copies of ``tensor``'s memory before an in-place op overwrites it."""
    ctx = tls.mutation_ctx
    if ctx is None:
        return
    target = tensor._data
    for sv in ctx.saved:
        d = sv.data
        if d is None or not np.shares_memory(d, target):
            continue
        sv.data = d.copy()
        sv.vc = VersionCounter(sv.version)
        t = sv.tensor
        if t is not None and hasattr(t, "_data"):
            from .._tensor import Tensor
            clone = Tensor._wrap(sv.data)
            clone._vc = sv.vc
            clone._requires_grad = t._requires_grad
            clone._grad_fn, clone._output_nr = t._grad_fn, t._output_nr
            if t._grad_fn is None and t._requires_grad:
                from .graph import grad_accumulator
                grad_accumulator(t)
                clone._acc = t._acc
            sv.tensor = clone
