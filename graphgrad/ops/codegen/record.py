"""Generated recording: ``_record`` unrolled for one single-output op (``op.record``).

``record_lines`` is also inlined into the generated entries (``codegen.entries``).  The
reference is ``dispatch._record_generic``; tests/ops/test_codegen_reference.py checks the
two against each other on every OpInfo sample (NOTE [reference path] in ops/dispatch.py).
"""
from __future__ import annotations

from ..._tensor.tensor import Tensor
from ...autograd import graph as _graph
from ...autograd.saved import SavedVariable
from ..._core.version import VersionCounter
from .sources import lazy_function
from ..save_plan import SAVE_ATTR, SAVE_INPUT, SAVE_SIZES
from ..node import _new_meta, _OUT_META_CACHE, _LAST_RECORD_META
from ...autograd.views import _edge

_seq = _graph._sequence_nr
_new = object.__new__

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
              f"{ind3}meta = _LAST_RECORD_META[0]  # the last op's metadata: often the same",
              f"{ind3}key = meta[0]",
              f"{ind3}if key[1] is not dt or key[0] != sh:",
              f"{ind3}    key = (sh, dt)",
              f"{ind3}    meta = _OUT_META_CACHE.get(key)",
              f"{ind3}    if meta is None:",
              f"{ind3}        meta = _new_meta(key)",
              f"{ind3}    _LAST_RECORD_META[0] = meta",
              f"{ind3}node._out_meta = meta"]
    for k, (code, idx, needed) in enumerate(op.save_plan):
        i4 = ind3
        if needed is not None:
            lines.append(f"{ind3}if " + " or ".join(f"n{j} is not None" for j in needed) + ":")
            i4 = ind3 + "    "
        if code == SAVE_INPUT:
            a = argx[idx]
            # a plain tensor is saved inline: itself and its version (no SavedVariable)
            lines += [f"{i4}if {a}.__class__ is Tensor:",
                      f"{i4}    vc = {a}._vc",
                      f"{i4}    if vc is None:",
                      f"{i4}        node._saved{k} = {a}",
                      f"{i4}        node._saved{k}_version = 0",
                      f"{i4}    elif vc.__class__ is VC:  # (not an inference tensor's marker)",
                      f"{i4}        node._saved{k} = {a}",
                      f"{i4}        node._saved{k}_version = vc.value",
                      f"{i4}    else:",
                      f"{i4}        node._saved{k} = SV({a}, False)  # raises",
                      f"{i4}elif isinstance({a}, Tensor):",
                      f"{i4}    node._saved{k} = SV({a}, False)",
                      f"{i4}else:",
                      f"{i4}    node._saved{k} = {a}"]
        elif code == SAVE_ATTR:
            lines.append(f"{i4}node._saved{k} = {argx[idx]}")
        elif code == SAVE_SIZES:
            a = argx[idx]
            lines.append(f"{i4}node._saved{k} = {a}._data.shape if isinstance({a}, Tensor) else ()")
        else:  # SAVE_RESULT
            # a fresh output is saved inline: its array and a new version counter
            lines += [f"{i4}if o._vc is None:",
                      f"{i4}    vc = o._vc = _new(VC)",
                      f"{i4}    vc.value = 0",
                      f"{i4}    node._saved{k} = d",
                      f"{i4}    node._saved{k}_version = vc",
                      f"{i4}else:",
                      f"{i4}    node._saved{k} = SV(o, True)"]
        if needed is not None:
            lines += [f"{ind3}else:", f"{ind3}    node._saved{k} = None"]
    return lines


def record_env(op):
    """Globals for code built from ``record_lines``."""
    return {"Tensor": Tensor, "_acc": _graph.grad_accumulator, "_edge": _edge, "_new": _new,
            "Cls": op.node_cls, "_seq": _seq, "_OUT_META_CACHE": _OUT_META_CACHE, "_new_meta": _new_meta,
            "SV": SavedVariable, "_LAST_RECORD_META": _LAST_RECORD_META, "VC": VersionCounter,
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

    def build():
        argx = [f"args[{i}]" for i in range(len(op.params))]
        lines = ["def record(args, o):", "    node = None"]
        lines += record_lines(op, argx, "    ")
        lines.append("    return node")
        return lines, record_env(op)
    return lazy_function("record", "args, o", f"record of {op.name}", op, build)
