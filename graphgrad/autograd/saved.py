"""Version counters and SavedVariable (seed 003 §2.5, seed 004 "in-place correctness").

A SavedVariable remembers the version of the tensor's (shared) version counter
at save time; unpacking after an in-place change raises.  An input is saved as
the tensor itself, like PyTorch's ``saved_original_``: backward reads its array
at unpack time, so ``t.data = new`` after the forward is seen (``data`` keeps the
array of save time only as the freed/hooked marker and for hooks).  A node's own
output is stored as data + version counter, never as the Tensor, so a node that
saves its result forms no reference cycle: the Tensor is rebuilt on unpack with
the unpacking node as its grad_fn, and keeps the array it had when saved.
"""
from __future__ import annotations

import weakref

from .._core.state import tls
from .._core.version import INFERENCE, VersionCounter  # noqa: F401 (re-exported)
from .._core.version import DETACHED_MSG, detach_bumps_after, user_version
from .._core.dtypes import from_numpy_dtype
from .._tensor.tensor import Tensor
from .graph import grad_accumulator

__all__ = ["VersionCounter", "SavedVariable", "INFERENCE"]


_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

_PACK_INPLACE_MSG = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")

INFERENCE_SAVE_MSG = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `graphgrad.no_grad()` "
    "instead of `graphgrad.inference_mode()`.")


def _describe(data):
    return f"[graphgrad.{from_numpy_dtype(data.dtype).name} {list(data.shape)}]"


def _short_name(fn):
    """A node's name as PyTorch's version-counter error shows it: without "Backward" and
    a version 0 (MulBackward0 -> Mul, SqueezeBackward4 -> Squeeze4, FnBackward -> Fn)."""
    head, sep, tail = fn.name().rpartition("Backward")
    return head + ("" if tail == "0" else tail) if sep else fn.name()


class SavedVariable:
    """One tensor saved for backward by a node."""

    __slots__ = ("data", "vc", "version", "tensor", "output_nr", "requires_grad", "packed",
                 "fw", "weak_fn")
    # weak_fn (set only for the result of an in-place op on a view, never initialised
    # otherwise): a weakref to the view's grad_fn, the history the unpacked result carries
    # instead of the saving node (PyTorch's is_inplace_on_view / weak_grad_fn_)

    def __init__(self, t, is_output):
        vc = t._vc
        if vc is None:
            vc = t._vc = VersionCounter()
        elif vc is INFERENCE:
            raise RuntimeError(INFERENCE_SAVE_MSG)
        self.data = t._data
        self.vc = vc
        self.version = vc.value
        self.packed = None
        self.fw = None  # a saved output's forward-AD tangent (set by forward_ad.push_tangents)
        if is_output:
            self.tensor = None
            self.output_nr = t._output_nr
            self.requires_grad = t._requires_grad
        else:
            self.tensor = t

    # -- saved_tensors_hooks ----------------------------------------------------
    def pack_with_hooks(self):
        """Hand the saved tensor to the innermost pack hook (saved_tensors_hooks)."""
        pack, unpack = tls.saved_hooks[-1]
        arg = self.tensor
        if arg is None:
            # our own output: hand the hook an alias that requires grad like the output but
            # has no history, so that what the hook keeps cannot reference this node (cycle)
            arg = Tensor._wrap(self.data)
            arg._vc = self.vc
            arg._requires_grad = self.requires_grad
        # (packed value, unpack hook): freeing the graph (packed = None) drops the hook too,
        # and with it whatever the hook holds (a checkpoint frame keeps its inputs)
        self.packed = (call_pack_hook(pack, arg, self.vc), unpack)
        self.data = None
        self.tensor = None if self.tensor is None else _LeafRef(self.tensor)

    def _from_hook(self):
        packed, unpack = self.packed
        t = unpack(packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(t).__name__}")
        return t

    # -- unpacking ----------------------------------------------------------------
    def _check(self, node, name, detached_ok=False):
        if self.vc.value != self.version:
            if self._only_detached_since_save(detached_ok):
                return
            data = self.data if self.data is not None else self._from_hook()._data
            if self.tensor is not None and not isinstance(self.tensor, _LeafRef):
                fn = self.tensor.grad_fn  # (a view changed in place: its regenerated node)
                nr = self.tensor._output_nr
            else:
                fn, nr = node, self.output_nr if self.tensor is None else 0
            which = "" if fn is None else f", which is output {nr} of {_short_name(fn)},"
            by = f" It was saved by {node.name()} as '{name}'." if node is not None else ""
            vc = self.vc  # (versions as PyTorch shows them: without detach_ bumps)
            saved = self.version - detach_bumps_after(vc, 0) + detach_bumps_after(vc, self.version)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {_describe(data)}{which} is at version "
                f"{user_version(vc)}; expected version {saved} instead.{by} Hint: enable "
                "anomaly detection to find the operation that failed to compute its gradient, "
                "with graphgrad.autograd.set_detect_anomaly(True).")

    def _only_detached_since_save(self, detached_ok):
        """Whether the version moved only by ``detach_()`` bumps (then the saved value is
        still good); raises PyTorch's error for a saved non-leaf input detached in place
        when a built-in node's backward unpacks it (``detached_ok``: a custom Function's
        ``saved_tensors`` and ``grad_fn._saved_*``, which PyTorch lets through)."""
        vc = self.vc
        t = self.tensor
        if not detached_ok and t is not None and not isinstance(t, _LeafRef) and \
                t.__dict__.get("_detached_at", -1) > self.version:
            # it had history when detached and, unless changed in place since save (which
            # PyTorch reports after this), when saved: a non-leaf input
            raise RuntimeError(DETACHED_MSG)
        return vc.value - self.version == detach_bumps_after(vc, self.version)

    def unpack_data(self, node=None, name="?"):
        """The saved ndarray (array-mode backward)."""
        data = self.data
        if data is None:
            if self.packed is None:
                raise RuntimeError(_FREED_MSG)
            # (with hooks there is no version check: PyTorch cannot track versions through them)
            return self._from_hook()._data
        if self.vc.value != self.version:
            self._check(node, name)
        t = self.tensor
        # an input is saved as the tensor itself (PyTorch's saved_original_): ``t.data = new``
        # after the forward changes what backward reads; a saved output keeps its array
        return data if t is None else t._data

    def unpack(self, node=None, name="?", detached_ok=False):
        """The saved Tensor, with its history (tensor-mode backward, ``_saved_*``)."""
        if self.data is None and self.packed is None:
            raise RuntimeError(_FREED_MSG)
        if self.packed is not None:  # (no version check through hooks, as in PyTorch)
            t = self._from_hook()
            ref = self.tensor
            if ref is not None:  # an input: give back a tensor with the input's history
                src = ref.tensor  # (None: a non-leaf since freed, which required grad)
                if t._grad_fn is None and not t._requires_grad and (
                        src is None or src._requires_grad):
                    t = _alias_with_history(t, src, ref.grad_fn, ref.output_nr)
            elif self.requires_grad and node is not None:
                fn, nr = self._history(node)
                t = _alias_with_history(t, None, fn, nr)
            return t
        self._check(node, name, detached_ok)
        t = self.tensor
        if t is not None:
            return t
        t = Tensor._wrap(self.data)
        t._vc = self.vc
        if self.fw is not None:  # forward-over-reverse: the output keeps its tangent
            t._fw = self.fw
        if self.requires_grad and node is not None:
            t._requires_grad = True
            t._grad_fn, t._output_nr = self._history(node)
        return t

    def _history(self, node):
        """The grad_fn and output_nr an unpacked saved output carries: the saving node's,
        or, for an in-place op on a view, the view's history while it is alive."""
        wf = getattr(self, "weak_fn", None)
        fn = wf() if wf is not None else None
        return (node, self.output_nr) if fn is None else (fn, 0)

    def release(self):
        self.data = None
        self.tensor = None
        self.packed = None


def call_pack_hook(pack, arg, vc):
    """PyTorch runs a pack hook under no_grad (what it returns has no history of its own)
    and refuses one that modifies its input in place."""
    version = vc.value
    prev = tls.grad_enabled
    tls.grad_enabled = False
    try:
        packed = pack(arg)
    finally:
        tls.grad_enabled = prev
    if vc.value != version:
        raise RuntimeError(_PACK_INPLACE_MSG)
    return packed


class _LeafRef:
    """Keeps the input tensor (for its history) when hooks hold its data, with its grad_fn
    as of saving: an in-place op may give it a new one before backward (no version check
    through hooks), and the unpacked value must keep the history it was saved with."""

    __slots__ = ("_strong", "_weak", "grad_fn", "output_nr")

    def __init__(self, tensor):
        # A non-leaf is held weakly: its history is grad_fn/output_nr, and holding it would
        # keep its data alive, defeating hooks that drop the data (utils.checkpoint).
        self.grad_fn = tensor._grad_fn
        self.output_nr = tensor._output_nr
        if self.grad_fn is None:
            self._strong, self._weak = tensor, None
        else:
            self._strong, self._weak = None, weakref.ref(tensor)

    @property
    def tensor(self):
        """The saved tensor, or None for a non-leaf that no longer exists."""
        return self._strong if self._weak is None else self._weak()


def _alias_with_history(t, src, node=None, output_nr=0):
    out = Tensor._wrap(t._data)
    out._vc = t._vc
    out._requires_grad = True
    if src is not None and node is None:
        return src if src._data is t._data else _leaf_alias(out, src)
    out._grad_fn, out._output_nr = node, output_nr
    return out


def _leaf_alias(out, src):
    # a leaf whose data came back through an unpack hook: route gradient to the leaf
    out._grad_fn = None
    out._acc = src._acc if src._acc is not None else None
    if out._acc is None:
        grad_accumulator(src)
        out._acc = src._acc
    return out
