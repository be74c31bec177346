"""Generated entries: ``unary``/``binary``/``mm`` with one op's constants folded in.

The public function (``graphgrad.sin``, ``graphgrad.mul``) or operator (``Tensor.__mul__``)
of the most common ops is one Python frame from the call to the NumPy kernel and back.

The hand-written functions are the reference (option (b) of issue 17 item 4): each entry
is listed in ``ENTRIES`` with the function it must behave as -- ``dispatch.unary`` /
``dispatch.binary`` (with the same argument checks), or the general function a fast entry
falls back to -- and tests/ops/test_codegen_reference.py runs every OpInfo sample through
both, comparing outputs, the node recorded, what it saved (values and versions) and the
gradients its step returns.
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.state import ALL_THREADS, tls
from ..._tensor.tensor import Tensor
from ..._core.opmath import BFLOAT16, FLOAT16
from ..dispatch import _kernel_error, _promote, _record, _record_generic, follow_layout
from ..dispatch import binary as _binary, unary as _unary
from .sources import lazy_function
from .record import record_lines, record_env
from ...autograd.views import _set_view
from ..extras import _run_extras
from ..interpose import Composite, interposed as _interposed

_new = object.__new__
_ndarray = np.ndarray

# (entry function, kind, op, reference): every generated entry with the hand-written
# function it must behave as (``dispatch.binary``/``unary``, or the general function it
# falls back to); tests/ops/test_codegen_reference.py runs every OpInfo sample through both
ENTRIES = []


def _register(fn, kind, op, reference):
    ENTRIES.append((fn, kind, op, reference))
    return fn


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
                  "        if ALL_THREADS.plain:  # grad mode on, no extras (in every thread)"]
        if op.record is not None:
            lines += record_lines(op, ["x0", "x1"], "            ")
        else:
            lines.append(f"            _record_generic(op, {args}, (o,))")
        lines += [f"            return {ret}",
                  "        if tls.grad_enabled:",
                  f"            _record(op, {args}, (o,))"]
    lines += ["    if not ALL_THREADS.plain and tls.extras_on:",
              f"        _run_extras(op, {args}, (o,))",
              f"    return {ret}"]
    return lines


def _entry_env(op):
    env = record_env(op) if op.record is not None else {}
    env.update({"op": op, "kernel": op.kernel, "tls": tls, "ALL_THREADS": ALL_THREADS, "Tensor": Tensor,
                "_new": _new, "_ndarray": _ndarray, "_asarray": np.asarray,
                "_kernel_error": _kernel_error, "_record": _record,
                "_record_generic": _record_generic, "_run_extras": _run_extras, "_promote": _promote,
                "_dtype": _dtype, "_set_view": _set_view, "_interposed": _interposed})
    return env


def _interpose_lines(call_args, call_kwargs, op_expr="op", fn="_this"):
    """The entry's first lines: NOTE [interposition] (graphgrad/ops/interpose.py).
    ``fn``: what the interposed call runs (a composite's general path, whose inner ops
    are interposed in their turn, instead of the entry itself)."""
    tail = "" if fn == "_this" else ", False"
    return ["    if not ALL_THREADS.plain and tls.interposers:",
            "        if not tls.interpose_skip:",
            f"            return _interposed({op_expr}, {fn}, {call_args}, {call_kwargs}{tail})",
            "        tls.interpose_skip = False"]


def _call_of(params):
    """(positional tuple, keyword dict) source of a signature's parameters."""
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]
    star = names.index("*") if "*" in names else len(names)
    pos = names[:star]
    kw = names[star + 1:]
    return (f"({', '.join(pos)}{',' if len(pos) == 1 else ''})",
            "{" + ", ".join(f"'{k}': {k}" for k in kw) + "}")


def _compile_entry(op, name, label, lines, args, req, ret, call=None, interpose_at=1,
                   **names):
    """Finish an entry whose ``lines`` leave the kernel's result in ``res``: wrap it as
    the output ``o`` (a view of ``args[0]`` for a view op), record when ``req`` and grad
    mode allow, return ``ret``.  ``names`` are extra globals of the code.  Compiled on its
    first call (NOTE [lazy generated code]).  ``call``: how interposers call it again
    (``_interpose_lines``'s arguments); by default its own parameters.  ``interpose_at``:
    the line the interposition test goes before (after the branches to a general path
    that dispatches another op, e.g. ``add`` with ``alpha``, which interposes itself)."""
    params = lines[0][len(f"def {name}("):-len("):")]
    if call is None:
        call = _call_of(params)

    def build():
        body = (lines[:interpose_at] + _interpose_lines(*call) + lines[interpose_at:]
                + _TENSOR_INIT)
        if op.is_view:
            body.append(f"    _set_view(op, {args}, o)")
        body += _entry_tail(op, args, req, ret)
        env = _entry_env(op)
        env.update(names)
        return body, env
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
    fn = _compile_entry(op, name, f"entry graphgrad.{name} of {op.name}", lines, "(x0,)", "x0._requires_grad",
                        "o if out is None else finish_out(o, out)",
                        check=check, finish_out=finish_out,
                        raw=getattr(op.kernel, "raw", None), FLOAT16=FLOAT16)

    def reference(input, *, out=None):
        if input.__class__ is not Tensor:
            check(input)
        o = _unary(op, input)
        return o if out is None else finish_out(o, out)
    return _register(fn, "function", op, reference)


def _binary_lines(op, fallback):
    """The body of ``binary(op, x0, x1)`` for one op (the operands bound to ``x0``/``x1``),
    up to the kernel's result in ``res``; ``fallback``: the line for an operand that is
    neither a Tensor nor a Python number."""
    half = op.half_scalar_kernel is not None
    lines = ["    kern = kernel" if half else "",
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
              f"        {fallback}",
              "    try:",
              "        res = kern(ad, bd)" if half else "        res = kernel(ad, bd)",
              "    except Exception as exc:",
              "        raise _kernel_error(op, [ad, bd], exc) from None",
              "    if bd.__class__ is _ndarray and not ad.flags.c_contiguous:  # (torch's layout)",
              "        res = follow_layout(res, (ad, bd))"]
    return [line for line in lines if line]


def _binary_names(op):
    return dict(half_kernel=op.half_scalar_kernel, BFLOAT16=BFLOAT16, FLOAT16=FLOAT16,
                follow_layout=follow_layout)


def make_binary_operator(op, name):
    """``Tensor.<name>(self, other)`` (``__add__``, ``__mul__``, ...): ``binary(op, self,
    other)`` generated for one op (the reference: ``binary``; tests/ops/test_codegen_reference.py
    holds the two together)."""
    lines = [f"def {name}(x0, x1):"] + _binary_lines(op, "return NotImplemented")
    return _register(_compile_entry(op, name, f"entry Tensor.{name} of {op.name}", lines,
                                    "(x0, x1)", "req", "o", **_binary_names(op)),
                     "operator", op, lambda x0, x1: _binary(op, x0, x1))


def make_binary_function(op, name, params, slow_when, general):
    """``graphgrad.<name>(input, other, ...)`` (``add``, ``mul``, ``Tensor.mul`` ...) as fast
    as the operator: when ``input`` is a Tensor, ``other`` a Tensor or a Python number and
    ``slow_when`` (an expression of the keyword parameters, e.g. ``alpha != 1``) is false,
    the generated ``binary(op, input, other)``; any other call goes to ``general`` (the
    hand-written function: argument checks, ``out=``, alpha, PyTorch's messages), which is
    also the reference the generated code is tested against.

    params: the signature, e.g. ``"input, other, *, alpha=1, out=None"``."""
    names = [p.split("=")[0].strip() for p in params.split(",")]
    star = names.index("*")
    call = ", ".join(names[:star] + [f"{k}={k}" for k in names[star + 1:]])
    slow = f"return general({call})"
    lines = [f"def {name}({params}):",
             f"    if {slow_when} or input.__class__ is not Tensor and "
             "not isinstance(input, Tensor):",
             f"        {slow}",
             "    x0 = input",
             "    x1 = other"] + _binary_lines(op, slow)
    return _register(_compile_entry(op, name, f"entry graphgrad.{name} of {op.name}", lines,
                                    "(x0, x1)", "req", "o", interpose_at=3, general=general,
                                    **_binary_names(op)),
                     "function", op, general)


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
    return _register(_compile_entry(op, name, f"entry Tensor.{name} of {op.name}", lines,
                                    "(x0, x1)", "x0._requires_grad or x1._requires_grad", "o",
                                    call=(f"({a}, {b})", "{}", "composite", "general"),
                                    composite=Composite(name.strip("_"), general),
                                    general=general, _matmul=np.matmul,
                                    _BOOL=np.dtype(np.bool_)),
                     "function", op, general)


def make_mv_entry(op, name, params, general):
    """``name(matrix, vector)`` for ``op`` = mv: a 2-D and a 1-D tensor of one dtype whose
    sizes match, on a plain thread (grad mode on, no extras, no interposer: NOTE [hot
    flags]), take one frame from the call to the product and its record; anything else
    goes to ``general`` (the hand-written function: its dtype check and ``dispatch``,
    which also interposes the call)."""
    a, b = params
    lines = [f"def {name}({a}, {b}):",
             f"    if {a}.__class__ is not Tensor or {b}.__class__ is not Tensor or \\",
             "            not ALL_THREADS.plain:",
             f"        return general({a}, {b})",
             f"    ad = {a}._data",
             f"    bd = {b}._data",
             "    dt = ad.dtype",
             "    if ad.ndim != 2 or bd.ndim != 1 or bd.dtype is not dt or dt is _BOOL or \\",
             "            ad.shape[1] != bd.shape[0]:",
             f"        return general({a}, {b})",
             f"    x0 = {a}",
             f"    x1 = {b}",
             "    res = _matmul(ad, bd)",
             "    if res.dtype is not dt:  # bfloat16: NumPy's product is float32",
             "        res = res.astype(dt)"]
    # (the interposition test _compile_entry adds after the branches to ``general`` never
    # fires: an interposer makes ALL_THREADS.plain False)
    return _register(_compile_entry(op, name, f"entry graphgrad.{name} of {op.name}", lines,
                                    "(x0, x1)", "x0._requires_grad or x1._requires_grad", "o",
                                    interpose_at=10, general=general, _matmul=np.matmul,
                                    _BOOL=np.dtype(np.bool_)),
                     "function", op, general)
