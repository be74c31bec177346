"""Generated node methods: one op's ``_apply``, ``_step`` and ``release_variables``.

See NOTE [generated code] in ``codegen/sources.py``.  The references are
``FormulaNode._apply`` (ops/node.py) and ``Node._step`` (``_apply`` then
``release_variables``); tests/ops/test_codegen_reference.py checks the generated methods
against them on every OpInfo sample (NOTE [reference path] in ops/dispatch.py).
``release_variables`` has no hand-written twin: it is only generated.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ...autograd.saved import SavedVariable
from .sources import lazy_function
from ..node import FormulaNode, _FREED, _unpack_stale
from ...autograd._saved_attrs import extra_attributes, hidden_attributes
from ...autograd._saved_attrs import free_tensor_attributes

_ndarray = np.ndarray

def make_node_class(op):
    names = op.save_names
    srcs = []
    for rule in op.vjps:
        srcs.append(tuple(-1 if p == "grad" else (-2 if p == "grads" else names.index(p))
                          for p in rule[1]))
    slots = tuple(f"_saved{i}" for i in range(len(names)))
    versions = tuple(f"_saved{i}_version" for i, (kind, _) in enumerate(op.save_kinds)
                     if kind in ("input", "result"))
    attrs = {"__slots__": slots + versions, "_slots": slots, "_op": op, "_srcs": tuple(srcs),
             "__module__": "graphgrad.autograd.generated"}
    hidden = hidden_attributes(op)
    for key in names:
        if key in hidden:
            continue
        attrs["_saved_" + key] = property(lambda self, _k=key: self._get_saved(_k, False))
        attrs["_raw_saved_" + key] = property(lambda self, _k=key: self._get_saved(_k, True))
    for key, fn in extra_attributes(op).items():  # PyTorch's, computed when read
        attrs["_saved_" + key] = property(fn)
    if op.n_outputs == 1:
        attrs["_apply"] = _specialized_apply(op, tuple(srcs))
        attrs["_step"] = _specialized_step(op, tuple(srcs))
    attrs["release_variables"] = _specialized_release(op)
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
            f"{ind}    self._saved{i} = _FREED"]


def _specialized_apply(op, srcs):
    """``FormulaNode._apply`` unrolled for one op (what PyTorch's codegen does in C++).

    The generic version builds an argument list per rule on every call; this one is
    generated once per op, with the saved values unpacked into locals and each rule
    called with them directly.  Same semantics: all saved values are unpacked (and
    version-checked) first, then each needed edge's rule runs.
    """
    return lazy_function("_apply", "self, grads, mask, create_graph",
                         f"backward of {op.name} ({op.node_name})", op,
                         lambda: _apply_source(op, srcs))


def _inline_slot_lines(i, name, kind, ind):
    """Generated lines: saved slot ``s{i}`` (read from ``self._saved{i}``) -> its ndarray
    when it holds a tensor: inline (NOTE in ops/node.py: the input Tensor, or the output's
    array) after the version check, or a SavedVariable through ``_unpack_data_lines``;
    attributes and sizes as they are."""
    if kind == "input":  # inline: the tensor, saved at version _saved{i}_version
        return [f"{ind}if s{i}.__class__ is Tensor:",
                f"{ind}    vc = s{i}._vc",
                f"{ind}    if vc is not None and vc.value != self._saved{i}_version:",
                f"{ind}        _unpack_stale(self, {i})  # raises",
                f"{ind}    s{i} = s{i}._data",
                f"{ind}elif s{i}.__class__ is SV:"] + _unpack_data_lines(i, name, ind + "    ")
    if kind == "result":  # inline: the output's array, its version counter in _saved{i}_version
        return [f"{ind}if s{i}.__class__ is _ndarray:",
                f"{ind}    if self._saved{i}_version.value:",
                f"{ind}        _unpack_stale(self, {i})  # raises",
                f"{ind}elif s{i}.__class__ is SV:"] + _unpack_data_lines(i, name, ind + "    ")
    return []


def _apply_source(op, srcs):
    names = op.save_names
    kinds = op.save_kinds
    lines = ["def _apply(self, grads, mask, create_graph):",
             "    grad = grads[0]",
             "    if grad is None:",
             f"        return [None] * {len(srcs)}"]
    if names:
        # create_graph: every saved tensor as a SavedVariable (``_saved`` turns the inline
        # ones into theirs, once) unpacked to a Tensor in the graph; otherwise the slots are
        # read as ``_step`` reads them, without making SavedVariables (FormulaNode, ops/node.py)
        lines += ["    if create_graph:",
                  "        saved = self._saved"]
        for i, n in enumerate(names):
            lines += [f"        s{i} = saved[{i}]",
                      f"        if s{i}.__class__ is SV:",
                      f"            s{i} = s{i}.unpack(self, {n!r})"]
        lines.append("    else:")
        for i, n in enumerate(names):
            lines.append(f"        s{i} = self._saved{i}")
            lines += _inline_slot_lines(i, n, kinds[i][0], "        ")
    lines.append("    nodes = self._next_nodes")
    for k in op.vjp_order:   # NOTE [VJP order]
        src = srcs[k]
        args = ", ".join("grad" if j == -1 else ("grads" if j == -2 else f"s{j}") for j in src)
        lines += [f"    if (nodes[{k}] is not None) if mask is None else mask[{k}]:",
                  f"        o{k} = rule{k}({args})",
                  "    else:",
                  f"        o{k} = None"]
    lines.append(f"    return [{', '.join(f'o{k}' for k in range(len(srcs)))}]")
    env = {"SV": SavedVariable, "Tensor": Tensor, "_ndarray": _ndarray,
           "_unpack_stale": _unpack_stale}
    env.update({f"rule{k}": rule[0] for k, rule in enumerate(op.vjps)})
    return lines, env


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
    return lazy_function("_step", "self, grads, keep_graph",
                         f"backward step of {op.name} ({op.node_name})", op,
                         lambda: _step_source(op, srcs))


def _step_source(op, srcs):
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
        lines += [f"    s{i} = self._saved{i}"]
        kind = kinds[i][0]
        if kind in ("input", "result"):
            lines.append(f"    sv{i} = s{i}")
            lines += _inline_slot_lines(i, n, kind, "    ")
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
    return lines, env


def _specialized_release(op):
    """``release_variables`` of one op's node class: saved tensors are freed (a
    later unpack raises the "backward through the graph a second time" error), saved
    Python scalars are replaced by a freed marker (PyTorch saves them as tensors), saved
    attributes and sizes stay readable."""
    kinds = op.save_kinds
    tensors = [i for i, (kind, _) in enumerate(kinds) if kind in ("input", "result")]
    if not tensors:
        return lambda self: None

    def build():
        lines = ["def release_variables(self):"]
        for i in tensors:
            lines.append(f"    sv{i} = self._saved{i}")
            lines += _release_lines(i, "    ")
        return lines, {"SV": SavedVariable, "_FREED": _FREED}
    return lazy_function("release_variables", "self",
                         f"release of {op.name} ({op.node_name})", op,
                         build)
