"""The generated hot path against its hand-written reference, op by op, over every OpInfo
sample (issue 17 item 4, option (b)).

Each op's hot path is generated (graphgrad/ops/codegen/): the one-frame entries
(``graphgrad.sin``, ``graphgrad.mul``, ``Tensor.__mul__``, ``matmul``), the unrolled record
(``op.record``, also inlined into the entries) and the node's ``_apply``/``_step``.  The
hand-written generic functions stay as the reference: ``dispatch``/``unary``/``binary``
(and each entry's general function, ``codegen.entries.ENTRIES``), ``_record_generic``,
``FormulaNode._apply`` and ``Node._step``.  Every sample of tests/ops/op_db (float64, and
complex128 where the op supports it) runs twice,
once as shipped and once with every generated piece swapped for its reference
(``reference_path``), and the two runs must agree exactly: the outputs (values, dtype,
shape, strides, requires_grad, output number, view or not), the graph each recorded (node
types, edges, output metadata), what each node saved (values, and the version each saved
tensor was saved at), the gradients each node's ``_step`` and ``_apply`` return for the
same incoming gradients, and the input gradients of a full backward.  No PyTorch needed.
"""
from __future__ import annotations

import contextlib
import sys

import numpy as np
import pytest

import graphgrad as gg
from graphgrad._tensor.tensor import Tensor
from graphgrad.autograd.graph import AccumulateGrad, Node
from graphgrad.autograd.saved import SavedVariable
from graphgrad.ops.codegen.entries import ENTRIES
from graphgrad.ops.node import FormulaNode
from graphgrad.ops.registry import OPS
from tests.ops.op_db import OP_DB
from tests.ops.opinfo import flat_outputs, materialize, stable_seed


# ------------------------------------------------------------------ the reference path
@contextlib.contextmanager
def reference_path():
    """Every generated piece swapped for the hand-written function it is generated from."""
    saved = []
    for fn, kind, op, reference in ENTRIES:
        for holder, name in _holders(fn):
            saved.append((holder, name, fn))
            setattr(holder, name, reference)
    for op in OPS.values():
        if op.record is not None:
            saved.append((op, "record", op.record))
            op.record = None  # dispatch/unary/binary then take _record_generic
        cls = op.node_cls
        if cls is not None:
            for name, generic in (("_apply", FormulaNode._apply), ("_step", Node._step)):
                if name in cls.__dict__:
                    saved.append((cls, name, cls.__dict__[name]))
                    setattr(cls, name, generic)
    try:
        yield
    finally:
        for holder, name, value in reversed(saved):
            setattr(holder, name, value)


_HOLDERS = {}


def _holders(fn):
    """Where the public API holds generated entry ``fn``: (object, attribute name) pairs
    of the graphgrad modules and of Tensor."""
    if not _HOLDERS:
        ids = {id(f) for f, *_ in ENTRIES}
        spaces = [Tensor] + [m for name, m in list(sys.modules.items())
                             if name == "graphgrad" or name.startswith("graphgrad.")]
        for space in spaces:
            for name, value in list(vars(space).items()):
                if id(value) in ids:
                    _HOLDERS.setdefault(id(value), []).append((space, name))
    return _HOLDERS.get(id(fn), [])


def test_every_entry_has_a_holder_and_the_swap_is_undone():
    missing = [f.__name__ for f, *_ in ENTRIES if not _holders(f)]
    assert not missing, f"generated entries the public API does not hold: {missing}"
    before = gg.sin, Tensor.__mul__, gg.mul, OPS["sin"].record
    with reference_path():
        assert gg.sin is not before[0] and Tensor.__mul__ is not before[1]
        assert OPS["sin"].record is None
        assert OPS["sin"].node_cls._step is Node._step
    assert (gg.sin, Tensor.__mul__, gg.mul, OPS["sin"].record) == before
    assert OPS["sin"].node_cls._step is not Node._step


def test_the_reference_path_runs_no_generated_entry_record_or_step():
    def program():
        a = gg.rand(3, 3, requires_grad=True)
        b = gg.rand(3, 3)
        y = gg.matmul(gg.mul(a.sin(), b) + a * 2.0, b).sum(0) / 3
        (gg.add(y, 1.0).exp().sum()).backward()

    files = set()

    def prof(frame, event, arg):
        if event == "call":
            files.add(frame.f_code.co_filename)
    program()  # (compile what it runs: the stubs are generated code too)
    with reference_path():
        sys.setprofile(prof)
        try:
            program()
        finally:
            sys.setprofile(None)
    generated = sorted(f for f in files if f.startswith(
        ("<graphgrad entry", "<graphgrad record", "<graphgrad backward")))
    assert not generated
    assert any(f.startswith("<graphgrad release") for f in files)  # (it has no reference)


# ------------------------------------------------------------------ what a run shows
def _arr(x):
    if isinstance(x, Tensor):
        x = x._data
    return np.asarray(x)


def _value(v):
    """A comparable form of a saved value or a gradient."""
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        return v
    if isinstance(v, (Tensor, np.ndarray, np.generic)):
        a = _arr(v)
        return ("array", a.dtype.str, a.shape, a.tobytes())
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(_value(x) for x in v)
    if isinstance(v, np.dtype):
        return ("dtype", v.str)
    return repr(v)


def _saved_slots(node):
    """What ``node`` saved, read from its slots without unpacking (no version check, no
    conversion): per slot, a tensor's value and the version it was saved at, or the value.
    The generated record saves a tensor inline (an input as itself with its version in
    ``_v<i>``, the node's own output as its array with the output's counter, at version 0);
    the reference saves a SavedVariable."""
    out = []
    for i, name in enumerate(node._slots):
        s = getattr(node, name)
        kind = node._op.save_kinds[i][0]
        if s.__class__ is SavedVariable:
            data = s.data if s.data is not None else s.tensor._data
            out.append(("tensor", _value(data), s.version))
        elif kind == "input" and s.__class__ is Tensor:
            out.append(("tensor", _value(s), getattr(node, name + "_version")))
        elif kind == "result" and s.__class__ is np.ndarray:
            out.append(("tensor", _value(s), 0))
        else:
            out.append(("value", _value(s)))
    return out


def _walk(outs, leaves):
    """The nodes of the graph behind ``outs``, in a deterministic order, and a description
    of each: type, output metadata, edges (as positions in the walk, or the leaf's index)."""
    order, index = [], {}
    todo = [o.grad_fn for o in outs if o.grad_fn is not None]
    while todo:
        n = todo.pop(0)
        if n in index or n.__class__ is AccumulateGrad:
            continue
        index[n] = len(order)
        order.append(n)
        todo.extend(c for c in n._next_nodes if c is not None)
    leaf_ids = {id(t): k for k, t in enumerate(leaves)}

    def edge(c, nr):
        if c is None:
            return None
        if c.__class__ is AccumulateGrad:
            return ("leaf", leaf_ids.get(id(c.variable), "other"), nr)
        return ("node", index[c], nr)
    desc = []
    for n in order:
        d = {"type": type(n).__name__,
             "edges": [edge(c, nr) for c, nr in zip(n._next_nodes, n._next_nrs)],
             "out_meta": [(tuple(s), np.dtype(dt).str) for s, dt in n._out_meta]}
        if isinstance(n, FormulaNode):
            d["saved"] = _saved_slots(n)
        desc.append(d)
    return order, desc


def _incoming(node, seed):
    rng = np.random.default_rng(seed)
    grads = []
    for shape, dt in node._out_meta:
        g = rng.standard_normal(shape)
        if np.dtype(dt).kind == "c":
            g = g + 1j * rng.standard_normal(shape)
        grads.append(g.astype(dt))
    return grads


def _run(op, sample, dtype="float64"):
    """One run of ``sample``: everything the two paths must agree on."""
    gg.manual_seed(0)
    args, kwargs, leaves = materialize(sample, gg, dtype)
    try:
        result = op.call(gg, args, kwargs)
    except Exception as exc:  # both paths must refuse the same way
        return {"raised": type(exc).__name__}
    outs = [o for o in flat_outputs(result) if isinstance(o, Tensor)]
    seen = {"outputs": [(_value(o), o._data.strides, o.requires_grad, o._output_nr,
                         o._base is not None, type(o.grad_fn).__name__) for o in outs]}
    nodes, seen["graph"] = _walk(outs, leaves)
    steps = []
    for k, n in enumerate(nodes):
        if not isinstance(n, FormulaNode):
            continue
        grads = _incoming(n, k)
        try:
            applied = n._apply(list(grads), None, False)
            stepped = n._step(list(grads), True)
        except Exception as exc:
            steps.append(("raised", type(exc).__name__))
            continue
        steps.append((k, _value(list(applied)), _value(list(stepped))))
    seen["steps"] = steps
    seen["saved after the steps"] = [_saved_slots(n) for n in nodes
                                     if isinstance(n, FormulaNode)]
    diff = [o for o in outs if o.requires_grad]
    if diff and leaves:
        cots = [gg.tensor(g) for g in _incoming(_Meta(diff), 99)]
        try:
            grads = gg.autograd.grad(diff, leaves, cots, allow_unused=True)
            seen["backward"] = _value(list(grads))
        except Exception as exc:
            seen["backward"] = ("raised", type(exc).__name__)
    seen["ops"] = sorted({type(n)._op.name for n in nodes if isinstance(n, FormulaNode)})
    return seen


class _Meta:  # (the output metadata of a list of tensors, for _incoming)
    def __init__(self, outs):
        self._out_meta = [(o._data.shape, o._data.dtype) for o in outs]



def _samples(op):
    return op.samples(np.random.default_rng(stable_seed(op.name)))


_CASES = [pytest.param(op, dt, id=f"{op.name}-{dt}") for op in OP_DB
          for dt in ("float64", "complex128")
          if dt in op.dtypes or (dt == "complex128" and op.complex)]


@pytest.mark.parametrize("op,dtype", _CASES)
def test_generated_path_equals_the_reference(op, dtype):
    for s in _samples(op):
        generated = _run(op, s, dtype)
        with reference_path():
            reference = _run(op, s, dtype)
        for key in reference:
            assert generated.get(key) == reference[key], f"{op.name} {s}: {key} differ"
        assert generated.keys() == reference.keys(), f"{op.name} {s}"


def test_the_samples_reach_the_generated_code_of_most_ops():
    """The comparison above covers the ops whose nodes the OpInfo samples record: most of
    those with generated code (the rest are reached only by ops' own backward or by
    internal calls)."""
    reached = set()
    for op in OP_DB:
        if "float64" in op.dtypes:
            for s in _samples(op):
                reached.update(_run(op, s).get("ops", ()))
    # (the *_backward ops, which only an op's own backward records under create_graph, are
    # not counted: sigmoid_backward and softplus_backward joined them)
    with_code = {op.name for op in OPS.values()
                 if op.record is not None and not op.name.endswith("_backward")}
    assert len(reached & with_code) > 0.7 * len(with_code), sorted(with_code - reached)
