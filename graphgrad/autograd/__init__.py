"""graphgrad.autograd: backward, grad, and the autograd machinery (PyTorch's torch.autograd).

The package holds layer 2 (the graph, saved tensors, grad modes, the engine; ``backward``
and ``grad`` below) and tools of layer 6 written on top of it (``function``,
``forward_ad``, ``functional``, ``gradcheck``, ``anomaly_mode``, ``variable``).  Their
names are bound here on first access (module ``__getattr__``): a lower layer importing
``graphgrad.autograd.graph`` runs this file, which therefore imports nothing above layer 2.
``graphgrad/__init__`` reads them all, so after ``import graphgrad`` they are plain
attributes.
"""
from __future__ import annotations

import importlib

import numpy as np

from .._core.dtypes import from_numpy_dtype
from .._core.state import WARNINGS, tls
from .._tensor.tensor import Tensor
from .views import _edge
from . import graph
from .engine import execute
from .graph import gradient_edge  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .graph import GradientEdge
from ._misc import SavedTensor, is_multithreading_enabled, set_multithreading_enabled

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "forward_ad", "graph", "Variable",
           "Function", "FunctionCtx", "once_differentiable", "function", "SavedTensor",
           "is_multithreading_enabled", "set_multithreading_enabled"]


def _tensor_or_tensors_to_tuple(x, n):
    if x is None:
        return (None,) * n
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _as_tuple(x):
    if isinstance(x, (Tensor, GradientEdge)):
        return (x,)
    return tuple(x)


class _EdgeOutput:
    """A GradientEdge given as an output: its node's input metadata stands for a tensor."""

    __slots__ = ("_data", "dtype")
    _requires_grad = True

    def __init__(self, edge):
        shape, dt = edge.node.input_metadata(edge.output_nr)
        self._data = np.broadcast_to(np.zeros((), dt), shape)  # no memory: shape and dtype
        self.dtype = from_numpy_dtype(dt)


def _one_like(od):
    """A fresh 1 shaped like the one-element array ``od`` (the implicit seed gradient):
    ``np.array`` for a 0-d output, about a fifth of ``np.ones_like``'s cost."""
    return np.array(1.0, od.dtype) if od.ndim == 0 else np.ones(od.shape, od.dtype)


def _make_grads(outputs, grads, create_graph, is_grads_batched):
    """The seed gradient of each output, checked like PyTorch's _make_grads."""
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if isinstance(o, GradientEdge):
            o = _EdgeOutput(o)
        od = o._data
        if g is None:
            if o._requires_grad:
                if od.size != 1:
                    raise RuntimeError(
                        "grad can be implicitly created only for scalar outputs (output "
                        f"{i} has shape {list(od.shape)}; pass a gradient of that shape, e.g. "
                        "out.backward(graphgrad.ones_like(out)))")
                if od.dtype.kind not in "fV" and o.dtype.category != 2:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got "
                        f"{o.dtype}")
                g = _one_like(od)
                out.append(Tensor._wrap(g) if create_graph else g)
            else:
                out.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        gd = g._data
        gshape = gd.shape[1:] if is_grads_batched else gd.shape
        if gshape != od.shape:
            if is_grads_batched:
                raise RuntimeError(
                    f"If `is_grads_batched=True`, we interpret the first dimension of each grad"
                    f"_output as the batch dimension. The sizes of the remaining dimensions are "
                    f"expected to match the shape of corresponding output, but a mismatch was "
                    f"detected: grad_output[{i}] has a shape of graphgrad.Size("
                    f"{list(gd.shape)}) and output[{i}] has a shape of graphgrad.Size("
                    f"{list(od.shape)}).")
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of graphgrad.Size("
                f"{list(gd.shape)}) and output[{i}] has a shape of graphgrad.Size("
                f"{list(od.shape)}).")
        if (gd.dtype.kind == "c") != (od.dtype.kind == "c"):
            raise RuntimeError(
                "For complex Tensors, both grad_output and output are required to have the same "
                f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and "
                f"output[{i}] has a dtype of {o.dtype}.")
        if create_graph:
            out.append(g)
        else:
            out.append(gd)
    return out


def _root_edges(outputs):
    edges = []
    for i, o in enumerate(outputs):
        if isinstance(o, GradientEdge):  # an output given as the edge its gradient enters
            edges.append((o.node, o.output_nr))
            continue
        if not o._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn "
                "(was it computed under no_grad, or from tensors without requires_grad=True?)")
        edges.append(_edge(o))
    return edges


def _input_edges(inputs, what):
    edges = []
    for i, t in enumerate(inputs):
        if isinstance(t, GradientEdge):
            edges.append((t.node, t.output_nr))
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: inputs must be Tensors or GradientEdges, got "
                            f"{type(t).__name__} at index {i}")
        if not t._requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors does not require grad "
                               f"(index {i}, shape {list(t._data.shape)})")
        edges.append(_edge(t))
    return edges


_create_graph_warned = False


def _warn_create_graph():
    """PyTorch warns once per process (TORCH_WARN_ONCE) when backward() builds a graph of
    the gradients it accumulates into .grad."""
    global _create_graph_warned
    _create_graph_warned = True
    import warnings
    warnings.warn(
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak. We recommend using "
        "autograd.grad when creating the graph to avoid this. If you have to use this function, "
        "make sure to reset the .grad fields of your parameters to None after use to break the "
        "cycle and avoid the leak.", UserWarning, stacklevel=3)


# set by graphgrad.func while a vmap level is active (func/_batching.py): what backward and
# grad do with vmap's batched values (whose arrays show example 0 only)
vmap_backward_hook = None   # (tensors, grad_tensors) -> None; raises for batched values
vmap_grad_hook = None       # (outputs, inputs, grad_outputs, **options) -> None or the grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the graph's leaves."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    elif grad_tensors is None and inputs is None and not create_graph and \
            vmap_backward_hook is None and isinstance(tensors, Tensor) and \
            tensors._requires_grad:
        # the common call, ``loss.backward()``: _make_grads' and _root_edges' checks for
        # one tensor with an implicit gradient (anything they would reject goes below; so
        # does every call inside vmap, whose hook must see it)
        od = tensors._data
        if od.size == 1 and (od.dtype.kind in "fV" or tensors.dtype.category == 2):
            execute([_edge(tensors)], [_one_like(od)], bool(retain_graph), False)
            return
    tensors = _as_tuple(tensors)
    if vmap_backward_hook is not None:
        vmap_backward_hook(tensors, grad_tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grad_tensors = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))
    grads = _make_grads(tensors, grad_tensors, create_graph, False)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients: "
                           "pass one gradient (or None for a scalar) per tensor")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and (not _create_graph_warned or WARNINGS.always):
        _warn_create_graph()
    roots = _root_edges(tensors)
    input_edges = _input_edges(inputs, "backward") if inputs is not None else None
    if inputs is not None:
        for t in inputs:
            if isinstance(t, Tensor) and t._grad_fn is not None:
                # as PyTorch does: a non-leaf input gets its .grad through retain_grad
                # (which stays on), so its tensor hooks apply first
                t.retain_grad()
    execute(roots, grads, retain_graph, create_graph, inputs=input_edges, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` w.r.t. ``inputs`` (returned, not accumulated)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs = _tensor_or_tensors_to_tuple(grad_outputs, len(outputs))
    if vmap_grad_hook is not None:
        r = vmap_grad_hook(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                           create_graph=create_graph, allow_unused=allow_unused,
                           is_grads_batched=is_grads_batched,
                           materialize_grads=materialize_grads)
        if r is not None:
            return r
    grads = _make_grads(outputs, grad_outputs, create_graph, is_grads_batched)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grad_outputs)} "
                           f"grad_outputs for {len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs)
    edges = _input_edges(inputs, "grad")
    captured = execute(roots, grads, retain_graph, create_graph, inputs=edges,
                       accumulate=False, batch_nd=1 if is_grads_batched else 0)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                if not isinstance(t, Tensor):
                    raise RuntimeError("materialize_grads cannot be used when the given input "
                                       f"is a GradientEdge (input {i} was not reached)")
                # zeros shaped like the input, without the batch dim (as PyTorch does, also
                # with is_grads_batched=True); under create_graph a leaf that requires grad,
                # so that a further grad() of it gives zeros (PyTorch's zeros_like(input,
                # requires_grad=create_graph))
                z = Tensor._wrap(np.zeros(t._data.shape, t._data.dtype))
                if create_graph:
                    z._requires_grad = True
                result.append(z)
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
            result.append(None)
            continue
        result.append(g if isinstance(g, Tensor) else Tensor._wrap(g))
    return tuple(result)


# the tools (layer 6): name -> (module, attribute or None for the module itself)
_TOOLS = {
    "function": ("function", None), "Function": ("function", "Function"),
    "FunctionCtx": ("function", "FunctionCtx"),
    "once_differentiable": ("function", "once_differentiable"),
    "forward_ad": ("forward_ad", None), "functional": ("functional", None),
    "Variable": ("variable", "Variable"),  # (a class: isinstance(t, Variable) works)
    "anomaly_mode": ("anomaly_mode", None), "detect_anomaly": ("anomaly_mode", "detect_anomaly"),
    "set_detect_anomaly": ("anomaly_mode", "set_detect_anomaly"),
    # the function shadows the module on the package, as in PyTorch; the module stays
    # importable (``from graphgrad.autograd.gradcheck import GradcheckError``)
    "gradcheck": ("gradcheck", "gradcheck"), "gradgradcheck": ("gradcheck", "gradgradcheck"),
    "GradcheckError": ("gradcheck", "GradcheckError"),
    "profiler": ("profiler", None), "record_function": ("profiler", "record_function"),
    "profiler_util": ("profiler_util", None),
}
__all__ += ["functional", "gradcheck", "gradgradcheck", "GradcheckError", "detect_anomaly",
            "set_detect_anomaly"]


def __getattr__(name):
    tool = _TOOLS.get(name)
    if tool is not None:
        mod = importlib.import_module(f"{__name__}.{tool[0]}")
        # bind every name of that module now: its first import bound the submodule's name
        # on this package, which ``gradcheck`` (the function) must shadow
        for other, (module, attr) in _TOOLS.items():
            if module == tool[0]:
                globals()[other] = mod if attr is None else getattr(mod, attr)
        return globals()[name]
    # ``torch.autograd.torch`` is the torch package itself (old code reaches it that way)
    if name == "torch":
        return importlib.import_module("graphgrad")
    raise AttributeError(f"module 'graphgrad.autograd' has no attribute {name!r}")
