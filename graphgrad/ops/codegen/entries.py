"""Generated entries: ``unary``/``binary``/``mm`` with one op's constants folded in.

The public function (``graphgrad.sin``) or operator (``Tensor.__mul__``) of the most
common ops is one Python frame from the call to the NumPy kernel and back.
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.state import HOT, tls
from ..._tensor.tensor import Tensor
from ..._core.opmath import BFLOAT16, FLOAT16
from ..dispatch import _kernel_error, _promote, _record, _record_generic, follow_layout
from .sources import lazy_function
from .record import record_lines, record_env
from ...autograd.views import _set_view
from ..extras import _extra
from ..interpose import Composite, interposed as _interposed

_new = object.__new__
_ndarray = np.ndarray

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
                "_dtype": _dtype, "_set_view": _set_view, "_interposed": _interposed})
    return env


def _interpose_lines(call_args, call_kwargs, op_expr="op", fn="_this"):
    """The entry's first lines: NOTE [interposition] (graphgrad/ops/interpose.py).
    ``fn``: what the interposed call runs (a composite's general path, whose inner ops
    are interposed in their turn, instead of the entry itself)."""
    tail = "" if fn == "_this" else ", False"
    return ["    if not HOT.fast and tls.interposers:",
            "        if not tls.interpose_skip:",
            f"            return _interposed({op_expr}, {fn}, {call_args}, {call_kwargs}{tail})",
            "        tls.interpose_skip = False"]


def _compile_entry(op, name, label, lines, args, req, ret, call=None, **names):
    """Finish an entry whose ``lines`` leave the kernel's result in ``res``: wrap it as
    the output ``o`` (a view of ``args[0]`` for a view op), record when ``req`` and grad
    mode allow, return ``ret``.  ``names`` are extra globals of the code.  Compiled on its
    first call (NOTE [lazy generated code]).  ``call``: the entry's own parameters as
    (positional tuple, keyword dict) source, for interposers."""
    def build():
        body = lines[:1] + _interpose_lines(*call) + lines[1:] + _TENSOR_INIT
        if op.is_view:
            body.append(f"    _set_view(op, {args}, o)")
        body += _entry_tail(op, args, req, ret)
        env = _entry_env(op)
        env.update(names)
        return body, env
    params = lines[0][len(f"def {name}("):-len("):")]
    return lazy_function(name, params, label, op, build)


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
    return _compile_entry(op, name, f"entry graphgrad.{name} of {op.name}", lines, "(x0,)", "x0._requires_grad",
                          "o if out is None else finish_out(o, out)",
                          call=("(input,)", "{'out': out}"),
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
    return _compile_entry(op, name, f"entry Tensor.{name} of {op.name}", lines, "(x0, x1)", "req", "o",
                          call=("(x0, x1)", "{}"), half_kernel=op.half_scalar_kernel, BFLOAT16=BFLOAT16,
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
    return _compile_entry(op, name, f"entry Tensor.{name} of {op.name}", lines, "(x0, x1)",
                          "x0._requires_grad or x1._requires_grad", "o",
                          call=(f"({a}, {b})", "{}", "composite", "general"), general=general,
                          composite=Composite(name.strip("_"), general), _matmul=np.matmul, _BOOL=np.dtype(np.bool_))
