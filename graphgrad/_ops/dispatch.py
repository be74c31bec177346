"""The dispatcher: the one place that turns an op call into a graph node (seed 002).

``dispatch(op, *args)`` unwraps the arrays, promotes dtypes, runs the NumPy
kernel, and -- only when grad mode is on and an input requires grad --
creates the op's backward node, sets its next edges from the inputs'
gradient edges, saves what the rules need as SavedVariables and sets the
outputs' history.  When a forward-AD level is active it also pushes tangents
through the op's JVP rule.  ``unary``/``binary`` are the same steps unrolled
for the common cases; ``dispatch_inplace`` handles ``op_`` variants,
rebasing history (and the base's, through CopySlices, for views).
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import _dtype
from .._state import HOT, tls
from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd.graph import Node, gradient_edge
from ..autograd.saved import INFERENCE, SavedVariable, VersionCounter
from .opmath import BFLOAT16, FLOAT16
from .registry import ELEMENTWISE, LINEAR, POINTWISE

_weakref = weakref.ref

_seq = _graph._sequence_nr
_wrap = Tensor._wrap
_new = object.__new__
_ndarray = np.ndarray
_NO_EDGE = (None, 0)
_SCALARS = (float, int, bool, complex)
# pointwise ops whose PyTorch result is contiguous, not laid out by TensorIterator (a
# clone, a fill, a sample): ``follow_layout`` leaves them alone
_OWN_LAYOUT = frozenset({"masked_fill.Scalar", "masked_fill.Tensor", "normal.Tensor_Tensor",
                         "copy", "fill.Tensor"})


# ====================================================================== nodes
class FormulaNode(Node):
    """A backward node whose rules come from the op table.

    What the rules need is saved in the generated class's slots ``_s0, _s1, ...``, one
    per saved name.  A slot holds a SavedVariable, a plain value (an attribute, sizes, a
    Python scalar operand, None when no edge needs it), or -- as the generated record
    writes it on the hot path -- a saved tensor *inline*, without a SavedVariable object:
    an input as the Tensor itself with its version in ``_v<i>``, the node's own output
    as its array with the output's version counter in ``_v<i>`` (saved at version 0).
    ``_saved`` turns inline entries into SavedVariables (once, in place) for everything
    off the hot path: hooks, anomaly mode, ``_saved_<name>``, create_graph.
    """

    __slots__ = ("_out_meta",)
    _exact_outs = True  # (the generated rules give one gradient per input, by construction)
    _op = None
    _srcs = ()   # per VJP: tuple of sources, -1 grad, -2 grads, k >= 0 saved slot
    _slots = ()  # the saved-value slot names of the generated class

    @property
    def _saved(self):
        kinds = self._op.save_kinds
        out = []
        for i, name in enumerate(self._slots):
            s = getattr(self, name)
            kind = kinds[i][0]
            if kind == "input" and s.__class__ is Tensor:
                s = _sv_of_input(s, getattr(self, "_v" + name[2:]))
                setattr(self, name, s)
            elif kind == "result" and s.__class__ is _ndarray:
                s = _sv_of_result(s, getattr(self, "_v" + name[2:]))
                setattr(self, name, s)
            out.append(s)
        return out

    @_saved.setter
    def _saved(self, values):
        for name, v in zip(self._slots, values):
            setattr(self, name, v)

    def _apply(self, grads, mask, create_graph):
        op = self._op
        grad = grads[0]
        if op.n_outputs != 1:
            if all(g is None for g in grads):
                return [None] * len(self._next_nodes)
            grads = _materialize(grads, self._out_meta, create_graph)
            grad = grads[0]
        elif grad is None:
            return [None] * len(self._next_nodes)
        names = op.save_names
        if create_graph:
            env = [s.unpack(self, names[i]) if s.__class__ is SavedVariable else s
                   for i, s in enumerate(self._saved)]
        else:
            env = [s.unpack_data(self, names[i]) if s.__class__ is SavedVariable else s
                   for i, s in enumerate(self._saved)]
        env.append(grads)   # index -2
        env.append(grad)    # index -1
        rules = op.vjps
        out = []
        nodes = self._next_nodes
        for k, srcs in enumerate(self._srcs):
            if (nodes[k] is not None) if mask is None else mask[k]:
                out.append(rules[k][0](*[env[j] for j in srcs]))
            else:
                out.append(None)
        return out

    def _get_saved(self, key, raw):
        """``grad_fn._saved_<key>`` / ``_raw_saved_<key>``, as in PyTorch (each generated
        node class has these as properties: no ``__getattr__``, which would slow down
        every attribute read of every node)."""
        op = type(self)._op
        s = self._saved[op.save_names.index(key)]
        if s.__class__ is SavedVariable:
            if raw:
                return _RawSaved(s, self, key)
            return s.unpack(self, key, detached_ok=True)
        if key in op.tensor_params and s is not None:
            s = _wrap(np.asarray(s))  # a wrapped number, as PyTorch shows it
        if raw:
            return None if s is None else _RawSaved(SavedVariable(s, False), self, key)
        from ..autograd._saved_attrs import public_value
        return public_value(self, key, s)


class _RawSaved:
    """What ``_raw_saved_<name>`` returns: lets a user register saved-tensor hooks on it."""

    def __init__(self, sv, node, name):
        self._sv, self._node, self._name = sv, node, name

    def register_hooks(self, pack_hook, unpack_hook):
        sv = self._sv
        if sv.data is None and sv.packed is None:
            raise RuntimeError("Trying to register hooks on a saved tensor that has been freed")
        if sv.packed is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor more than once")
        t = sv.unpack(self._node, self._name)
        from ..autograd.saved import call_pack_hook
        sv.packed = (call_pack_hook(pack_hook, t.detach() if sv.tensor is None else t, sv.vc),)
        sv.unpack_hook = unpack_hook
        sv.data = None
        if sv.tensor is not None:
            from ..autograd.saved import _LeafRef
            sv.tensor = _LeafRef(sv.tensor)


def _freed_saved_variable():
    sv = SavedVariable.__new__(SavedVariable)
    sv.data = sv.tensor = sv.packed = None
    return sv


_FREED = _freed_saved_variable()  # shared: a freed saved value carries no state


def _sv_of_input(t, version):
    """The SavedVariable of an input saved inline (the tensor at ``version``; a tensor
    without a counter then has never been bumped since, so it gets one at 0)."""
    sv = SavedVariable(t, False)
    sv.version = version
    return sv


def _sv_of_result(data, vc):
    """The SavedVariable of a node's own (single) output saved inline at version 0."""
    sv = _new(SavedVariable)
    sv.data = data
    sv.vc = vc
    sv.version = 0
    sv.packed = sv.fw = sv.tensor = None
    sv.output_nr = 0
    sv.requires_grad = True
    return sv


def _unpack_stale(node, i):
    """Raise the error for an inline saved tensor modified in place since it was saved."""
    return node._saved[i].unpack_data(node, node._op.save_names[i])


def _materialize(grads, meta, create_graph):
    out = list(grads)
    # zeros for the missing gradients carry the same leading batch dims as the given ones
    # (autograd.grad(..., is_grads_batched=True))
    batch = ()
    for g, (shape, _) in zip(out, meta):
        if g is not None:
            gs = g._data.shape if isinstance(g, Tensor) else np.shape(g)
            batch = tuple(gs[:len(gs) - len(shape)])
            break
    for i, g in enumerate(out):
        if g is None:
            shape, dt = meta[i]
            z = np.zeros(batch + tuple(shape), dt)
            out[i] = _wrap(z) if create_graph else z
    return out


def make_node_class(op):
    names = op.save_names
    srcs = []
    for rule in op.vjps:
        srcs.append(tuple(-1 if p == "grad" else (-2 if p == "grads" else names.index(p))
                          for p in rule[1]))
    slots = tuple(f"_s{i}" for i in range(len(names)))
    versions = tuple(f"_v{i}" for i, (kind, _) in enumerate(op.save_kinds)
                     if kind in ("input", "result"))
    attrs = {"__slots__": slots + versions, "_slots": slots, "_op": op, "_srcs": tuple(srcs),
             "__module__": "graphgrad.autograd.generated"}
    for key in names:
        attrs["_saved_" + key] = property(lambda self, _k=key: self._get_saved(_k, False))
        attrs["_raw_saved_" + key] = property(lambda self, _k=key: self._get_saved(_k, True))
    from ..autograd._saved_attrs import extra_attributes
    for key, fn in extra_attributes(op).items():  # PyTorch's, computed when read
        attrs["_saved_" + key] = property(fn)
    if op.n_outputs == 1:
        attrs["_apply"] = _specialized_apply(op, tuple(srcs))
        attrs["_step"] = _specialized_step(op, tuple(srcs))
    attrs["release_variables"] = _specialized_release(op)
    from ..autograd._saved_attrs import free_tensor_attributes
    free_tensor_attributes(op, attrs, _FREED)  # (index tensors: freed as PyTorch frees them)
    if op.node_name in _HANDWRITTEN:
        # PyTorch's hand-written C++ nodes report a qualified name()
        attrs["name"] = lambda self, _n="torch::autograd::" + op.node_name: _n
    return type(op.node_name, (FormulaNode,), attrs)


_HANDWRITTEN = {"CopyBackwards"}  # node names that are C++ classes in PyTorch


def _unpack_data_lines(i, name, ind):
    """Generated lines: saved slot ``s{i}`` (a SavedVariable) -> its ndarray, through
    ``unpack_data`` (which raises) only when freed, hooked or modified in place."""
    return [f"{ind}d = s{i}.data",
            f"{ind}if d is None or s{i}.vc.value != s{i}.version:",
            f"{ind}    d = s{i}.unpack_data(self, {name!r})  # freed, hooked, modified",
            f"{ind}elif s{i}.tensor is not None:  # an input: its array now (t.data = ...)",
            f"{ind}    d = s{i}.tensor._data",
            f"{ind}s{i} = d"]


def _release_lines(i, ind):
    """Generated lines freeing saved slot ``i`` (its value held in ``sv{i}``): a
    SavedVariable drops its data; an inline tensor, or a saved Python scalar input
    (PyTorch saves it as a tensor, so a second backward through it must fail too),
    becomes the freed marker."""
    return [f"{ind}if sv{i}.__class__ is SV:",
            f"{ind}    sv{i}.data = sv{i}.tensor = sv{i}.packed = None",
            f"{ind}elif sv{i} is not None:",
            f"{ind}    self._s{i} = _FREED"]


def _specialized_apply(op, srcs):
    """``FormulaNode._apply`` unrolled for one op (what PyTorch's codegen does in C++).

    The generic version builds an argument list per rule on every call; this one is
    generated once per op, with the saved values unpacked into locals and each rule
    called with them directly.  Same semantics: all saved values are unpacked (and
    version-checked) first, then each needed edge's rule runs.
    """
    names = op.save_names
    lines = ["def _apply(self, grads, mask, create_graph):",
             "    grad = grads[0]",
             "    if grad is None:",
             f"        return [None] * {len(srcs)}"]
    if names:
        lines.append("    saved = self._saved")
    for i, n in enumerate(names):
        lines += [f"    s{i} = saved[{i}]",
                  f"    if s{i}.__class__ is SV:",
                  "        if create_graph:",
                  f"            s{i} = s{i}.unpack(self, {n!r})",
                  "        else:"] + _unpack_data_lines(i, n, "            ")
    lines.append("    nodes = self._next_nodes")
    outs = []
    for k, src in enumerate(srcs):
        args = ", ".join("grad" if j == -1 else ("grads" if j == -2 else f"s{j}") for j in src)
        lines += [f"    if (nodes[{k}] is not None) if mask is None else mask[{k}]:",
                  f"        o{k} = rule{k}({args})",
                  "    else:",
                  f"        o{k} = None"]
        outs.append(f"o{k}")
    lines.append(f"    return [{', '.join(outs)}]")
    env = {"SV": SavedVariable}
    env.update({f"rule{k}": rule[0] for k, rule in enumerate(op.vjps)})
    exec(compile("\n".join(lines), f"<backward of {op.node_name}>", "exec"), env)
    return env["_apply"]


_IDENTITY_CODE = (lambda grad: grad).__code__.co_code


def _is_identity(rule):
    """Whether a VJP rule is ``lambda grad: grad`` (add, sub, clone, ...): the generated
    step then passes the gradient on without a call."""
    code = getattr(rule, "__code__", None)
    return code is not None and code.co_argcount == 1 and code.co_code == _IDENTITY_CODE \
        and not rule.__defaults__ and not rule.__closure__


def _specialized_step(op, srcs):
    """``Node._step`` (``_apply`` in a plain backward, then ``release_variables``) unrolled
    for one op: the engine's hot path makes one call per node.  Saved tensors are released
    only after every rule has run, as when the two are called one after the other."""
    names = op.save_names
    kinds = op.save_kinds
    lines = ["def _step(self, grads, keep_graph):",
             "    grad = grads[0]",
             "    if grad is None:",
             "        if not keep_graph:",
             "            self.release_variables()",
             f"        return [None] * {len(srcs)}"]
    release = []
    for i, n in enumerate(names):
        lines += [f"    s{i} = self._s{i}"]
        kind = kinds[i][0]
        if kind in ("input", "result"):
            lines.append(f"    sv{i} = s{i}")
            if kind == "input":  # inline: the tensor, saved at version _v{i}
                lines += [f"    if s{i}.__class__ is Tensor:",
                          f"        vc = s{i}._vc",
                          f"        if vc is not None and vc.value != self._v{i}:",
                          f"            _unpack_stale(self, {i})  # raises",
                          f"        s{i} = s{i}._data"]
            else:  # inline: the output's array, its version counter in _v{i}
                lines += [f"    if s{i}.__class__ is _ndarray:",
                          f"        if self._v{i}.value:",
                          f"            _unpack_stale(self, {i})  # raises"]
            lines += [f"    elif s{i}.__class__ is SV:"] + _unpack_data_lines(i, n, "        ")
            release += _release_lines(i, "        ")
    lines.append("    nodes = self._next_nodes")
    outs = []
    for k, src in enumerate(srcs):
        args = ", ".join("grad" if j == -1 else ("grads" if j == -2 else f"s{j}") for j in src)
        call = "grad" if _is_identity(op.vjps[k][0]) and src == (-1,) else f"rule{k}({args})"
        lines += [f"    o{k} = {call} if nodes[{k}] is not None else None"]
        outs.append(f"o{k}")
    if release:
        lines.append("    if not keep_graph:")
        lines += release
    lines.append(f"    return [{', '.join(outs)}]")
    env = {"SV": SavedVariable, "_FREED": _FREED, "Tensor": Tensor, "_ndarray": _ndarray,
           "_unpack_stale": _unpack_stale}
    env.update({f"rule{k}": rule[0] for k, rule in enumerate(op.vjps)})
    exec(compile("\n".join(lines), f"<backward step of {op.node_name}>", "exec"), env)
    return env["_step"]


def _specialized_release(op):
    """``release_variables`` of one op's node class: saved tensors are freed (a
    later unpack raises the "backward through the graph a second time" error), saved
    Python scalars are replaced by a freed marker (PyTorch saves them as tensors), saved
    attributes and sizes stay readable."""
    kinds = op.save_kinds
    tensors = [i for i, (kind, _) in enumerate(kinds) if kind in ("input", "result")]
    if not tensors:
        return lambda self: None
    lines = ["def release_variables(self):"]
    for i in tensors:
        lines.append(f"    sv{i} = self._s{i}")
        lines += _release_lines(i, "    ")
    env = {"SV": SavedVariable, "_FREED": _FREED}
    exec(compile("\n".join(lines), f"<release of {op.node_name}>", "exec"), env)
    return env["release_variables"]


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
        elif d is not None and d.__class__ is not bool and rt.category < 2 and \
                isinstance(d, (float, complex)):
            pass
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
    if HOT.fast:  # grad mode on, no extras (in every thread)
        if any_req and op.differentiable:
            _record(op, args, outs)
        return out
    if any_req and op.differentiable and tls.grad_enabled:
        _record(op, args, outs)
    if tls.extra:
        _extra(op, args, outs)
    return out


def _record(op, args, outs):
    """Create ``op``'s backward node for this call and set the outputs' history."""
    rec = op.record
    if rec is not None:
        return rec(args, outs[0])
    return _record_generic(op, args, outs)


def _record_generic(op, args, outs):
    """``_record`` for any op (several outputs, non-differentiable outputs)."""
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
            if code == 0:
                a = args[idx]
                saved.append(SavedVariable(a, False) if isinstance(a, Tensor) else a)
            elif code == 1:
                saved.append(args[idx])
            elif code == 2:
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
        meta = _META.get(key)
        if meta is None:
            if len(_META) > 4096:
                _META.clear()
            meta = _META[key] = (key,)
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
            if code == 3 and (needed is None or any(edges[j][0] is not None for j in needed)):
                setattr(node, node._slots[i], SavedVariable(outs[idx], True))
    return node


def record_lines(op, argx, ind):
    """Source lines recording one call of a single-output op (see ``make_record``).

    ``argx[i]`` is the expression for argument ``i``, ``o`` the output tensor.  Nested
    ifs rather than early returns, so that the lines can be inlined into a generated
    entry function; ``node`` is left bound to the new node (or unbound when none).
    """
    diff = op.diff_pos
    lines = []
    for k, i in enumerate(diff):
        a = argx[i]
        # (gradient_edge inlined: a tensor that does not require grad has no edge, a leaf
        # reaches its live AccumulateGrad through its weakref; views take _edge); the
        # edge is kept as its node n{k} and input number r{k}, no tuple
        lines += [f"{ind}if {a}.__class__ is Tensor:",
                  f"{ind}    if not {a}._requires_grad:",
                  f"{ind}        n{k} = None",
                  f"{ind}        r{k} = 0",
                  f"{ind}    elif {a}._base is None:",
                  f"{ind}        n{k} = {a}._grad_fn",
                  f"{ind}        if n{k} is None:",
                  f"{ind}            n{k} = {a}._acc",
                  f"{ind}            n{k} = n{k}() if n{k} is not None else None",
                  f"{ind}            if n{k} is None:",
                  f"{ind}                n{k} = _acc({a})",
                  f"{ind}            r{k} = 0",
                  f"{ind}        else:",
                  f"{ind}            r{k} = {a}._output_nr",
                  f"{ind}    else:",
                  f"{ind}        n{k}, r{k} = _edge({a})",
                  f"{ind}elif isinstance({a}, Tensor):",
                  f"{ind}    n{k}, r{k} = _edge({a})",
                  f"{ind}else:",
                  f"{ind}    n{k} = None  # a Python scalar or None",
                  f"{ind}    r{k} = 0"]
    lines.append(f"{ind}if " + " or ".join(f"n{k} is not None" for k in range(len(diff))) + ":")
    ind2 = ind + "    "
    lines += [f"{ind2}d = o._data",
              f"{ind2}dt = d.dtype",
              f"{ind2}if dt.kind in 'fcV':  # integer/bool results never require grad"]
    ind3 = ind2 + "    "
    lines += [f"{ind3}node = _new(Cls)",
              f"{ind3}node._seq = next(_seq)",
              f"{ind3}node._next_nodes = ({''.join(f'n{k}, ' for k in range(len(diff)))})",
              f"{ind3}node._next_nrs = " + (
                  f"_Z{len(diff)} if not ({' or '.join(f'r{k}' for k in range(len(diff)))}) "
                  f"else ({''.join(f'r{k}, ' for k in range(len(diff)))})"),
              f"{ind3}o._requires_grad = True",
              f"{ind3}o._grad_fn = node",
              f"{ind3}sh = d.shape",
              f"{ind3}meta = _LAST[0]  # the last op's metadata: often the same",
              f"{ind3}key = meta[0]",
              f"{ind3}if key[1] is not dt or key[0] != sh:",
              f"{ind3}    key = (sh, dt)",
              f"{ind3}    meta = _META.get(key)",
              f"{ind3}    if meta is None:",
              f"{ind3}        meta = _new_meta(key)",
              f"{ind3}    _LAST[0] = meta",
              f"{ind3}node._out_meta = meta"]
    for k, (code, idx, needed) in enumerate(op.save_plan):
        i4 = ind3
        if needed is not None:
            lines.append(f"{ind3}if " + " or ".join(f"n{j} is not None" for j in needed) + ":")
            i4 = ind3 + "    "
        if code == 0:
            a = argx[idx]
            # a plain tensor is saved inline: itself and its version (no SavedVariable)
            lines += [f"{i4}if {a}.__class__ is Tensor:",
                      f"{i4}    vc = {a}._vc",
                      f"{i4}    if vc is None:",
                      f"{i4}        node._s{k} = {a}",
                      f"{i4}        node._v{k} = 0",
                      f"{i4}    elif vc.__class__ is VC:  # (not an inference tensor's marker)",
                      f"{i4}        node._s{k} = {a}",
                      f"{i4}        node._v{k} = vc.value",
                      f"{i4}    else:",
                      f"{i4}        node._s{k} = SV({a}, False)  # raises",
                      f"{i4}elif isinstance({a}, Tensor):",
                      f"{i4}    node._s{k} = SV({a}, False)",
                      f"{i4}else:",
                      f"{i4}    node._s{k} = {a}"]
        elif code == 1:
            lines.append(f"{i4}node._s{k} = {argx[idx]}")
        elif code == 2:
            a = argx[idx]
            lines.append(f"{i4}node._s{k} = {a}._data.shape if isinstance({a}, Tensor) else ()")
        else:
            # a fresh output is saved inline: its array and a new version counter
            lines += [f"{i4}if o._vc is None:",
                      f"{i4}    vc = o._vc = _new(VC)",
                      f"{i4}    vc.value = 0",
                      f"{i4}    node._s{k} = d",
                      f"{i4}    node._v{k} = vc",
                      f"{i4}else:",
                      f"{i4}    node._s{k} = SV(o, True)"]
        if needed is not None:
            lines += [f"{ind3}else:", f"{ind3}    node._s{k} = None"]
    return lines


def record_env(op):
    """Globals for code built from ``record_lines``."""
    return {"Tensor": Tensor, "_acc": _graph.grad_accumulator, "_edge": _edge, "_new": _new,
            "Cls": op.node_cls, "_seq": _seq, "_META": _META, "_new_meta": _new_meta,
            "SV": SavedVariable, "_LAST": _LAST, "VC": VersionCounter,
            f"_Z{len(op.diff_pos)}": _graph.zeros(len(op.diff_pos))}


def make_record(op):
    """``_record`` unrolled for one single-output op (generated once, like its ``_apply``).

    Same steps as ``_record_generic``: the next edges from the differentiable inputs
    (nothing recorded when none requires grad), the node, what the rules need saved
    (an input only when an edge whose rule reads it exists), the output's history, the
    output itself saved last (it needs its grad_fn).
    """
    if op.n_outputs != 1 or op.nondiff_outputs:
        return None
    argx = [f"args[{i}]" for i in range(len(op.params))]
    lines = ["def record(args, o):", "    node = None"]
    lines += record_lines(op, argx, "    ")
    lines.append("    return node")
    env = record_env(op)
    exec(compile("\n".join(lines), f"<record of {op.name}>", "exec"), env)
    return env["record"]


def _new_meta(key):
    if len(_META) > 4096:
        _META.clear()
    meta = _META[key] = (key,)
    return meta


# (shape, dtype) -> ((shape, dtype),): one shared _out_meta per output signature, so a
# recorded op keeps no metadata tuples of its own alive (fewer objects for the GC to walk)
_META = {}
_LAST = [((None, None),)]  # the metadata the last generated record used


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


# ====================================================================== fast paths
def unary(op, x):
    """``dispatch`` unrolled for one tensor input and no attributes."""
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
        if HOT.fast:  # grad mode on, no extras (in every thread)
            rec = op.record
            if rec is not None:
                rec((x,), out)
            else:
                _record_generic(op, (x,), (out,))
            return out
        if tls.grad_enabled:
            _record(op, (x,), (out,))
    if not HOT.fast and tls.extra:
        _extra(op, (x,), (out,))
    return out


def binary(op, a, b):
    """``dispatch`` unrolled for two tensor-or-scalar inputs and no attributes."""
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
        if HOT.fast:  # grad mode on, no extras (in every thread)
            rec = op.record
            if rec is not None:
                rec((a, b), out)
            else:
                _record_generic(op, (a, b), (out,))
            return out
        if tls.grad_enabled:
            _record(op, (a, b), (out,))
    if not HOT.fast and tls.extra:
        _extra(op, (a, b), (out,))
    return out


# ---------------------------------------------------------------- generated entries
# ``unary`` / ``binary`` with one op's constants folded in and its record inlined: the
# public function (``graphgrad.sin``) or operator (``Tensor.__mul__``) of the most common
# elementwise ops is then one Python frame from the call to the NumPy kernel and back.
_TENSOR_INIT = ["    o = _new(Tensor)",
                "    o._data = res if res.__class__ is _ndarray else _asarray(res)",
                "    o._requires_grad = False",
                "    o._grad_fn = None",
                "    o._output_nr = 0",
                "    o._vc = None"]


def _entry_tail(op, args, req, ret):
    lines = []
    if op.differentiable:
        lines += [f"    if {req}:",
                  "        if HOT.fast:  # grad mode on, no extras (in every thread)"]
        if op.record is not None:
            lines += record_lines(op, ["x0", "x1"], "            ")
        else:
            lines.append(f"            _record_generic(op, {args}, (o,))")
        lines += [f"            return {ret}",
                  "        if tls.grad_enabled:",
                  f"            _record(op, {args}, (o,))"]
    lines += ["    if not HOT.fast and tls.extra:",
              f"        _extra(op, {args}, (o,))",
              f"    return {ret}"]
    return lines


def _entry_env(op):
    env = record_env(op) if op.record is not None else {}
    env.update({"op": op, "kernel": op.kernel, "tls": tls, "HOT": HOT, "Tensor": Tensor,
                "_new": _new, "_ndarray": _ndarray, "_asarray": np.asarray,
                "_kernel_error": _kernel_error, "_record": _record,
                "_record_generic": _record_generic, "_extra": _extra, "_promote": _promote,
                "_dtype": _dtype, "_set_view": _set_view})
    return env


def _compile_entry(op, name, label, lines, args, req, ret, **names):
    """Finish and compile an entry whose ``lines`` leave the kernel's result in ``res``:
    wrap it as the output ``o`` (a view of ``args[0]`` for a view op), record when ``req``
    and grad mode allow, return ``ret``.  ``names`` are extra globals of the code."""
    lines = lines + _TENSOR_INIT
    if op.is_view:
        lines.append(f"    _set_view(op, {args}, o)")
    lines += _entry_tail(op, args, req, ret)
    env = _entry_env(op)
    env.update(names)
    exec(compile("\n".join(lines), label, "exec"), env)
    return env[name]


def make_unary_function(op, name, check, finish_out):
    """``graphgrad.<name>(input, *, out=None)`` for a one-input op without attributes.

    check(input): raises for a non-Tensor input; finish_out(result, out): ``out=``."""
    lines = [f"def {name}(input, *, out=None):",
             "    if input.__class__ is not Tensor:",
             "        check(input)",
             "    x0 = input",
             "    d = x0._data"]
    f16 = getattr(op.kernel, "raw", None) is not None  # opmath.float16_via_float64
    if f16:  # (same tests as below for float64/float32/complex/bfloat16)
        lines += ["    kern = raw",
                  "    if d.dtype.char not in 'dfFDgGE':",
                  "        if d.dtype is FLOAT16:",
                  "            kern = kernel",
                  "        else:",
                  "            d = d.astype(_dtype.get_default_dtype().np)"]
    elif op.promote:
        lines += ["    if d.dtype.kind not in 'fcV':",
                  "        d = d.astype(_dtype.get_default_dtype().np)"]
    lines += ["    try:",
              "        res = kern(d)" if f16 else "        res = kernel(d)",
              "    except Exception as exc:",
              "        raise _kernel_error(op, [d], exc) from None"]
    return _compile_entry(op, name, f"<graphgrad.{name}>", lines, "(x0,)", "x0._requires_grad",
                          "o if out is None else finish_out(o, out)",
                          check=check, finish_out=finish_out,
                          raw=getattr(op.kernel, "raw", None), FLOAT16=FLOAT16)


def make_binary_operator(op, name):
    """``Tensor.<name>(self, other)`` (``__add__``, ``__mul__``, ...): ``binary(op, self,
    other)`` generated for one op."""
    half = op.half_scalar_kernel is not None
    lines = [f"def {name}(x0, x1):",
             "    kern = kernel" if half else "",
             "    ad = x0._data",
             "    bc = x1.__class__",
             "    if bc is Tensor or isinstance(x1, Tensor):",
             "        bd = x1._data",
             "        req = x0._requires_grad or x1._requires_grad",
             "        if ad.dtype is not bd.dtype and ad.dtype != bd.dtype or (",
             "                op.promote == 'float' and ad.dtype.kind not in 'fcV'):",
             "            datas = [ad, bd]",
             "            _promote(op, (x0, x1), datas, 2)",
             "            ad, bd = datas",
             "    elif bc is float or bc is int or bc is bool or bc is complex:",
             "        bd = x1",
             "        req = x0._requires_grad",
             "        k = ad.dtype.kind",
             "        if (k != 'f' and k != 'c' and k != 'V') and (bc is not int or k == 'b') or \\",
             "                (bc is complex and k != 'c') or op.promote == 'float' or \\",
             "                (k == 'V' and bc is float):  # bfloat16 * 1.5: NumPy gives float32"
             if not half else
             "                (bc is float or bc is int) and (k == 'V' or ad.dtype is FLOAT16):"
             "  # (bfloat16 * 1.5: NumPy gives float32; * 257: NumPy rounds it)"]
    if half:
        lines += [
             "            if (bc is float or bc is int) and (ad.dtype is BFLOAT16 or "
             "ad.dtype is FLOAT16):",
             "                kern = half_kernel  # (half * 0.1 in float32, rounded once)",
             "            else:",
             "                datas = [ad, bd]",
             "                _promote(op, (x0, x1), datas, 2)",
             "                ad, bd = datas"]
    else:
        lines += [
             "            datas = [ad, bd]",
             "            _promote(op, (x0, x1), datas, 2)",
             "            ad, bd = datas"]
    lines += ["    else:",
              "        return NotImplemented",
              "    try:",
              "        res = kern(ad, bd)" if half else "        res = kernel(ad, bd)",
              "    except Exception as exc:",
              "        raise _kernel_error(op, [ad, bd], exc) from None",
              "    if bd.__class__ is _ndarray and not ad.flags.c_contiguous:  # (torch's layout)",
              "        res = follow_layout(res, (ad, bd))"]
    lines = [line for line in lines if line]
    return _compile_entry(op, name, f"<Tensor.{name}>", lines, "(x0, x1)", "req", "o",
                          half_kernel=op.half_scalar_kernel, BFLOAT16=BFLOAT16,
                          FLOAT16=FLOAT16, follow_layout=follow_layout)


def make_matmul_entry(op, name, params, general):
    """``name(a, b)`` for ``op`` = mm: two 2-D tensors of one dtype take one frame from
    the call to the product and back (the RNN/MLP hot path); anything else (other ranks,
    mixed dtypes, non-tensors, a shape mismatch, which the general path reports) goes to
    ``general(a, b)``."""
    a, b = params
    lines = [f"def {name}({a}, {b}):",
             f"    if {a}.__class__ is not Tensor or {b}.__class__ is not Tensor:",
             f"        return general({a}, {b})",
             f"    ad = {a}._data",
             f"    bd = {b}._data",
             "    dt = ad.dtype",
             "    if ad.ndim != 2 or bd.ndim != 2 or bd.dtype is not dt or dt is _BOOL:",
             f"        return general({a}, {b})",
             f"    x0 = {a}",
             f"    x1 = {b}",
             "    try:",
             "        res = _matmul(ad, bd)",
             "    except ValueError:  # the sizes do not match: the general path says how",
             f"        return general({a}, {b})",
             "    if res.dtype is not dt:  # bfloat16: NumPy's product is float32",
             "        res = res.astype(dt)"]
    return _compile_entry(op, name, f"<Tensor.{name}>", lines, "(x0, x1)",
                          "x0._requires_grad or x1._requires_grad", "o",
                          general=general, _matmul=np.matmul, _BOOL=np.dtype(np.bool_))


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
    if not HOT.fast and not tls.grad_enabled:
        # a view made under no_grad / inference_mode: an in-place change of it in grad mode
        # is refused (check_inplace), as in PyTorch; of a tensor that requires grad, it
        # still requires grad (as a leaf), unless it is an inference tensor's (PyTorch's
        # views of inference tensors never require grad)
        out._view_mode = "inference" if tls.inference else "no_grad"
        if x._requires_grad and vc is not INFERENCE:
            out._requires_grad = True


def select_view(x, d, key, select):
    """``x[key]`` (an int, in range) of a tensor that does not require grad, with nothing
    to record (``HOT.fast``): ``_wrap`` and ``_set_view`` in one frame (t[i] of a constant
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


def _view_edge(a):
    """The gradient edge of a view, regenerating its grad_fn if its base changed in place."""
    if a._view_ver != a._vc.value and a._base._requires_grad:
        _regenerate_view_grad_fn(a)
    fn = a._grad_fn
    if fn is not None:
        return (fn, a._output_nr)
    return (_graph.grad_accumulator(a), 0)


def _regenerate_view_grad_fn(view):
    from .inplace import AsStridedBackward0, chain_for_base
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
        elif self._grad_fn is None and self._requires_grad:
            raise RuntimeError(
                f"a leaf Variable that requires grad is being used in an in-place operation "
                f"({op_name}). Wrap the update in `with graphgrad.no_grad():` (as an optimizer "
                "step does) or operate on a clone.")
    if self._vc is INFERENCE and not tls.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed. You can "
            "make a clone to get a normal tensor before doing inplace update.")


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
        d = datas[i]
        if d.__class__ is _ndarray and np.may_share_memory(sd, d) and _partial_overlap(sd, d):
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
    if tls.extra:
        if record and node is not None and tls.saved_hooks:
            _pack_saved(node, False)  # inputs, at their versions before the write
        if tls.mutation_ctx is not None:
            from ..autograd._saved_hooks import before_inplace
            before_inplace(self)
    # forward AD: the JVP rules need self's value from before the update
    fw_old = _wrap(sd.copy()) if tls.extra and tls.fw_level is not None else None
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
    if tls.extra:
        if record and node is not None and tls.saved_hooks:
            _pack_saved(node, True)  # the result, at its new version
        _extra_inplace(op, self, full, fw_old)
    return self


def _overlaps(a):
    """Whether several elements of ``a`` are one memory location (an expanded dim)."""
    if a.size == 0:  # (NumPy gives an empty array zero strides: nothing is written)
        return False
    for n, s in zip(a.shape, a.strides):
        if s == 0 and n > 1:
            return True
    return False


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


def _partial_overlap(a, b):
    """PyTorch's partial overlap of two arrays that may share memory: both dense (else it
    cannot tell and allows the op) and either the same bytes with other strides or ranges
    that overlap without being the same."""
    if a.size == 0 or b.size == 0:
        return False
    from ..autograd.engine import _dense
    if not (_dense(a) and _dense(b)):
        return False
    a0 = a.__array_interface__["data"][0]
    b0 = b.__array_interface__["data"][0]
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        return a.strides != b.strides
    return a0 < b1 and b0 < a1


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
    from .inplace import make_copy_slices
    make_copy_slices(self, node)



# ====================================================================== extras
def _extra(op, args, outs):
    """Inference mode, saved-tensor hooks, anomaly mode, forward AD: only reached when one
    of them is on (``tls.extra``), so the fast path pays a single flag test."""
    if tls.inference:
        for o in outs:
            if o._vc is None:
                o._vc = INFERENCE
    node = outs[0]._grad_fn if outs else None
    if node is not None and node.__class__ is not Node and isinstance(node, FormulaNode):
        if tls.saved_hooks:
            for s in node._saved:
                if s.__class__ is SavedVariable and s.packed is None:
                    s.pack_with_hooks()
        if tls.anomaly:
            from ..autograd.anomaly_mode import record_traceback
            record_traceback(node)
    if tls.fw_level is not None:
        from ..autograd.forward_ad import push_tangents
        push_tangents(op, args, outs)


def _pack_saved(node, outputs):
    """saved_tensors_hooks for an in-place op's node: pack its saved inputs (``outputs``
    False) or its saved result (True)."""
    for s in node._saved:
        if s.__class__ is SavedVariable and s.packed is None and s.data is not None and \
                (s.tensor is None) is outputs:
            s.pack_with_hooks()


def _extra_inplace(op, self, full, fw_old=None):
    if tls.anomaly and self._grad_fn is not None and self._grad_fn._metadata is None:
        from ..autograd.anomaly_mode import record_traceback
        record_traceback(self._grad_fn)
    if tls.fw_level is not None:
        from ..autograd.forward_ad import push_tangents_inplace
        push_tangents_inplace(op, self, full, fw_old)
