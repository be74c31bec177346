"""nn.Module's conversions: ``_apply`` and what is built on it (``to``, ``float``,
``double``, ``half``, ``bfloat16``, ``type``, ``cpu``, ``cuda``, ``to_empty``) and ``apply``,
as the base ``_ConversionMixin`` of Module.  Parameters keep their objects (their data is
swapped), so an optimizer built before ``to()`` still holds them.
"""
from __future__ import annotations

import warnings

from ..._core import dtypes as _dtype
from ..._tensor.creation import empty_like
from ..._tensor.tensor import Tensor, _check_device
from ...autograd.grad_mode import no_grad


def _parse_to(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: unexpected "
                        f"keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, bool):
            non_blocking = a
        else:
            device = a
    if device is not None:
        if isinstance(device, int):
            raise RuntimeError("Cannot access accelerator device when none is available. "
                               f"(to({device}) names an accelerator; graphgrad runs on the CPU "
                               "only)")
        _check_device(device)
    return device, dtype, non_blocking, memory_format


class _ConversionMixin:
    """Module's conversion methods (the module docstring)."""

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param_grad = param.grad
            # PyTorch keeps the Parameter object and swaps its data (the optimizer keeps
            # pointing at it)
            if isinstance(param_applied, Tensor):
                param.data = param_applied
            else:
                raise TypeError(f"_apply(): {self._get_name()}.{key}: fn returned "
                                f"{type(param_applied).__name__}, not a Tensor")
            if param_grad is not None:
                with no_grad():
                    grad_applied = fn(param_grad)
                param_grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Call ``fn(module)`` on every submodule (children first) and on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type`` (a dtype, a legacy type such as
        ``DoubleTensor``, or its name ``'torch.DoubleTensor'``)."""
        if isinstance(dst_type, str):
            name = dst_type.rsplit(".", 1)[-1]
            if ".cuda." in dst_type:
                raise RuntimeError(f"type '{dst_type}' needs CUDA; graphgrad runs on the CPU "
                                   "only (use e.g. 'torch.FloatTensor')")
            legacy = {c.__name__: c for c in _dtype.LEGACY_TYPES}.get(name)
            if legacy is None or dst_type.count(".") > 1:
                raise ValueError(f"invalid type: '{dst_type}' (use e.g. 'torch.DoubleTensor' "
                                 "or a dtype)")
            dst_type = legacy.dtype
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """``to(dtype)`` / ``to(device)`` / ``to(tensor)``: casts floating point and complex
        parameters and buffers (in place: the same Parameter objects)."""
        device, dtype, non_blocking, memory_format = _parse_to(args, dict(kwargs))
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using "
                    "complex tensors as parameters or buffers.", stacklevel=2)

        def convert(t):
            dt = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) \
                else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(dt, memory_format=memory_format)
            return t.to(dt) if dt is not None else t

        return self._apply(convert)

    def share_memory(self):
        return self
