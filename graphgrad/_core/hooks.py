"""RemovableHandle: what every ``register_*hook`` returns (public as graphgrad.utils.hooks)."""
from __future__ import annotations

import copy
import itertools
import weakref

_next_id = itertools.count()


class RemovableHandle:
    """Removes the hook it was returned for from its dict(s) when ``remove()`` is called."""

    __slots__ = ("hooks_dict_refs", "id", "__weakref__")

    def __init__(self, *hooks_dicts):
        self.id = next(_next_id)
        self.hooks_dict_refs = tuple(weakref.ref(d) for d in hooks_dicts)

    @property
    def hooks_dict_ref(self):
        """The weakref to the (first) hook dict, as PyTorch's handle has."""
        return self.hooks_dict_refs[0]

    @property
    def extra_dict_ref(self):
        return self.hooks_dict_refs[1:]

    def remove(self):
        for ref in self.hooks_dict_refs:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __getstate__(self):
        # (PyTorch's handle pickles its dicts: a module keeping a handle (a lazy module's)
        # pickles, and its copy's handle removes from the copy's dicts)
        return tuple(ref() for ref in self.hooks_dict_refs), self.id

    def __setstate__(self, state):
        dicts, self.id = state
        self.hooks_dict_refs = tuple(weakref.ref(d) if d is not None else _dead_ref()
                                     for d in dicts)

    def __deepcopy__(self, memo):
        # (PyTorch's handle pickles its dict: a deep copy of a module and of a handle it
        # keeps (a lazy module's) removes the hook from the copy's dict, not the original's)
        new = RemovableHandle.__new__(RemovableHandle)
        new.id = self.id
        new.hooks_dict_refs = tuple(weakref.ref(copy.deepcopy(d, memo)) if d is not None
                                    else ref for ref in self.hooks_dict_refs
                                    for d in (ref(),))
        memo[id(self)] = new
        return new


def _dead_ref():
    """A weak reference whose object is gone (a handle whose dict was not pickled)."""
    d = _HookDict()
    return weakref.ref(d)


class _HookDict(dict):
    """A dict that can be weakly referenced (plain dicts cannot)."""

    __slots__ = ("__weakref__",)


def add_hook(owner, attr, fn):
    """Append ``fn`` to ``owner.<attr>`` (created on first use) and return its handle."""
    d = getattr(owner, attr, None)
    if d is None:
        d = _HookDict()
        setattr(owner, attr, d)
    handle = RemovableHandle(d)
    d[handle.id] = fn
    return handle
