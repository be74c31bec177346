"""The dispatcher: the one place that turns an op call into a graph node (seed 002).

``dispatch(op, *args)`` unwraps the arrays, promotes dtypes, runs the NumPy
kernel, and -- only when grad mode is on and an input requires grad --
creates the op's backward node, sets its next edges from the inputs'
gradient edges, saves what the rules need as SavedVariables and sets the
outputs' history.  When a forward-AD level is active it also pushes tangents
through the op's JVP rule.  ``unary``/``binary`` are the same steps unrolled
for the common cases; ``dispatch_inplace`` handles ``op_`` variants,
rebasing history (and the base's, through CopySlices, for views).

NOTE [reference path]: the generated hot path (``codegen/``) is generated from these
functions' steps, and they stay as its reference: ``unary``/``binary`` (and each public
function's general form) for the generated entries (``codegen.entries``),
``_record_generic`` for ``op.record`` (``codegen.record``), ``FormulaNode._apply`` and
``Node._step`` for each node class's ``_apply``/``_step`` (``codegen.nodes``).  They still
run for everything the generated code does not cover (several outputs, attributes,
unusual operands).  tests/ops/test_codegen_reference.py holds the two together: every
OpInfo sample runs on both, which must agree on the outputs, the node recorded, what it
saved (values and versions) and the gradients its step returns.
"""
from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtype
from .._core.state import ALL_THREADS, tls
from .._tensor.tensor import Tensor
from ..autograd import graph as _graph
from ..autograd.saved import SavedVariable
from .._core.opmath import BFLOAT16, FLOAT16
from .node import _OUT_META_CACHE
from .registry import POINTWISE
from .save_plan import SAVE_ATTR, SAVE_INPUT, SAVE_RESULT, SAVE_SIZES
from ..autograd.views import _edge, _set_view
from .extras import _run_extras
from .interpose import interposed as _interposed

_seq = _graph._sequence_nr
_wrap = Tensor._wrap
_new = object.__new__
_ndarray = np.ndarray
_SCALARS = (float, int, bool, complex)
# pointwise ops whose PyTorch result is contiguous, not laid out by TensorIterator (a
# clone, a fill, a sample): ``follow_layout`` leaves them alone
_OWN_LAYOUT = frozenset({"masked_fill.Scalar", "masked_fill.Tensor", "normal.Tensor_Tensor",
                         "copy", "fill.Tensor"})

# ====================================================================== errors
def no_bool(kernel, a):
    """PyTorch's error for a kernel without a bool implementation."""
    if a.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _broadcast_error(op_name, shapes):
    """PyTorch's message for shapes that do not broadcast, naming the dim."""
    a, b = shapes[0], shapes[1] if len(shapes) > 1 else ()
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(
                f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                f"non-singleton dimension {i}  [{op_name}: shapes {list(a)} and {list(b)} do not "
                "broadcast]")
    return None


def _kernel_error(op, datas, exc):
    shapes = [d.shape for d in datas if isinstance(d, np.ndarray)]
    if isinstance(exc, ValueError) and "broadcast" in str(exc) and len(shapes) >= 2:
        err = _broadcast_error(op.name, shapes)
        if err is not None:
            return err
    if isinstance(exc, (ValueError, TypeError, np.exceptions.AxisError, IndexError)):
        typ = IndexError if isinstance(exc, (IndexError, np.exceptions.AxisError)) else RuntimeError
        if isinstance(exc, TypeError):
            typ = TypeError
        dts = [str(d.dtype) for d in datas if isinstance(d, np.ndarray)]
        return typ(f"{op.name}(): {exc} (input shapes {[list(s) for s in shapes]}, dtypes {dts})")
    return exc


# ====================================================================== promotion
def _promote(op, args, datas, nt):
    """Cast tensor inputs to the PyTorch result type (tensors only; scalars stay weak)."""
    if op.check_inputs is not None:
        op.check_inputs(args[:nt])
    rt = _dtype.result_type(*[a for a in args[:nt] if a is not None])
    if op.promote == "float" and rt.category < 2:
        rt = _dtype.get_default_dtype()
    npd = rt.np
    for i in range(nt):
        d = datas[i]
        if d.__class__ is _ndarray:
            if d.dtype != npd:
                datas[i] = d.astype(npd)
    # a Python scalar of a higher category than every tensor decides the dtype; make it a
    # 0-d array of that dtype so NumPy computes in the same precision PyTorch does
    for i in range(nt):
        d = datas[i]
        if d.__class__ is not _ndarray and d is not None:
            datas[i] = np.asarray(d, dtype=npd) if not isinstance(d, np.ndarray) else d
    return rt


# ====================================================================== result layout
def follow_layout(res, datas):
    """Lay out an elementwise result as PyTorch's TensorIterator does (the slow path, taken
    when the first operand is not row-major): the dims are ordered by the strides of the
    first operand that tells two dims apart (broadcast dims tell nothing; equal strides,
    size-1 dims, go by size). NumPy's ufuncs keep row-major order when the operands
    disagree, so ``a.t() - c`` was contiguous here and transposed in PyTorch, and a
    ``reshape(-1)`` of it a view here and a copy there."""
    if res.__class__ is not _ndarray or res.ndim < 2 or res.size == 0:
        return res
    shape = res.shape
    nd = len(shape)
    ops = []
    for d in datas:
        if d.__class__ is _ndarray and d.ndim:
            off = nd - d.ndim
            ops.append([0] * off + [0 if n == 1 and shape[off + i] != 1 else s // d.itemsize
                                    for i, (n, s) in enumerate(zip(d.shape, d.strides))])

    def should_swap(d0, d1):
        for st in ops:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))  # fastest dim first
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    strides = [0] * nd
    step = res.itemsize
    for d in perm:
        strides[d] = step
        step *= shape[d]
    if tuple(strides) == res.strides:
        return res
    order = perm[::-1]  # slowest dim first
    out = np.empty([shape[d] for d in order], res.dtype).transpose(np.argsort(order))
    out[...] = res
    return out


# ====================================================================== dispatch
def dispatch(op, *args):
    """Run ``op`` on ``args`` (signature order) and record it for autograd."""
    if not ALL_THREADS.plain and tls.interposers:  # NOTE [interposition]
        if not tls.interpose_skip:
            return _interposed(op, dispatch, (op,) + args, {})
        tls.interpose_skip = False
    nt = len(op.tensor_params)
    datas = list(args)
    any_req = False
    same = True      # all tensor inputs share one dtype and there are no scalar operands
    dt = None
    for i in range(nt):
        a = args[i]
        if isinstance(a, Tensor):
            d = datas[i] = a._data
            if dt is None:
                dt = d.dtype
            elif d.dtype is not dt and d.dtype != dt:
                same = False
            if a._requires_grad:
                any_req = True
        elif a is not None:
            if not isinstance(a, _SCALARS):
                raise TypeError(f"{op.name}(): argument '{op.params[i]}' must be Tensor or a "
                                f"number, not {type(a).__name__}")
            same = False
    if op.promote and (not same or (op.promote == "float" and dt is not None
                                    and dt.kind not in "fcV")):
        _promote(op, args, datas, nt)
    try:
        res = op.kernel(*datas)
    except Exception as exc:  # NumPy's errors become PyTorch's types with our context
        raise _kernel_error(op, datas, exc) from None
    if nt > 1 and op.batched_jvp is POINTWISE and datas[0].__class__ is _ndarray and \
            not datas[0].flags.c_contiguous and op.name not in _OWN_LAYOUT:
        res = follow_layout(res, datas[:nt])

    if op.n_outputs == 1:
        out = _wrap(res)
        outs = (out,)
    else:
        outs = tuple(_wrap(r) for r in res)
        out = outs
    if op.is_view:
        _set_view(op, args, outs[0])
    if ALL_THREADS.plain:  # grad mode on, no extras (in every thread)
        if any_req and op.differentiable:
            _record(op, args, outs)
        return out
    if any_req and op.differentiable and tls.grad_enabled:
        _record(op, args, outs)
    if tls.extras_on:
        _run_extras(op, args, outs)
    return out


def _record(op, args, outs):
    """Create ``op``'s backward node for this call and set the outputs' history."""
    rec = op.record
    if rec is not None:
        return rec(args, outs[0])
    return _record_generic(op, args, outs)


def _record_generic(op, args, outs):
    """``_record`` for any op (several outputs, non-differentiable outputs); the reference
    of the generated ``op.record`` (NOTE [reference path])."""
    diff = op.diff_pos
    if len(diff) == 1:
        e = _edge(args[diff[0]])
        if e[0] is None:
            return None
        edges = (e,)
    else:
        edges = tuple([_edge(args[i]) for i in diff])
        for e in edges:
            if e[0] is not None:
                break
        else:
            return None
    single = len(outs) == 1 and not op.nondiff_outputs
    if single:
        o = outs[0]
        d = o._data
        if d.dtype.kind not in "fcV":
            return None  # integer/bool results never require grad
    node = op.node_cls()
    node._seq = next(_seq)
    node._next_edges = edges
    plan = op.save_plan
    has_result = False
    if plan:
        saved = []
        for code, idx, needed in plan:
            if needed is not None:
                for j in needed:
                    if edges[j][0] is not None:
                        break
                else:
                    saved.append(None)
                    continue
            if code == SAVE_INPUT:
                a = args[idx]
                saved.append(SavedVariable(a, False) if isinstance(a, Tensor) else a)
            elif code == SAVE_ATTR:
                saved.append(args[idx])
            elif code == SAVE_SIZES:
                a = args[idx]
                saved.append(a._data.shape if isinstance(a, Tensor) else ())
            else:
                saved.append(None)
                has_result = True
        node._saved = saved  # (into the node's slots; a saved output follows below)
    if single:
        o._requires_grad = True
        o._grad_fn = node
        shape = d.shape
        key = (shape, d.dtype)
        meta = _OUT_META_CACHE.get(key)
        if meta is None:
            if len(_OUT_META_CACHE) > 4096:
                _OUT_META_CACHE.clear()
            meta = _OUT_META_CACHE[key] = (key,)
        node._out_meta = meta
    else:
        nondiff = op.nondiff_outputs
        for k, o in enumerate(outs):
            if k in nondiff or o._data.dtype.kind not in "fcV":
                continue
            o._requires_grad = True
            o._grad_fn = node
            o._output_nr = k
        node._out_meta = tuple((o._data.shape, o._data.dtype) for o in outs)
    if has_result:
        for i, (code, idx, needed) in enumerate(plan):
            if code == SAVE_RESULT and (needed is None or any(edges[j][0] is not None for j in needed)):
                setattr(node, node._slots[i], SavedVariable(outs[idx], True))
    return node


# ====================================================================== fast paths
def unary(op, x):
    """``dispatch`` unrolled for one tensor input and no attributes; the reference of the
    generated ``graphgrad.<unary op>`` entries (NOTE [reference path])."""
    if not ALL_THREADS.plain and tls.interposers:  # NOTE [interposition]
        if not tls.interpose_skip:
            return _interposed(op, unary, (op, x), {})
        tls.interpose_skip = False
    d = x._data
    if op.promote and d.dtype.kind not in "fcV":
        d = d.astype(_dtype.get_default_dtype().np)
    try:
        res = op.kernel(d)
    except Exception as exc:
        raise _kernel_error(op, [d], exc) from None
    out = _new(Tensor)
    out._data = res if res.__class__ is _ndarray else np.asarray(res)
    out._requires_grad = False
    out._grad_fn = None
    out._output_nr = 0
    out._vc = None
    if op.is_view:  # t(), squeeze(), alias: share the version counter, remember the base
        _set_view(op, (x,), out)
    if x._requires_grad and op.differentiable:
        if ALL_THREADS.plain:  # grad mode on, no extras (in every thread)
            rec = op.record
            if rec is not None:
                rec((x,), out)
            else:
                _record_generic(op, (x,), (out,))
            return out
        if tls.grad_enabled:
            _record(op, (x,), (out,))
    if not ALL_THREADS.plain and tls.extras_on:
        _run_extras(op, (x,), (out,))
    return out


def unary_attr(op, x, attr):
    """``dispatch(op, x, attr)`` for an op of one tensor and one attribute (``t ** 2.0``,
    ``1.0 - t``: the exponent, the number) whose output is its only one and not a view:
    on a plain thread (NOTE [hot flags]) for a ``Tensor`` ``x`` needing no promotion,
    dispatch's steps without its generic ones; any other call goes to ``dispatch``."""
    d = x._data
    if not ALL_THREADS.plain or x.__class__ is not Tensor or (
            op.promote == "float" and d.dtype.kind not in "fcV"):
        return dispatch(op, x, attr)
    try:
        res = op.kernel(d, attr)
    except Exception as exc:  # NumPy's errors become PyTorch's types with our context
        raise _kernel_error(op, [d, attr], exc) from None
    out = _new(Tensor)
    out._data = res if res.__class__ is _ndarray else np.asarray(res)
    out._requires_grad = False
    out._grad_fn = None
    out._output_nr = 0
    out._vc = None
    if x._requires_grad and op.differentiable:
        rec = op.record
        if rec is not None:
            rec((x, attr), out)
        else:
            _record_generic(op, (x, attr), (out,))
    return out


def binary(op, a, b):
    """``dispatch`` unrolled for two tensor-or-scalar inputs and no attributes; the
    reference of the generated operators and ``graphgrad.add/sub/mul/div`` (NOTE
    [reference path])."""
    if not ALL_THREADS.plain and tls.interposers:  # NOTE [interposition]
        if not tls.interpose_skip:
            return _interposed(op, binary, (op, a, b), {})
        tls.interpose_skip = False
    kernel = op.kernel
    ad = a._data
    bc = b.__class__
    if bc is Tensor or isinstance(b, Tensor):
        bd = b._data
        req = a._requires_grad or b._requires_grad
        if ad.dtype is not bd.dtype and ad.dtype != bd.dtype or (
                op.promote == "float" and ad.dtype.kind not in "fcV"):
            datas = [ad, bd]
            _promote(op, (a, b), datas, 2)
            ad, bd = datas
    elif bc is float or bc is int or bc is bool or bc is complex:
        bd = b
        req = a._requires_grad
        k = ad.dtype.kind
        if (k != "f" and k != "c" and k != "V") and (bc is not int or k == "b") or \
                (bc is complex and k != "c") or op.promote == "float" or \
                bc is float and (k == "V" or (  # bfloat16 * 1.5: NumPy would give float32
                    ad.dtype is FLOAT16 and op.half_scalar_kernel is not None)) or \
                bc is int and op.half_scalar_kernel is not None and (k == "V" or
                                                                     ad.dtype is FLOAT16):
            if (bc is float or bc is int) and (ad.dtype is BFLOAT16 or ad.dtype is FLOAT16) \
                    and op.half_scalar_kernel is not None:
                # (half * 0.1 or * 257 in float32, rounded once; NumPy would round the
                # number to the half type first: 257 becomes 256 in bfloat16)
                kernel = op.half_scalar_kernel
            else:
                datas = [ad, bd]
                _promote(op, (a, b), datas, 2)
                ad, bd = datas
    else:
        return NotImplemented
    try:
        res = kernel(ad, bd)
    except Exception as exc:
        raise _kernel_error(op, [ad, bd], exc) from None
    if bd.__class__ is _ndarray and not ad.flags.c_contiguous:  # (PyTorch's layout)
        res = follow_layout(res, (ad, bd))
    out = _new(Tensor)
    out._data = res if res.__class__ is _ndarray else np.asarray(res)
    out._requires_grad = False
    out._grad_fn = None
    out._output_nr = 0
    out._vc = None
    if req and op.differentiable:
        if ALL_THREADS.plain:  # grad mode on, no extras (in every thread)
            rec = op.record
            if rec is not None:
                rec((a, b), out)
            else:
                _record_generic(op, (a, b), (out,))
            return out
        if tls.grad_enabled:
            _record(op, (a, b), (out,))
    if not ALL_THREADS.plain and tls.extras_on:
        _run_extras(op, (a, b), (out,))
    return out


def replay_view(chain, base):
    """Apply a recorded view chain to ``base`` (ndarray or Tensor)."""
    ops = []
    while chain is not None:
        chain, op, attrs = chain
        ops.append((op, attrs))
    x = base
    for op, attrs in reversed(ops):
        if isinstance(x, Tensor):
            x = dispatch(op, x, *attrs)
        else:
            x = op.kernel(x, *attrs)
    return x
