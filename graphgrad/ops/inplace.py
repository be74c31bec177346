"""In-place ops (``x.op_(...)``): PyTorch's checks, the write, and the rebase of history
(the base's, through CopySlices, for a view; seed 003 section 3.3).
"""
from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtype
from .._core.state import ALL_THREADS, tls
from .._tensor.tensor import Tensor
from .._core.version import INFERENCE, VersionCounter
from ..autograd.saved import SavedVariable
from .._core.opmath import BFLOAT16, FLOAT16
from .dispatch import _kernel_error, _promote, _record
from .interpose import interposed as _interposed
from .forward_mode import _overlaps, push_tangents_inplace
from ..autograd.views import _edge, mark_views, move_retains_grad, view_rebase_message
from ..autograd._saved_hooks import before_inplace
from ..autograd.anomaly_mode import record_traceback
from ..autograd.engine.accumulate import _dense

_ndarray = np.ndarray

_wrap = Tensor._wrap

# ====================================================================== in-place
def check_inplace(self, op_name, any_req=None):
    """PyTorch's checks before an in-place op mutates ``self`` (``any_req``: whether any
    input of the op requires grad; by default, whether ``self`` does)."""
    if any_req is None:
        any_req = self._requires_grad
    base = self._base
    if tls.grad_enabled and (any_req or base is not None and base._requires_grad):
        if base is not None:
            if self._view_mode is not None:
                raise RuntimeError(view_rebase_message(self, False, op_name))
            if base._grad_fn is None and (base._requires_grad or self._requires_grad):
                raise RuntimeError(
                    f"a view of a leaf Variable that requires grad is being used in an in-place "
                    f"operation ({op_name}). Modify a clone of the leaf instead, or wrap the "
                    "update in `with graphgrad.no_grad():`.")
            if self._grad_fn is None and base._grad_fn is not None and \
                    self._view_ver != self._vc.value:
                # a view made while its base did not require grad, whose base got history
                # since through another view (or itself) and whose own grad_fn was not
                # read since: PyTorch checks the view's stale (empty) history, a leaf's
                # (fuzz seed 996020)
                raise RuntimeError(
                    f"a leaf Variable that requires grad is being used in an in-place "
                    f"operation ({op_name} on a view made before its base required grad, "
                    f"whose base was modified in place since). Read the view's .grad_fn "
                    f"first, or take the view again after the base's change.")
        elif self._grad_fn is None and self._requires_grad:
            raise RuntimeError(
                f"a leaf Variable that requires grad is being used in an in-place operation "
                f"({op_name}). Wrap the update in `with graphgrad.no_grad():` (as an optimizer "
                "step does) or operate on a clone.")
    if self._vc is INFERENCE and not tls.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed. You can "
            "make a clone to get a normal tensor before doing inplace update.")


def check_inplace_numbers(op_name, self, *numbers):
    """An in-place op whose Python-number operands (pow_'s exponent, clamp_'s bounds) are
    attributes: the result type of ``self`` and the numbers must cast to ``self``'s dtype,
    as PyTorch checks (``int_tensor.pow_(2.5)`` raises rather than truncating)."""
    rt = _dtype.result_type(self, *[n for n in numbers if n is not None])
    if not _dtype.can_cast(rt, self.dtype):
        raise _inplace_cast_error(rt, self, op_name)


def _inplace_cast_error(rt, self, op_name):
    name = _dtype.scalar_type_name
    return RuntimeError(
        f"result type {name(rt)} can't be cast to the desired output type "
        f"{name(self.dtype)} (in-place {op_name} on a {self.dtype} tensor; "
        f"use the out-of-place {op_name.rstrip('_')} instead)")


def dispatch_inplace(op, self, *args):
    """``self.op_(*args)``: compute ``op(self, *args)`` and write it into self."""
    if not ALL_THREADS.plain and tls.interposers:  # NOTE [interposition]
        if not tls.interpose_skip:
            return _interposed(op, dispatch_inplace, (op, self) + args, {})
        tls.interpose_skip = False
    full = (self,) + args
    nt = len(op.tensor_params)
    datas = list(full)
    any_req = False
    for i in range(nt):
        a = full[i]
        if isinstance(a, Tensor):
            datas[i] = a._data
            any_req = any_req or a._requires_grad
    check_inplace(self, op.name + "_", any_req)
    sd = self._data
    if op.promote:
        rt = _promote(op, full, datas, nt)
        if not _dtype.can_cast(rt, self.dtype):
            raise _inplace_cast_error(rt, self, op.name + "_")
    kernel = op.kernel
    if op.half_scalar_kernel is not None and \
            (full[1].__class__ is float or full[1].__class__ is int) and \
            (sd.dtype is BFLOAT16 or sd.dtype is FLOAT16):
        kernel = op.half_scalar_kernel  # (half *= 0.1 in float32, rounded once)
        datas[1] = full[1]
    try:
        res = kernel(*datas)
    except Exception as exc:
        raise _kernel_error(op, datas, exc) from None
    res = np.asarray(res)
    if res.shape != sd.shape:
        raise RuntimeError(f"output with shape {list(sd.shape)} doesn't match the broadcast shape "
                           f"{list(res.shape)} (in-place {op.name}_)")
    record = any_req and op.differentiable and tls.grad_enabled
    if record:
        # the rules may need self's value from before the update
        needs_self = any(k == ("input", 0) for k in op.save_kinds)
        old_self = _wrap(sd.copy()) if needs_self else None
        if old_self is not None and self._requires_grad:
            old_self._requires_grad = True
            old_self._grad_fn, old_self._output_nr = _edge(self)
            old_self._base = self._base
            old_self._vc = VersionCounter()  # the copy is never modified
    into = None
    if not sd.flags.writeable or 0 in sd.strides and _overlaps(sd):
        into = _overlapping_write(op, sd, datas)
        if into is None:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                f"operation. (in-place {op.name}_ on an expanded or read-only tensor)")
    for i in range(1, nt):
        # (the operand's own memory, not its promoted copy: v.real into v's complex view;
        # the 0-d 'value' of fill_, masked_fill_ and index_fill_ is read as a number first,
        # as PyTorch's: a.fill_(a[1]) is allowed)
        d = full[i]._data if isinstance(full[i], Tensor) else datas[i]
        if d.__class__ is _ndarray and np.may_share_memory(sd, d) and \
                op.params[i] != "value" and _partial_overlap(sd, d):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                f"performing the operation. (in-place {op.name}_: its argument "
                f"'{op.params[i]}' of shape {list(d.shape)} shares part of the memory of the "
                f"written-to tensor of shape {list(sd.shape)})")
    if record:
        # build the node first: inputs are saved at their versions before the update (so
        # x.mul_(x) fails at backward, as in PyTorch) and an error leaves self untouched
        src = (old_self,) + args if old_self is not None else full
        if self._vc is None:
            self._vc = VersionCounter()  # shared with the saved result below
        tmp = _wrap(sd)
        tmp._vc = self._vc
        node = _record(op, src, (tmp,))
    if tls.extras_on:
        if record and node is not None and tls.saved_hooks:
            _pack_saved(node, False)  # inputs, at their versions before the write
        if tls.mutation_ctx is not None:
            before_inplace(self)
    # forward AD: the JVP rules need self's value from before the update
    fw_old = _wrap(sd.copy()) if tls.extras_on and tls.fw_level is not None else None
    if into is None:
        np.copyto(sd, res, casting="unsafe")
    else:
        into(res)
    self._bump_version()
    if record:
        if node is not None:
            for sv in node._saved:  # the saved result is self at its new version
                if sv.__class__ is SavedVariable and sv.tensor is None:
                    sv.version = self._vc.value
        _rebase_history(self, node)
    elif self._base is not None and not self._base._requires_grad:
        self._view_ver = self._vc.value
    if tls.extras_on:
        if record and node is not None and tls.saved_hooks:
            _pack_saved(node, True)  # the result, at its new version
        _extra_inplace(op, self, full, fw_old)
    return self


def _rebase_history(self, node):
    """Point ``self``'s history (and its base's, for a view) at the in-place op's node."""
    if node is None:
        return
    if self._base is None:
        old_fn, old_nr = self._grad_fn, self._output_nr
        if self._views is not None:
            mark_views(self)
        self._grad_fn, self._output_nr, self._requires_grad = node, 0, True
        if self._retains_grad:
            move_retains_grad(self, old_fn, old_nr)
        return
    from .api.inplace import make_copy_slices
    make_copy_slices(self, node)


def _pack_saved(node, outputs):
    """saved_tensors_hooks for an in-place op's node: pack its saved inputs (``outputs``
    False) or its saved result (True)."""
    for s in node._saved:
        if s.__class__ is SavedVariable and s.packed is None and s.data is not None and \
                (s.tensor is None) is outputs:
            s.pack_with_hooks()
    node._has_hooks = node._runs_user_code = True  # (its unpack hooks)


def _extra_inplace(op, self, full, fw_old=None):
    if tls.anomaly and self._grad_fn is not None and self._grad_fn._metadata is None:
        record_traceback(self._grad_fn)
    if tls.fw_level is not None:
        push_tangents_inplace(op, self, full, fw_old)


# in-place ops PyTorch runs on an expanded tensor (several elements, one location): a fill
# writes its one value; index_put_/masked_fill_ write the selected elements, with a warning
_FILLS = frozenset({"zero", "fill"})
_DEPRECATED_ON_EXPANDED = {"masked_fill.Scalar": "masked_fill_",
                           "masked_fill.Tensor": "masked_fill_", "index_put": "index_put_"}


def _overlapping_write(op, sd, datas):
    """The writer for an in-place op PyTorch allows on the expanded array ``sd`` (None: the
    op raises PyTorch's overlap error)."""
    if not sd.flags.writeable:
        return None
    name = op.name
    if name == "copy" and _same_array(sd, datas[1]):
        return lambda res: None   # x.copy_(x): PyTorch returns at once, whatever x's layout
    if name in _FILLS:
        return lambda res: np.copyto(sd, res, casting="unsafe")
    public = _DEPRECATED_ON_EXPANDED.get(name)
    if public is None or (name == "index_put" and datas[3]):
        return None
    import warnings
    warnings.warn(f"Use of {public} on expanded tensors is deprecated. Please clone() the "
                  "tensor before performing this operation. This also applies to advanced "
                  "indexing e.g. tensor[indices] = tensor", UserWarning, stacklevel=4)
    if name == "index_put":
        return lambda res: op.kernel(sd, datas[1], datas[2], False, True)
    return lambda res: np.copyto(sd, res, casting="unsafe",
                                 where=np.broadcast_to(datas[1], sd.shape))


def _same_array(a, b):
    """Whether ndarray ``b`` is ``a``'s very elements: same address, layout and dtype."""
    return b.__class__ is _ndarray and a.dtype == b.dtype and a.shape == b.shape and \
        a.strides == b.strides and \
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]


def _partial_overlap(a, b):
    """PyTorch's partial overlap of two arrays that may share memory: both dense (else it
    cannot tell and allows the op) and either the same bytes with other strides or ranges
    that overlap without being the same."""
    if a.size == 0 or b.size == 0:
        return False
    if not (_dense(a) and _dense(b)):
        return False
    a0 = a.__array_interface__["data"][0]
    b0 = b.__array_interface__["data"][0]
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        return a.strides != b.strides
    return a0 < b1 and b0 < a1
