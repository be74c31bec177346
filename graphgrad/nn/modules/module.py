"""nn.Module: the base class of every layer (PyTorch's torch/nn/modules/module.py semantics).

A Module keeps its state in three ordered dicts read by everything else (state_dict keys,
hooks, optimizers): ``_parameters`` (name -> Parameter or None), ``_buffers`` (name ->
Tensor or None; names in ``_non_persistent_buffers_set`` are left out of state_dict) and
``_modules`` (name -> Module or None).  Assigning a Parameter / Module / Buffer attribute
registers it there (``__setattr__``); reading goes through ``__getattr__``, which Python
only calls when ordinary lookup fails.

``__call__`` with no hook registered (on the module or globally) calls ``forward``
directly: the hook machinery (``_call_impl``, in _hooks.py) is entered only when some hook
dict is non-empty.  Full backward hooks wrap the module's tensor inputs and outputs in
``BackwardHookFunction`` nodes (graphgrad.utils.hooks.BackwardHook), exactly as PyTorch
does, so hooks see the same grad_input/grad_output tuples (None for non-tensor
arguments) and in-place ops on those views raise the same error.
"""
from __future__ import annotations

from collections import OrderedDict

from ..._tensor.tensor import Tensor
from ..parameter import Buffer, Parameter
# the hooks, the state dict and the conversions are Module's bases, in their own files;
# their public and PyTorch-path names are re-exported here
# (torch.nn.modules.module.register_module_*, the global hook dicts, _IncompatibleKeys)
from ._hooks import (_HooksMixin, _WrappedHook, _global_backward_hooks,  # noqa: F401
                     _global_backward_pre_hooks, _global_buffer_registration_hooks,
                     _global_forward_hooks, _global_forward_hooks_always_called,
                     _global_forward_hooks_with_kwargs, _global_forward_pre_hooks,
                     _global_module_registration_hooks, _global_parameter_registration_hooks,
                     register_module_backward_hook, register_module_buffer_registration_hook,
                     register_module_forward_hook, register_module_forward_pre_hook,
                     register_module_full_backward_hook,
                     register_module_full_backward_pre_hook,
                     register_module_module_registration_hook,
                     register_module_parameter_registration_hook)
from ._conversion import _ConversionMixin, _parse_to  # noqa: F401
from ._state_dict import _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys, _StateDictMixin  # noqa: F401

__all__ = [
    "Module", "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_backward_hook",
    "register_module_full_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook",
]

def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


def _typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname if hasattr(obj, "__qualname__") else type(obj).__qualname__
    return f"{module}.{qualname}" if hasattr(obj, "__qualname__") else \
        f"{type(obj).__module__}.{type(obj).__qualname__}"


def _forward_unimplemented(self, *input):
    """Define the computation performed at every call (override in subclasses); call the
    module instance rather than ``forward`` so that hooks run."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module(_HooksMixin, _StateDictMixin, _ConversionMixin):
    """Base class for all neural network modules: subclass it, create parameters and
    submodules in ``__init__`` (after ``super().__init__()``) and define ``forward``."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter, e.g. running statistics);
        ``persistent=False`` leaves it out of ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('buffer name can\'t contain "."')
        elif name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        elif tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a Parameter, or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('parameter name can\'t contain "."')
        elif name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        elif not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        elif "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        elif name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` ("" is self); AttributeError names
        the first missing step."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The Parameter at the dotted path ``target``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        # fast path: no hook anywhere -> forward directly (cheaper than PyTorch's, which
        # goes through _wrapped_call_impl and _call_impl first)
        if (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self._call_impl(*args, **kwargs)
        return self.forward(*args, **kwargs)

    _wrapped_call_impl = __call__

    # ------------------------------------------------------------ attributes
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        defaults = {
            "_forward_pre_hooks": OrderedDict, "_forward_pre_hooks_with_kwargs": OrderedDict,
            "_forward_hooks_with_kwargs": OrderedDict,
            "_forward_hooks_always_called": OrderedDict, "_state_dict_hooks": OrderedDict,
            "_state_dict_pre_hooks": OrderedDict, "_load_state_dict_pre_hooks": OrderedDict,
            "_load_state_dict_post_hooks": OrderedDict, "_non_persistent_buffers_set": set,
            "_backward_pre_hooks": OrderedDict}
        for k, f in defaults.items():
            if k not in self.__dict__:
                self.__dict__[k] = f()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    if buffers is None:
                        raise AttributeError("cannot assign buffer before Module.__init__() call")
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    # ------------------------------------------------------------ iteration
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        """An iterator over the parameters (each once), submodules' too unless
        ``recurse=False``."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """An iterator over ``(dotted name, parameter)``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """An iterator over the buffers (persistent or not)."""
        for _name, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """An iterator over ``(dotted name, buffer)``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        """An iterator over the immediate submodules."""
        for _name, module in self.named_children():
            yield module

    def named_children(self):
        """An iterator over ``(name, immediate submodule)``, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate=True):
        """An iterator over all modules of the tree, self first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """An iterator over ``(dotted name, module)`` of the tree, self ("" ) first."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ------------------------------------------------------------ modes, grads
    def train(self, mode=True):
        """Set training mode (``mode=False``: evaluation) on self and all submodules."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of every parameter (freeze with False)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the parameters' gradients: to None (default) or to zeros."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ------------------------------------------------------------ repr
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """Override to add information to this module's repr (one or more lines)."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str
