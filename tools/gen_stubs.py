"""Write graphgrad's type stubs from the running package.

Most of graphgrad's public functions and Tensor methods are attached at import time (from
the op table), which a type checker cannot see: without stubs, mypy reports ``t + 1``,
``t.sin()`` and ``t.sum()`` as errors. This script imports graphgrad, walks its public
namespace (and ``graphgrad.linalg``'s) and Tensor's attributes, and writes
``graphgrad/__init__.pyi`` and ``graphgrad/linalg/__init__.pyi``:

- functions and methods keep their runtime parameter names (typed ``Any``) and return
  ``Tensor``, except the names in ``RETURNS`` (bools, ints, tuples, named tuples ...);
- Tensor's operators take ``Tensor | float | int | bool | complex`` and return ``Tensor``;
  its properties are typed by ``PROPERTIES`` (``Any`` otherwise);
- other classes get their bases, a constructor taking anything, context-manager and
  decorator methods where they have them, and ``Any`` for other attributes.

The stubs depend only on public names, not on the package's internal layout.
``python tools/gen_stubs.py`` rewrites them; ``--check`` exits 1 if they are out of date
(tests/test_stubs.py runs it), which happens when a public name is added or removed.
"""
from __future__ import annotations

import inspect
import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]

_B = "_builtins."
TENSORS = f"{_B}tuple[Tensor, ...]"
# Public functions and methods that do not return one Tensor (the rest do).
RETURNS = {
    **dict.fromkeys(["allclose", "can_cast", "equal", "is_anomaly_check_nan_enabled",
                     "is_anomaly_enabled", "is_complex", "is_conj", "is_contiguous",
                     "is_floating_point", "is_grad_enabled", "is_inference",
                     "is_inference_mode_enabled", "is_neg", "is_nonzero", "is_same_size",
                     "is_set_to", "is_signed", "is_tensor", "is_storage", "is_shared",
                     "is_pinned", "_is_view", "is_warn_always_enabled",
                     "is_deterministic_algorithms_warn_only_enabled",
                     "are_deterministic_algorithms_enabled"], f"{_B}bool"),
    **dict.fromkeys(["numel", "dim", "ndimension", "nelement", "element_size", "data_ptr",
                     "get_device", "initial_seed", "seed", "storage_offset",
                     "get_num_threads"], f"{_B}int"),
    **dict.fromkeys(["chunk", "split", "split_with_sizes", "unbind", "unsafe_chunk",
                     "unsafe_split", "unsafe_split_with_sizes", "tensor_split", "hsplit",
                     "vsplit", "dsplit", "broadcast_tensors", "meshgrid"], TENSORS),
    **dict.fromkeys(["std_mean", "var_mean", "frexp", "aminmax", "adaptive_max_pool1d"],
                    f"{_B}tuple[Tensor, Tensor]"),
    # named tuples, or a Tensor or a tuple depending on the arguments
    **dict.fromkeys(["max", "min", "median", "nanmedian", "mode", "kthvalue", "sort", "topk",
                     "cummax", "cummin", "slogdet", "nonzero", "where", "unique",
                     "unique_consecutive", "atleast_1d", "atleast_2d", "atleast_3d", "qr",
                     "svd", "eig", "eigh", "lstsq", "lu", "lu_factor", "lu_factor_ex",
                     "cholesky_ex", "inv_ex", "solve_ex", "ldl_factor", "ldl_factor_ex",
                     "histogram", "type", "size", "stride", "tolist", "storage",
                     "untyped_storage", "register_hook", "register_post_accumulate_grad_hook",
                     "manual_seed", "get_printoptions", "get_default_device", "load"], "Any"),
    **dict.fromkeys(["backward", "retain_grad", "set_default_dtype", "set_rng_state",
                     "set_printoptions", "set_default_device", "set_num_threads",
                     "set_warn_always", "use_deterministic_algorithms", "save"], "None"),
    **dict.fromkeys(["gradient"], TENSORS), **dict.fromkeys(["histogramdd"], "Any"),  # ops-reduce
    "item": f"{_B}int | {_B}float | {_B}bool",
    "numpy": "_np.ndarray[Any, Any]",
    "__array__": "_np.ndarray[Any, Any]",
    "get_default_dtype": "dtype", "promote_types": "dtype", "result_type": "dtype",
    # autocast (graphgrad/amp/autocast_mode.py)
    **dict.fromkeys(["is_autocast_enabled", "is_autocast_cpu_enabled",
                     "is_autocast_cache_enabled"], f"{_B}bool"),
    **dict.fromkeys(["autocast_increment_nesting", "autocast_decrement_nesting"], f"{_B}int"),
    **dict.fromkeys(["get_autocast_dtype", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"],
                    "dtype"),
    **dict.fromkeys(["set_autocast_enabled", "set_autocast_cpu_enabled", "set_autocast_dtype",
                     "set_autocast_cpu_dtype", "set_autocast_gpu_dtype",
                     "set_autocast_cache_enabled", "clear_autocast_cache"], "None"),
}
PROPERTIES = {
    "shape": "Size", "grad": "Tensor | None", "dtype": "dtype", "device": "device",
    "requires_grad": f"{_B}bool", "is_leaf": f"{_B}bool", "retains_grad": f"{_B}bool",
    "is_cuda": f"{_B}bool", "volatile": f"{_B}bool", "ndim": f"{_B}int",
    "output_nr": f"{_B}int", "_version": f"{_B}int", "_base": "Tensor | None",
    **dict.fromkeys(["data", "T", "mT", "H", "mH", "real", "imag"], "Tensor"),
}
# (ops-shape family)
RETURNS.update({"unravel_index": TENSORS, "broadcast_shapes": "Size"})
PROPERTIES.update({"nbytes": f"{_B}int", "itemsize": f"{_B}int", "is_cpu": f"{_B}bool"})
OPERAND = f"Tensor | {_B}float | {_B}int | {_B}bool | {_B}complex"
BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
          "xor", "lshift", "rshift"]
DUNDERS = {
    **{f"__{p}{op}__": ("self, other: _Operand", "Tensor")
       for op in BINARY for p in ("", "r", "i")},
    **{f"__{op}__": ("self, other: _Operand", "Tensor") for op in ("lt", "le", "gt", "ge")},
    "__eq__": ("self, other: object", "Tensor"),  # (with `# type: ignore[override]`)
    "__ne__": ("self, other: object", "Tensor"),
    **{f"__{op}__": ("self", "Tensor") for op in ("neg", "pos", "abs", "invert", "reversed")},
    "__getitem__": ("self, index: Any", "Tensor"),
    "__setitem__": ("self, index: Any, value: Any", "None"),
    "__iter__": ("self", "_Iterator[Tensor]"),
    "__len__": ("self", f"{_B}int"),
    "__contains__": ("self, item: Any", f"{_B}bool"),
    "__bool__": ("self", f"{_B}bool"),
    "__float__": ("self", f"{_B}float"),
    "__int__": ("self", f"{_B}int"),
    "__index__": ("self", f"{_B}int"),
    "__complex__": ("self", f"{_B}complex"),
    "__array__": ("self, *args: Any, **kwargs: Any", "_np.ndarray[Any, Any]"),
    "__deepcopy__": ("self, memo: Any", "Tensor"),
    "__hash__": ("self", f"{_B}int"),
    "__format__": ("self, spec: str", f"{_B}str"),
}
HEADER = '''# Generated by tools/gen_stubs.py from the running package: do not edit by hand.
# Rewrite it with `python tools/gen_stubs.py` after adding or removing a public name.
import builtins as _builtins
from typing import Any, Callable as _Callable, Iterator as _Iterator, TypeVar as _TypeVar

import numpy as _np
'''


def _params(fn, method):
    """The parameter list of ``fn`` with every parameter typed Any (its names and kinds kept)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return ("self, " if method else "") + "*args: Any, **kwargs: Any"
    out, star = [], False
    params = list(sig.parameters.values())
    if method:
        if not params or params[0].kind not in (params[0].POSITIONAL_ONLY,
                                                params[0].POSITIONAL_OR_KEYWORD):
            return "self, *args: Any, **kwargs: Any"
        params = params[1:]
        out.append("self")
    slash = any(p.kind is p.POSITIONAL_ONLY for p in params)
    # graphgrad's own optional parameters (``_op=...``) are not part of PyTorch's API
    params = [p for p in params if not (p.name.startswith("_") and p.default is not p.empty)]
    for i, p in enumerate(params):
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}: Any")
            star = True
        elif p.kind is p.VAR_KEYWORD:
            out.append(f"**{p.name}: Any")
        else:
            if p.kind is p.KEYWORD_ONLY and not star:
                out.append("*")
                star = True
            out.append(f"{p.name}: Any" + (" = ..." if p.default is not p.empty else ""))
        if slash and p.kind is p.POSITIONAL_ONLY and (
                i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            out.append("/")
    return ", ".join(out)


def _function(name, fn, indent="", method=False):
    ret = RETURNS.get(name, "Tensor")
    return f"{indent}def {name}({_params(fn, method)}) -> {ret}: ...\n"


def _public(names):
    return sorted(n for n in names if not n.startswith("_"))


def _tensor_class(T):
    lines = ["class Tensor:\n",
             "    def __init__(self, *args: Any, **kwargs: Any) -> None: ...\n"]
    names = set(dir(T))
    for name in sorted(names):
        attr = inspect.getattr_static(T, name)
        if name in DUNDERS:
            if name in ("__hash__", "__format__", "__eq__", "__ne__") and attr is getattr(
                    object, name, None):
                continue
            args, ret = DUNDERS[name]
            ignore = "  # type: ignore[override]" if name in ("__eq__", "__ne__") else ""
            lines.append(f"    def {name}({args}) -> {ret}: ...{ignore}\n")
        elif name.startswith("_") and name not in PROPERTIES:
            continue
        elif isinstance(attr, property) or name in PROPERTIES:
            lines.append(f"    {name}: {PROPERTIES.get(name, 'Any')}\n")
        elif isinstance(attr, staticmethod):
            lines.append("    @staticmethod\n" + _function(name, attr.__func__, "    "))
        elif isinstance(attr, classmethod):
            lines.append("    @classmethod\n"
                         + _function(name, attr.__func__, "    ", method=True)
                         .replace("(self", "(cls"))
        elif callable(attr):
            lines.append(_function(name, attr, "    ", method=True))
        else:
            lines.append(f"    {name}: {_value_type(attr)}\n")
    return "".join(lines)


def _value_type(value):
    for t in (bool, int, float, complex, str):
        if type(value) is t:
            return f"{_B}{t.__name__}"
    return "Any"


def _class(name, cls, namespace):
    """A class other than Tensor: bases, a constructor, with/decorator methods, Any for the rest."""
    T = namespace.get("Tensor")
    if isinstance(T, type) and (issubclass(cls, T) or (  # FloatTensor & co.: their
            name.endswith("Tensor") and type(cls) is not type)):  # metaclass builds Tensors
        return f"class {name}(Tensor): ...\n"
    if name == "Size":
        return (f"class Size({_B}tuple[{_B}int, ...]):\n"
                f"    def numel(self) -> {_B}int: ...\n")
    bases = [b.__name__ if namespace.get(b.__name__) is b else f"{_B}{b.__name__}"
             for b in cls.__bases__ if b is not object and (
                 namespace.get(b.__name__) is b or b.__module__ == "builtins")]
    lines = [f"class {name}{'(' + ', '.join(bases) + ')' if bases else ''}:\n",
             "    def __init__(self, *args: Any, **kwargs: Any) -> None: ...\n",
             "    def __getattr__(self, name: str) -> Any: ...\n"]
    callable_ = any("__call__" in vars(k) for k in cls.__mro__ if k is not object)
    if hasattr(cls, "__enter__"):
        lines.append("    def __enter__(self) -> Any: ...\n"
                     "    def __exit__(self, *args: Any) -> Any: ...\n")
        if callable_:  # usable as a decorator too (no_grad, inference_mode)
            lines.append("    def __call__(self, func: _F) -> _F: ...\n")
    elif callable_:
        lines.append("    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...\n")
    return "".join(lines)


def module_stub(module, package):
    """The stub text of ``module`` (a package of graphgrad)."""
    # (dir() and getattr, not vars(): the names a package imports on first read count too,
    # NOTE [lazy tool packages])
    ns = {name: getattr(module, name) for name in dir(module)}
    out = [HEADER]
    body = []
    subs = []
    for name in _public(ns):
        obj = ns[name]
        if isinstance(obj, types.ModuleType):
            if obj.__name__ == f"{module.__name__}.{name}":
                subs.append(name)
        elif isinstance(obj, type):
            if name == "Tensor":
                body.append(_tensor_class(obj))
            else:
                body.append(_class(name, obj, ns))
        elif callable(obj):
            body.append(_function(name, obj))
        elif type(obj).__name__ == "_Feature":  # `from __future__ import annotations`
            continue
        else:
            tname = type(obj).__name__
            typ = tname if ns.get(tname) is type(obj) else _value_type(obj)
            body.append(f"{name}: {typ}\n")
    if subs:
        out.append("".join(f"from . import {s} as {s}\n" for s in subs))
    if package != "graphgrad":
        out.append("from graphgrad import Tensor\n")
    out.append('\n_F = _TypeVar("_F", bound=_Callable[..., Any])\n')
    if "Tensor" in ns and package == "graphgrad":
        out.append(f"_Operand = {OPERAND}\n")
    out.append("\n")
    # classes first, each followed by a blank line; then functions and names
    classes = [b for b in body if b.startswith("class ")]
    rest = [b for b in body if not b.startswith("class ")]
    out.append("\n".join(classes))
    out.append("\n")
    out.append("".join(rest))
    return "".join(out)


RETURNS.update({"lu_unpack": "Any", "triangular_solve": "Any",   # apifft
                "get_num_interop_threads": f"{_B}int", "set_num_interop_threads": "None",
                "newaxis": "None"})


STUBS = {"graphgrad": "graphgrad/__init__.pyi", "graphgrad.linalg": "graphgrad/linalg/__init__.pyi",
         "graphgrad.fft": "graphgrad/fft/__init__.pyi"}   # apifft


def render():
    """{path relative to the repository: stub text} for every stubbed module."""
    import importlib
    return {path: module_stub(importlib.import_module(mod), mod) for mod, path in STUBS.items()}


def main(argv):
    sys.path.insert(0, str(ROOT))
    check = "--check" in argv
    stale = []
    for path, text in render().items():
        target = ROOT / path
        if target.exists() and target.read_text() == text:
            continue
        stale.append(path)
        if not check:
            target.write_text(text)
    if check and stale:
        print("out of date (run `python tools/gen_stubs.py`): " + ", ".join(stale))
        return 1
    print(("rewrote: " + ", ".join(stale)) if stale else "stubs up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
