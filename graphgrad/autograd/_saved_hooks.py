"""Saved-tensor hooks (seed 004 "saved tensors"), exported from graphgrad.autograd.graph.

- ``saved_tensors_hooks(pack, unpack)``: every tensor saved for backward while
  the context is active (by built-in ops and custom Functions) is passed to
  ``pack``; backward gets ``unpack(packed)`` instead.  The innermost pair wins.
- ``save_on_cpu``: PyTorch moves saved tensors to CPU memory; graphgrad lives
  on the CPU already, so the pair is the identity (kept for API parity).
- ``disable_saved_tensors_hooks(msg)``: registering hooks inside raises ``msg``.
- ``allow_mutation_on_saved_tensors()``: a saved tensor modified in place
  inside the context is cloned first, so backward still sees the saved value
  (a saved_tensors_hooks pair plus ``before_inplace``, called by in-place ops).
"""
from __future__ import annotations

import contextlib
import weakref

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor


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


# ------------------------------------------------------------------ allow_mutation_on_saved_tensors
# Built as PyTorch builds it: a saved_tensors_hooks pair plus a look at every in-place write.
# - pack: a saved tensor (identified by object, data pointer and version, PyTorch's "tid") gets
#   a handle; the context keeps the tensor (``original``) under the handle, weakly keyed, so the
#   entry lives exactly as long as some graph holds the handle.
# - an in-place write (dispatch_inplace, out=, in-place view ops call ``before_inplace``): every
#   saved tensor whose memory the write touches is cloned first (``cloned``), once per handle.
#   PyTorch looks saved tensors up by (data pointer, version), so a write through a view that
#   starts at another address (``b[1:] *= 10`` after saving ``b``) is not seen and backward
#   silently uses the new values; graphgrad clones whenever the memories overlap.
# - unpack: the clone if there is one, else the original; outside the context (or after it was
#   left) an AssertionError, as in PyTorch.
_enabled = False  # process-wide, as PyTorch's flag: a second context anywhere is "nested"

_OUTSIDE_MSG = (
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context in which the "
    "graph was originally recorded. Run the backward (and any access to saved tensors) inside "
    "the same `with graphgrad.autograd.graph.allow_mutation_on_saved_tensors():` block as the "
    "forward.")


class _Handle:
    """What a saved tensor packs to; its lifetime is the graph's."""

    __slots__ = ("__weakref__",)


def _root(a):
    """The object owning ``a``'s memory: tensors sharing memory have the same root."""
    b = a.base
    while isinstance(b, np.ndarray) and b.base is not None:
        b = b.base
    return a if b is None else b


class _AllowMutationOnSavedContext:
    """State of one allow_mutation_on_saved_tensors block (what the ``with`` yields).

    ``original`` / ``cloned`` map live handles to the saved tensor / its clone,
    ``tid_to_weakhandle`` maps (id, data_ptr, version) of each saved tensor to its handle, and
    ``sid_to_tid`` groups those by memory owner.  Everything is cleared when the block exits.
    """

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = {}  # id(memory owner) -> {tid}

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    # the saved_tensors_hooks pair
    def _pack(self, t):
        d = t._data
        tid = (id(t), d.__array_interface__["data"][0], t._vc.value if t._vc is not None else 0)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None or handle not in self.original:
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = t
        self.sid_to_tid.setdefault(id(_root(d)), set()).add(tid)
        return handle

    def _unpack(self, handle):
        if not _enabled:
            raise AssertionError(_OUTSIDE_MSG)
        t = self.cloned.get(handle)
        if t is None:
            t = self.original.get(handle)
            if t is None:
                raise AssertionError(_OUTSIDE_MSG)
        return t

    def _before_write(self, target):
        tids = self.sid_to_tid.get(id(_root(target)))
        if not tids:
            return
        for tid in tuple(tids):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None:  # the graph that saved it is gone
                tids.discard(tid)
                continue
            if handle in self.cloned:
                continue
            orig = self.original[handle]
            if not np.shares_memory(orig._data, target):
                continue
            self.cloned[handle] = Tensor._wrap(orig._data.copy())
            del self.original[handle]


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place.

    A saved tensor about to be modified in place is cloned first, and backward uses the
    clone.  Run the forward and the backward inside the same block; the state (the yielded
    ``_AllowMutationOnSavedContext``) is cleared when the block exits.  Blocks cannot nest.
    """
    global _enabled
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx._pack, ctx._unpack):
        prev = tls.mutation_ctx
        tls.mutation_ctx = ctx
        tls.refresh()
        try:
            if _enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested "
                                   "(leave the outer block before entering another one)")
            _enabled = True
            yield ctx
        finally:
            # (as in PyTorch, a failed nested entry also switches the outer block off)
            ctx.clear()
            _enabled = False
            tls.mutation_ctx = prev
            tls.refresh()


def before_inplace(tensor):
    """Called just before an in-place op writes ``tensor`` while a block is active."""
    ctx = tls.mutation_ctx
    if ctx is not None:
        ctx._before_write(tensor._data)
