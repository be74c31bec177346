"""Lazy modules (PyTorch's torch.nn.modules.lazy and the Lazy* layers): a layer whose
input size (in_features, in_channels, num_features) is read from its first input.  Until
then its parameters are UninitializedParameter (buffers UninitializedBuffer); the first
forward materializes them in place (an optimizer built before keeps working), initializes
them as the layer's reset_parameters does, and turns the module into ``cls_to_become``
(LazyLinear -> Linear)."""
from __future__ import annotations

import itertools

import graphgrad as _gg
from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """The mixin of lazy modules: a forward pre-hook calls ``initialize_parameters(*args,
    **kwargs)`` on the first call, then removes itself and sets ``__class__`` to
    ``cls_to_become``; a load_state_dict pre-hook materializes uninitialized entries with
    the shapes of the loaded tensors."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # (uninitialized entries are saved as they are: they cannot be detached)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialize and initialize the parameters from the first input (each lazy
        layer's own)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module (not its children) is still
        uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                        self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


# ------------------------------------------------------------------ Linear
class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is the last dim of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        fk = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**fk)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**fk)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # (parameters loaded from a state_dict)
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"LazyLinear: the in_features inferred from input: {input.shape[-1]} is not "
                    f"equal to in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# ------------------------------------------------------------------ convolutions
class _LazyConvXdMixin(LazyModuleMixin):
    _k = 1

    def __init__(self, out_channels, *args, bias=True, device=None, dtype=None):
        fk = {"device": device, "dtype": dtype}
        super().__init__(0, 0, *args, **fk)
        self.weight = UninitializedParameter(**fk)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**fk)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        nd = self._k + 1  # channels and the spatial dims
        if input.dim() not in (nd, nd + 1):
            raise RuntimeError(f"Expected {nd}D (unbatched) or {nd + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == nd + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._k


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # (the conv is built with bias=False; the lazy bias is set afterwards)
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, bias=bias, device=device, dtype=dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, output_padding, groups,
                         False, dilation, padding_mode, bias=bias, device=device, dtype=dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A Conv1d whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv1d
    _k = 1


class LazyConv2d(_LazyConv, Conv2d):
    """A Conv2d whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv2d
    _k = 2


class LazyConv3d(_LazyConv, Conv3d):
    """A Conv3d whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv3d
    _k = 3


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ConvTranspose1d whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose1d
    _k = 1


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ConvTranspose2d whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose2d
    _k = 2


# ------------------------------------------------------------------ normalization
class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        fk = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, bias=False, **fk)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**fk)
            if bias:
                self.bias = UninitializedParameter(**fk)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**fk)
            self.running_var = UninitializedBuffer(**fk)
            self.num_batches_tracked = _gg.tensor(0, dtype=_gg.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        # (dim 1, as PyTorch's, also for an unbatched instance-norm input)
        self.num_features = input.shape[1]
        with no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm1d whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm2d whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ConvTranspose3d whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose3d
    _k = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm3d whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
