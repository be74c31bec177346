"""The table, misc_ops family: isin, the unsafe_split family.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/misc_ops.py, public functions in ops/api/misc_ops.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import LINEAR, defop
from .shape import _nd
from ..kernels.views import _split_kernel, _split_with_sizes_kernel
from .views import cat_grads
from ..kernels.misc_ops import _channels_last_kernel


# ------------------------------------------------------------------ unsafe_split family
UNSAFE_SPLIT = defop("unsafe_split(self, *, split_size, dim)", _split_kernel,
                     "UnsafeSplitBackward0", n_outputs=2,
                     self=lambda grads, self_sym_sizes, dim:
                         cat_grads(grads, dim, len(self_sym_sizes)),
                     jvp=LINEAR,
                     batched_jvp=lambda self_t, self_sym_sizes, split_size, dim:
                         F.unsafe_split(self_t, split_size, _nd(dim, len(self_sym_sizes))))
UNSAFE_SPLIT_WITH_SIZES = defop(
    "unsafe_split_with_sizes(self, *, split_sizes, dim)", _split_with_sizes_kernel,
    "UnsafeSplitWithSizesBackward0", n_outputs=2,
    self=lambda grads, self_sym_sizes, dim: cat_grads(grads, dim, len(self_sym_sizes)),
    jvp=LINEAR,
    batched_jvp=lambda self_t, self_sym_sizes, split_sizes, dim:
        F.unsafe_split_with_sizes(self_t, split_sizes, _nd(dim, len(self_sym_sizes))))


# ------------------------------------------------------------------ channels_last layouts
CLONE_CHANNELS_LAST = defop("clone.channels_last(self, *, nd)", _channels_last_kernel,
                            "CloneBackward0", self=lambda grad: grad, jvp=LINEAR,
                            batched_jvp=lambda self_t, nd: F.clone_channels_last(self_t, nd))

# to(memory_format=channels_last) records PyTorch's ToCopyBackward0
TO_CHANNELS_LAST = defop("_to_copy.channels_last(self, *, nd)", _channels_last_kernel,
                         "ToCopyBackward0", self=lambda grad: grad, jvp=LINEAR,
                         batched_jvp=lambda self_t, nd: F._to_copy_channels_last(self_t, nd))
