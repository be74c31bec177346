"""Optimizer: the base class of graphgrad's optimizers, with PyTorch's API.

``param_groups`` is a list of dicts (``"params"`` plus every option of the
optimizer), ``state`` a ``defaultdict(dict)`` keyed by parameter; ``state_dict()``
packs both in PyTorch's format (parameters replaced by their running index) so a
state dict round-trips and has torch's structure.

The built-in optimizers update the parameters' NumPy arrays directly (no
autograd ops, so no ``no_grad`` block is needed and a step costs a few NumPy
calls per parameter) and bump each parameter's version counter once, as
PyTorch's single in-place update does: a graph that saved a parameter before
the step fails at backward.  Every step first checks all gradients, so a bad
gradient raises before any parameter or state is changed.
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from .._core import dtypes as _dtype
from .._core.state import tls
from .._tensor.tensor import Tensor
from .._core.version import INFERENCE
from ..autograd.grad_mode import enable_grad
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "required"]

_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


class _RequiredParameter:
    """Marks an option that every parameter group must give (no default)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """Register ``hook(optimizer, args, kwargs) -> None | (args, kwargs)``, called before
    every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register ``hook(optimizer, args, kwargs)``, called after every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _typename(obj):
    if isinstance(obj, Tensor):
        return "graphgrad." + type(obj).__name__
    mod = type(obj).__module__
    name = type(obj).__qualname__
    return name if mod in ("builtins", None) else f"{mod}.{name}"


def _to_scalar(x):
    """A hyper-parameter as a Python number (a 1-element tensor gives its value)."""
    if isinstance(x, Tensor):
        return x.item()
    return x


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _scalar_dtype():
    return _dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32


def _step_tensor(value=0.0, fused=False):
    """PyTorch's ``state["step"]``: a 0-d float tensor (float32 unless the default dtype is
    float64; float32 for fused)."""
    dt = _dtype.float32 if fused else _scalar_dtype()
    return Tensor._wrap(np.array(value, dtype=dt.np))


def _zeros_like(p):
    return Tensor._wrap(np.zeros_like(p._data))


def _param_label(opt, p):
    """How an error names ``p``: its name when the groups were given names, else its place."""
    for gi, group in enumerate(opt.param_groups):
        for i, q in enumerate(group["params"]):
            if q is p:
                names = group.get("param_names")
                where = f"param_groups[{gi}]['params'][{i}]"
                return f"parameter '{names[i]}' ({where})" if names else f"parameter {where}"
    return "a parameter"


def _bad_grad(opt, p, g):
    """Raise PyTorch's error for a gradient that cannot update ``p`` (called only when the
    shapes differ; a gradient that broadcasts to the parameter is accepted, as in PyTorch)."""
    ps, gs = p._data.shape, g._data.shape
    try:
        if np.broadcast_shapes(ps, gs) == ps:
            return
    except ValueError:
        pass
    raise RuntimeError(
        f"{type(opt).__name__}.step(): the gradient of {_param_label(opt, p)} has shape "
        f"{list(gs)} but the parameter has shape {list(ps)} (its .data was probably replaced "
        "after backward); set its .grad to None or recompute the gradient. No parameter was "
        "updated.")


def _inference_param(opt, p):
    raise RuntimeError(
        f"{type(opt).__name__}.step(): Inplace update to inference tensor outside InferenceMode "
        f"is not allowed ({_param_label(opt, p)} was created under inference_mode). You can "
        "make a clone to get a normal tensor before doing inplace update. No parameter was "
        "updated.")


def _wrap_step(step):
    """Run the step pre/post hooks (the optimizer's and the global ones) around ``step``."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        if not (_global_optimizer_pre_hooks or self._optimizer_step_pre_hooks
                or self._optimizer_step_post_hooks or _global_optimizer_post_hooks):
            return step(*args, **kwargs)
        # as in PyTorch, the hooks see ``args`` with the optimizer first
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                        f"{result}.")
        out = step(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class for all optimizers.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (parameter
    groups, each with its own options); ``defaults`` holds the options a group does not give.
    """

    def _patch_step_function(self):
        """Make the class's ``step`` run the step hooks (once per class, when its first
        instance is made -- PyTorch's timing, so a subclass whose ``step`` calls
        ``super().step()`` runs the hooks once unless the base class was used on its own)."""
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _wrap_step(cls.step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        if defaults.get("differentiable", False):
            raise NotImplementedError(
                f"{type(self).__name__}(differentiable=True) is not supported by graphgrad: its "
                "optimizers update parameters outside autograd. Use differentiable=False, or "
                "write the update with graphgrad ops to differentiate through it.")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ------------------------------------------------------------ pickling / repr
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------ hooks
    @staticmethod
    def _add(hooks, hook, prepend=False):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None | (new_args, new_kwargs)`` before ``step``."""
        return self._add(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` after ``step``."""
        return self._add(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._add(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._add(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._add(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._add(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------ state dict
    def state_dict(self):
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``: the
        parameters are replaced by their position across all groups (PyTorch's format)."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state(param, value, key, fused_or_capturable):
        """A state tensor on its way in: floating state takes the parameter's dtype, except
        ``step`` (kept as saved unless fused/capturable: float32)."""
        if key == "step":
            if fused_or_capturable:
                return value.to(dtype=_dtype.float32)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict):
        """Load a state dict made by ``state_dict()`` (of graphgrad or PyTorch): the groups
        must match this optimizer's in number and size; nothing changes if they do not."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups "
                             f"({len(saved_groups)}; this optimizer has {len(groups)})")
        for i, (g, sg) in enumerate(zip(groups, saved_groups)):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    f"of optimizer's group (group {i}: {len(sg['params'])} saved parameters, "
                    f"{len(g['params'])} in the optimizer)")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key, special):
            if isinstance(value, Tensor):
                return Optimizer._cast_state(param, value, key, special)
            if isinstance(value, dict):
                return {k: cast(param, v, k, special) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, None, special) for v in value)
            return value

        special_of = {}
        for sg in state_dict["param_groups"]:
            flag = bool(sg.get("fused", False) or sg.get("capturable", False))
            for pid in sg["params"]:
                special_of.setdefault(pid, flag)
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, None, special_of.get(k, False))
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ------------------------------------------------------------ grads
    def zero_grad(self, set_to_none=True):
        """Reset the gradients: ``None`` (default) or zeros, detached, in place."""
        plain = not tls.extras_on  # no forward AD / saved-tensor hooks / mutation context active
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is not None:
                    if set_to_none:
                        p._grad = None
                    elif (plain and g._grad_fn is None and g._base is None
                          and g._vc is not INFERENCE and g._data.flags.writeable):
                        # the common case (a plain detached grad): zero_() without dispatch
                        g._requires_grad = False
                        g._bump_version()
                        g._data.fill(0)
                    else:
                        if g._grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure=None):
        """Perform one optimization step (subclasses implement it)."""
        raise NotImplementedError

    # ------------------------------------------------------------ groups
    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing options take the
        defaults); a parameter may belong to one group only."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        tensors, names = [], []
        for item in params:
            if isinstance(item, tuple):
                names.append(item[0])
                tensors.append(item[1])
            else:
                tensors.append(item)
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        for i, p in enumerate(tensors):
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (
                    p._grad_fn is None or p._retains_grad):
                raise ValueError(
                    f"can't optimize a non-leaf Tensor (parameter {i} of the group has grad_fn="
                    f"{type(p._grad_fn).__name__}); optimize the leaf it was computed from, or "
                    "pass t.detach().requires_grad_()")
        new_group = dict(param_group)
        new_group["params"] = tensors
        if names:
            new_group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in new_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            new_group.setdefault(name, default)
        if len(tensors) != len(set(map(id, tensors))):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(map(id, group["params"]))
            if ("param_names" in new_group) != ("param_names" in group):
                txt = "with names" if "param_names" in new_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not seen.isdisjoint(map(id, tensors)):
            raise ValueError("some parameters appear in more than one parameter group")
        # the caller's dict is the group, as in PyTorch (its "params" becomes the list)
        param_group.clear()
        param_group.update(new_group)
        self.param_groups.append(param_group)

    # ------------------------------------------------------------ helpers for subclasses
    def _with_grads(self, group):
        """The (parameter, gradient) pairs of ``group`` that have a gradient, each checked:
        raises (before anything is updated) on a gradient that cannot update its parameter."""
        out = []
        for p in group["params"]:
            g = p._grad
            if g is not None:
                if g._data.shape != p._data.shape:
                    _bad_grad(self, p, g)
                if p._vc is INFERENCE and not tls.inference:
                    _inference_param(self, p)
                out.append((p, g))
        return out

    def _checked_groups(self):
        return [(group, self._with_grads(group)) for group in self.param_groups]

    @staticmethod
    def _run_closure(closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()
