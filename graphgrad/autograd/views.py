"""Views: the output of a view op shares its base's version counter and remembers how to
replay itself (``_view_fn``); its gradient edge is regenerated after an in-place change
of the base (``AsStridedBackward0``).
"""
from __future__ import annotations

import weakref

from .._core.state import ALL_THREADS, tls
from .._tensor.tensor import Tensor
from . import graph as _graph
from .graph import gradient_edge
from .._core.version import INFERENCE, VersionCounter

_weakref = weakref.ref
_seq = _graph._sequence_nr
_new = object.__new__
_NO_EDGE = (None, 0)

def _edge(a):
    if a.__class__ is Tensor or isinstance(a, Tensor):
        if a._requires_grad:
            if a._base is not None:
                return _view_edge(a)
            fn = a._grad_fn
            if fn is not None:
                return (fn, a._output_nr)
            return (_graph.grad_accumulator(a), 0)
    return _NO_EDGE


# ====================================================================== views
def _set_view(op, args, out):
    """``out`` is a view of args[0]: share the version counter and remember how to replay it."""
    x = args[0]
    vc = x._vc
    if vc is None:
        vc = x._vc = VersionCounter()
    out._vc = vc
    base = x._base
    out._base = x if base is None else base
    out._view_fn = (x._view_fn, op, args[1:])
    out._view_ver = vc.value
    if x._view_mode is not None:
        out._view_mode = x._view_mode  # (a view of such a view is one too)
    if not x._requires_grad:
        # the base may get history later (an in-place op with an operand that requires
        # grad): it then marks its views as requiring grad (mark_views), as PyTorch's views
        # read their base's state; the list holds weak references, pruned as it grows
        root = out._base
        vs = root._views
        if vs is None:
            root._views = [_weakref(out)]
        else:
            vs.append(_weakref(out))
            if not len(vs) & 63:  # (every 64 views: drop the dead ones)
                vs[:] = [r for r in vs if r() is not None]
    if not ALL_THREADS.plain and not tls.grad_enabled:
        # a view made under no_grad / inference_mode: an in-place change of it in grad mode
        # is refused (check_inplace), as in PyTorch; of a tensor that requires grad, it
        # still requires grad (as a leaf), unless it is an inference tensor's (PyTorch's
        # views of inference tensors never require grad)
        out._view_mode = "inference" if tls.inference else "no_grad"
        if x._requires_grad and vc is not INFERENCE:
            out._requires_grad = True


def select_view(x, d, key, select):
    """``x[key]`` (an int, in range) of a tensor that does not require grad, with nothing
    to record (``ALL_THREADS.plain``): ``_wrap`` and ``_set_view`` in one frame (t[i] of a constant
    input in a loop is common: an RNN's x[t])."""
    o = _new(Tensor)
    o._data = d[key, ...]  # (with ..., a 0-d view even of a 1-d tensor)
    o._requires_grad = False
    o._grad_fn = None
    o._output_nr = 0
    vc = x._vc
    if vc is None:
        vc = x._vc = VersionCounter()
    o._vc = vc
    root = x._base
    if root is None:
        root = x
    o._base = root
    o._view_fn = (x._view_fn, select, (-d.ndim, key))
    o._view_ver = vc.value
    if x._view_mode is not None:
        o._view_mode = x._view_mode
    vs = root._views  # (see _set_view)
    if vs is None:
        root._views = [_weakref(o)]
    else:
        vs.append(_weakref(o))
        if not len(vs) & 63:
            vs[:] = [r for r in vs if r() is not None]
    return o


def mark_views(base):
    """``base`` got history: its views made before (when it did not require grad) require
    grad now; their grad_fn is regenerated from the base's new history when next used."""
    vs = base._views
    if vs is None:
        return
    base._views = None
    for r in vs:
        v = r()
        if v is not None and v._base is base:
            v._requires_grad = True


def _view_edge(a):
    """The gradient edge of a view, regenerating its grad_fn if its base changed in place."""
    if a._view_ver != a._vc.value and a._base._requires_grad:
        _regenerate_view_grad_fn(a)
    fn = a._grad_fn
    if fn is not None:
        return (fn, a._output_nr)
    return (_graph.grad_accumulator(a), 0)


def _regenerate_view_grad_fn(view):
    from ..ops.api.inplace import AsStridedBackward0, chain_for_base
    if view._view_mode is not None and tls.grad_enabled:
        raise RuntimeError(view_rebase_message(view, True))
    base = view._base
    node = AsStridedBackward0()
    node._seq = next(_seq)
    node._next_edges = (gradient_edge(base),)
    node._base_meta = (base._data.shape, base._data.dtype)
    node._chain = chain_for_base(view)
    node._out_meta = ((view._data.shape, view._data.dtype),)
    old_fn, old_nr = view._grad_fn, view._output_nr
    view._grad_fn = node
    view._output_nr = 0
    view._requires_grad = True
    view._view_ver = view._vc.value
    if view._retains_grad:
        move_retains_grad(view, old_fn, old_nr)


def move_retains_grad(t, old_fn, old_nr):
    """``t``'s grad_fn changed (in-place op): its retain_grad hook moves to the new one, so
    ``.grad`` is the gradient of the tensor's new value, as in PyTorch."""
    hooks = old_fn._retains_grad_hooks if old_fn is not None else None
    hook = hooks.pop(old_nr, None) if hooks else None
    if hook is not None and t._grad_fn is not None:
        t._grad_fn._set_retains_grad_hook(t._output_nr, hook)


def view_rebase_message(view, indirect, op_name=None):
    """PyTorch's error for a view made in no_grad/inference mode or by a multi-output op
    (unbind, split, chunk) that is modified in place (``indirect``: its base or another view
    of it was) with grad mode on."""
    mode = view._view_mode
    fn = view._grad_fn
    if fn is not None:
        name = fn.name()
        if name.rstrip("0123456789").endswith("Backward"):
            name = name.rstrip("0123456789")[:-len("Backward")]
        out = f"Output {view._output_nr} of {name}"
    how = "its base or another view of its base has been" if indirect else "is being"
    if mode not in ("multi", "custom") or fn is None:
        prefix = f"{out} is a view of a view which was created in" if fn is not None else \
            "A view was created in"
        if mode == "inference":
            msg = f"{prefix} inference mode and {how} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {how} modified inplace with grad mode enabled."
    else:
        msg = f"{out} is a view and {how} modified inplace."
    if mode == "multi":
        msg += (" This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    elif mode == "custom":
        msg += (" This view was created inside a custom Function (or because an input was "
                "returned as-is) and the autograd logic to handle view+inplace would override "
                "the custom backward associated with the custom Function, leading to incorrect "
                "gradients. This behavior is forbidden. You can fix this by cloning the output "
                "of the custom Function.")
    else:
        where = "inference_mode" if mode == "inference" else "no_grad"
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You "
                "can clarify your code by moving both the view and the inplace either both "
                f"inside the {where} block (if you don't want the inplace to be tracked) or "
                "both outside (if you want the inplace to be tracked).")
    return msg + (f" (The in-place operation: {op_name}.)" if op_name else "")
