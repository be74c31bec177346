"""functional_call and stack_module_state: run a module with other tensors in place of its
parameters and buffers (``torch.func.functional_call``; also PyTorch's
``torch.nn.utils.stateless.functional_call``)."""
from __future__ import annotations

import contextlib

from ..._tensor.tensor import Tensor
from ...ops.api.copies import stack as _stack

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _merge(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        seen, repeated = set(), []
        for d in parameter_and_buffer_dicts:
            for k in d:
                if k in seen and k not in repeated:
                    repeated.append(k)
                seen.add(k)
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        return {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                     f"dicts, but got {type(parameter_and_buffer_dicts)}")


def _untie(module, tensors):
    """Give every name tied to a given tensor (the same Parameter under two names) the
    given value; two different values for tied names are an error."""
    groups = {}
    for name, t in _named_tensors(module):
        groups.setdefault(id(t), []).append(name)
    out = dict(tensors)
    for names in groups.values():
        if len(names) < 2:
            continue
        given = [n for n in names if n in tensors]
        if not given:
            continue
        vals = {id(tensors[n]) for n in given}
        if len(vals) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, "
                             "which are tied. Consider using tie_weights=False")
        for n in names:
            out.setdefault(n, tensors[given[0]])
    return out


def _named_tensors(module):
    for prefix, m in module.named_modules(remove_duplicate=False):
        for d in (m._parameters, m._buffers):
            for k, v in d.items():
                if v is not None:
                    yield (prefix + "." + k if prefix else k), v


def _swap(module, name, value):
    """Put ``value`` at the dotted ``name``; return what was there (or _MISSING)."""
    prefix, _, attr = name.rpartition(".")
    m = module.get_submodule(prefix) if prefix else module
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for d in (m._parameters, m._buffers):
        if attr in d:
            old = d[attr]
            if value is _MISSING:
                del d[attr]
            else:
                d[attr] = value
            return old
    old = m.__dict__.get(attr, _MISSING)
    if value is _MISSING:
        m.__dict__.pop(attr, None)
    else:
        m.__dict__[attr] = value
    return old


@contextlib.contextmanager
def _reparametrize(module, tensors, tie_weights, strict):
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        names = {n for n, _ in _named_tensors(module)}
        unexpected = [k for k in tensors if k not in names]
        missing = [k for k in names if k not in tensors]
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, sorted(missing)))}.")
        if msgs:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(msgs))
    saved = []
    try:
        for k, v in tensors.items():
            saved.append((k, _swap(module, k, v)))
        yield
    finally:
        for k, old in reversed(saved):
            _swap(module, k, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict
    name -> Tensor, or a tuple of such dicts) in place of its parameters and buffers; the
    module is restored afterwards."""
    tensors = _merge(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, tensors, tie_weights, strict):
        return module(*args, **kwargs)


def _stacked_leaf(tensors, name):
    flags = [t.requires_grad for t in tensors]
    if any(flags) and not all(flags):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = _stack([t.detach() for t in tensors])
    if all(flags):
        out.requires_grad_()
    return out


def stack_module_state(models):
    """``(params, buffers)``: each model's parameters and buffers stacked along a new
    leading dim (parameters as new leaves that require grad)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_bufs = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_bufs], k) for k in all_bufs[0]}
    return params, buffers
