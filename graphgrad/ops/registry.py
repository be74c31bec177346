"""The op registry: ``defop`` turns one table entry into an OpDef and its Node class.

An entry names the op's signature, its NumPy forward kernel, one VJP per
differentiable input and one JVP, the way PyTorch's derivatives.yaml does::

    defop("mul(self, other)", np.multiply, "MulBackward0",
          self=lambda grad, other: grad * conj(other),
          other=lambda grad, self: grad * conj(self),
          jvp=lambda self_t, other_t, self, other: self_t * other + self * other_t)

A rule's parameter names say what it needs, and so what the dispatcher saves:
``grad`` (the output's gradient), ``grads`` (all outputs' gradients),
``result`` / ``result1`` ... (forward outputs), any argument by name, and
``<arg>_sym_sizes`` (the argument's shape only).  JVP rules may also ask for
``<arg>_t`` (a tangent; zeros when absent).  Names are checked at import.

``jvp=LINEAR`` applies the op itself to the tangents; ``jvp=ELEMENTWISE``
reuses the single VJP with ``grad := tangent`` (diagonal Jacobians).

Batched tangents (a forward-AD level with a batch of tangents per primal, as
``functional.jacobian(strategy="forward-mode")`` uses): every tangent then has
one extra *leading* dim.  ``batched_jvp`` says how the op handles that:

- ``True``: the JVP (the op itself for ``LINEAR``, or the rule) is written
  right-aligned -- dims counted from the end, helpers that keep leading dims
  -- so it takes batched tangents as they are.  ``ELEMENTWISE`` is always
  batch-safe (the VJPs take batched gradients) and needs no declaration.
- ``POINTWISE``: a broadcasting pointwise op; the tangents get singleton dims
  after the batch dim up to the output's rank, then the JVP runs as is.
- a rule (same vocabulary as ``jvp``): used instead of ``jvp`` for batched
  tangents, e.g. a view whose size argument needs the batch dim in front.
  Tangents of dual inputs carry the leading batch dim; the zeros standing in
  for inputs without a tangent do not (broadcasting covers them).
- ``None`` (the default): the batched fallback runs the unbatched JVP once
  per batch entry and stacks the results (``forward_ad``, counted).

Rules see ndarrays in an ordinary backward and Tensors under
``create_graph=True`` or in forward mode; they are written with operators and
the polymorphic helpers of ``formulas.py`` so both work.
"""
from __future__ import annotations

import inspect
import re
from types import FunctionType as _FunctionType

from .numpy_aliases import PYTHON_LEVEL_FUNCTIONS, PYTHON_LEVEL_METHODS, with_numpy_aliases
from .codegen.nodes import make_node_class
from .codegen.record import make_record
from .save_plan import SAVE_ATTR, SAVE_INPUT, SAVE_RESULT, SAVE_SIZES

__all__ = ["defop", "OpDef", "LINEAR", "ELEMENTWISE", "POINTWISE", "OPS"]

LINEAR = "linear"
ELEMENTWISE = "elementwise"
POINTWISE = "pointwise"   # a batched_jvp kind (see the module docstring)
OPS = {}

_SIG = re.compile(r"^(?P<name>[\w.]+)\((?P<params>.*)\)$")


class OpDef:
    """Everything the dispatcher and the backward node need to know about one op."""

    __slots__ = ("name", "kernel", "node_name", "node_cls", "params", "tensor_params",
                 "tensor_pos", "attr_pos", "vjps", "vjp_order", "jvp", "jvp_params", "save_names",
                 "save_kinds", "save_needed_by", "n_outputs", "promote", "is_view",
                 "nondiff_outputs", "inplace_of", "uses_self_in_inplace", "check_inputs",
                 "differentiable", "diff_pos", "save_plan", "record", "batched_jvp",
                 "batched_jvp_params", "half_scalar_kernel")

    def __repr__(self):
        return f"<op {self.name} -> {self.node_name}>"


_CO_VARARGS, _CO_VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS


def _params_of(fn):
    """The parameter names of a rule, in ``inspect.signature`` order."""
    if fn.__class__ is _FunctionType and "__wrapped__" not in fn.__dict__ \
            and "__signature__" not in fn.__dict__:
        # read off the code object: inspect.signature cost ~10 ms of the import
        code = fn.__code__
        names = code.co_varnames
        n, k = code.co_argcount, code.co_kwonlyargcount
        out = names[:n]
        i = n + k
        if code.co_flags & _CO_VARARGS:
            out += (names[i],)
            i += 1
        out += names[n:n + k]
        if code.co_flags & _CO_VARKEYWORDS:
            out += (names[i],)
        return out
    return tuple(inspect.signature(fn).parameters)


# NOTE [VJP order]
# Under create_graph a node's VJP rules build the double-backward graph, and the order in
# which they run numbers its nodes: the engine then runs ready nodes by that number (the
# latest first), so the order decides in which order contributions to one gradient are
# summed (and hooks fire).  PyTorch's generated backward functions compute their inputs'
# gradients in the sorted order of derivatives.yaml's keys ("other" before "self", "mat1,
# mat2" before "self"); a key naming several inputs ("self, other" of atan2, "input,
# weight, bias" of the norms and convolutions) is one formula, in its own order.  So the
# rules run in sorted order of their input names unless an op gives ``vjp_order``; in a
# plain backward the order is not observable and the outputs are the same.  (In another
# order, float32 x / |x| summed its three ~2e3 terms to a residual of 1e-4 where
# PyTorch's is 0: fuzz seeds 971435, 1072224.)
def defop(signature, kernel, node_name=None, *, jvp=None, batched_jvp=None, promote=False,
          is_view=False, n_outputs=1, nondiff_outputs=(), check_inputs=None,
          half_scalar_kernel=None, vjp_order=None, **vjps):
    """Declare an op.  See the module docstring for the rule vocabulary.

    signature: ``"name(tensor_arg, ..., *, attr, ...)"``: names before ``*`` are
        tensor inputs (differentiable when a VJP is given), after ``*`` attributes.
    kernel: ``fn(*arrays_and_attrs) -> ndarray`` (a tuple when ``n_outputs > 1``).
    promote: cast tensor inputs to their PyTorch result type before the kernel.
    check_inputs: optional ``fn(operands)`` raising for tensor operands (Tensors or
        Python scalars) the op refuses before promotion would cast them away.
    batched_jvp: how the JVP takes batched tangents (True, POINTWISE or a rule).
    half_scalar_kernel: the kernel for a float16/bfloat16 tensor with a Python float operand,
        where PyTorch takes the number in float32 (mul, div); None: the number is rounded to
        the tensor's dtype (NumPy's weak scalar; bfloat16 through _promote).
    vjp_order: the differentiable inputs' names in the order their VJPs run under
        create_graph (NOTE [VJP order]); default sorted by name.
    """
    m = _SIG.match(signature.replace(" ", ""))
    if not m:
        raise ValueError(f"bad op signature {signature!r}")
    name = m["name"]
    raw = [p for p in m["params"].split(",") if p]
    tensor_params, attr_params, seen_star = [], [], False
    for p in raw:
        if p == "*":
            seen_star = True
        elif seen_star:
            attr_params.append(p)
        else:
            tensor_params.append(p)
    op = OpDef()
    op.name = name
    op.kernel = kernel
    op.params = tuple(tensor_params + attr_params)
    op.tensor_params = tuple(tensor_params)
    op.tensor_pos = tuple(range(len(tensor_params)))
    op.attr_pos = tuple(range(len(tensor_params), len(op.params)))
    op.n_outputs = n_outputs
    op.promote = promote
    op.is_view = is_view
    op.nondiff_outputs = tuple(nondiff_outputs)
    op.check_inputs = check_inputs
    op.half_scalar_kernel = half_scalar_kernel
    op.inplace_of = None
    unknown = set(vjps) - set(tensor_params)
    if unknown:
        raise TypeError(f"{name}: VJP given for {sorted(unknown)}, which are not tensor inputs "
                        f"of {signature!r}")
    op.differentiable = any(f is not None for f in vjps.values())
    if op.differentiable and node_name is None:
        raise TypeError(f"{name}: a differentiable op needs a node name")
    op.node_name = node_name

    results = {"result"} | {f"result{i}" for i in range(1, n_outputs)}
    allowed_meta = {f"{p}_sym_sizes" for p in tensor_params}

    def check(pnames, where, extra=()):
        for p in pnames:
            if p in ("grad", "grads") or p in op.params or p in results or p in allowed_meta \
                    or p in extra:
                continue
            raise TypeError(f"{name}: {where} asks for unknown name {p!r}; known: grad, grads, "
                            f"result, {', '.join(op.params)}, <arg>_sym_sizes")

    # inputs with a VJP get a next edge, in signature order; others get none (PyTorch's
    # non-differentiable arguments); which saved quantities each edge's VJP needs
    op.diff_pos = tuple(i for i, p in enumerate(tensor_params) if vjps.get(p) is not None)
    save_needed_by = {}
    rules = []
    for k, i in enumerate(op.diff_pos):
        fn = vjps[tensor_params[i]]
        pnames = _params_of(fn)
        check(pnames, f"the VJP for {tensor_params[i]!r}")
        for p in pnames:
            if p not in ("grad", "grads"):
                save_needed_by.setdefault(p, set()).add(k)
        rules.append((fn, pnames))
    op.vjps = tuple(rules)
    diff_names = [tensor_params[i] for i in op.diff_pos]
    order = sorted(diff_names) if vjp_order is None else list(vjp_order)
    if sorted(order) != sorted(diff_names):
        raise TypeError(f"{name}: vjp_order {vjp_order!r} is not an order of the "
                        f"differentiable inputs {diff_names!r}")
    op.vjp_order = tuple(diff_names.index(p) for p in order)
    op.save_names = tuple(save_needed_by)
    kinds = []
    for p in op.save_names:
        if p in results:
            kinds.append(("result", 0 if p == "result" else int(p[6:])))
        elif p in allowed_meta:
            kinds.append(("sizes", tensor_params.index(p[:-10])))
        elif p in tensor_params:
            kinds.append(("input", tensor_params.index(p)))
        else:
            kinds.append(("attr", op.params.index(p)))
    op.save_kinds = tuple(kinds)
    op.save_needed_by = tuple(frozenset(save_needed_by[p]) for p in op.save_names)
    # the dispatcher's plan: (what, index, edges-that-need-it or None for "any edge")
    codes = {"input": SAVE_INPUT, "attr": SAVE_ATTR, "sizes": SAVE_SIZES, "result": SAVE_RESULT}
    n_edges = len(op.diff_pos)
    op.save_plan = tuple(
        (codes[kind], idx, None if len(need) == n_edges else tuple(sorted(need)))
        for (kind, idx), need in zip(op.save_kinds, op.save_needed_by))

    if jvp in (LINEAR, ELEMENTWISE, None):
        op.jvp, op.jvp_params = jvp, None
        if jvp == ELEMENTWISE and len(op.vjps) != 1:
            raise TypeError(f"{name}: ELEMENTWISE jvp needs exactly one VJP")
    else:
        op.jvp = jvp
        op.jvp_params = _params_of(jvp)
        check(op.jvp_params, "the JVP", extra={f"{p}_t" for p in tensor_params})

    op.batched_jvp, op.batched_jvp_params = batched_jvp, None
    if batched_jvp is not None and jvp is None:
        raise TypeError(f"{name}: batched_jvp given without a jvp")
    if callable(batched_jvp):
        op.batched_jvp_params = _params_of(batched_jvp)
        check(op.batched_jvp_params, "the batched JVP", extra={f"{p}_t" for p in tensor_params})
    elif batched_jvp not in (None, True, POINTWISE):
        raise TypeError(f"{name}: batched_jvp must be True, POINTWISE or a rule")

    if op.differentiable:
        op.node_cls = make_node_class(op)
        op.record = make_record(op)
    else:
        op.node_cls = None
        op.record = None
    if name in OPS:
        raise ValueError(f"op {name!r} declared twice")
    OPS[name] = op
    return op


# ---------------------------------------------------------------- public names
PUBLIC = {}    # graphgrad.<name>
METHODS = {}   # Tensor.<name>


def export(name=None, *, method=True, function=True):
    """Decorator: publish ``fn`` as ``graphgrad.<name>`` and/or ``Tensor.<name>``, taking
    NumPy's argument names as aliases as PyTorch does (``axis=``, ``keepdims=``; see
    ops/numpy_aliases.py)."""
    def deco(fn):
        key = name or fn.__name__
        published = with_numpy_aliases(fn, key)
        if function:
            PUBLIC[key] = fn if key in PYTHON_LEVEL_FUNCTIONS else published
        if method:
            METHODS[key] = fn if key in PYTHON_LEVEL_METHODS else published
        return fn
    return deco


LINALG = {}    # graphgrad.linalg.<name>


def export_linalg(name=None):
    """Decorator: publish ``fn`` as ``graphgrad.linalg.<name>``."""
    def deco(fn):
        LINALG[name or fn.__name__] = fn
        return fn
    return deco
