"""``nn.DataParallel`` as PyTorch runs it on a machine without accelerators.

DataParallel splits a batch across GPUs; with no GPU PyTorch keeps the wrapper but
forwards every call to the wrapped module unchanged (``device_ids`` becomes ``[]``), so
scripts written for GPUs run on a CPU.  graphgrad is that machine.  (Data parallelism
across processes is ``DistributedDataParallel``.)
"""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; on CPU every call runs ``module`` itself, as PyTorch's does.

    ``state_dict`` keys carry the ``module.`` prefix, as PyTorch's."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        # (no accelerator: PyTorch ignores device_ids / output_device and keeps no dim)
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """PyTorch's functional DataParallel: it needs an accelerator, so on CPU it raises
    PyTorch's error."""
    raise RuntimeError("device type could not be determined (data_parallel needs a GPU; "
                       "on a CPU call the module directly, or use DistributedDataParallel "
                       "across processes)")
