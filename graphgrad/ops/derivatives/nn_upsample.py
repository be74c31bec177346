"""The table, nn_upsample family: interpolate's modes (upsample_nearest1d/2d/3d,
_upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d, upsample_bicubic2d,
upsample_trilinear3d, _upsample_bilinear2d_aa, _upsample_bicubic2d_aa,
_upsample_lanczos2d_aa) and pixel_shuffle / pixel_unshuffle, with PyTorch's nodes.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_upsample.py, public functions in nn/functional/upsampling.py.  Every op here is
linear: its JVP is the op itself, its backward op (``<name>_backward``, node
``...BackwardBackward0``) has the forward op as its own derivative, so create_graph=True
differentiates them any number of times.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import LINEAR, defop
from ..kernels.nn_upsample import _channel_shuffle_kernel
from ..kernels.nn_upsample import (_aa_backward_kernel, _aa_kernel, _interp_backward_kernel,
                                   _interp_kernel, _pixel_shuffle_kernel,
                                   _pixel_unshuffle_kernel)


# ====================================================================== interpolation
def _upsample(name, node, mode):
    """The op ``name(self, *, output_size, align_corners, scales)`` and its backward op."""
    fwd_name, bwd_name = name, name + "_backward"
    if mode.endswith("-aa"):
        fwd_kernel, bwd_kernel = _aa_kernel(mode[:-3]), _aa_backward_kernel(mode[:-3])
    else:
        fwd_kernel, bwd_kernel = _interp_kernel(mode), _interp_backward_kernel(mode)

    def self_vjp(grad, self_sym_sizes, output_size, align_corners, scales):
        return getattr(F, bwd_name)(grad, output_size, tuple(self_sym_sizes), align_corners,
                                    scales)

    def grad_output_vjp(grad, output_size, input_size, align_corners, scales):
        return getattr(F, fwd_name)(grad, output_size, align_corners, scales)

    bwd = defop(f"{bwd_name}(grad_output, *, output_size, input_size, align_corners, scales)",
                bwd_kernel, node.replace("Backward0", "BackwardBackward0"),
                grad_output=grad_output_vjp, jvp=LINEAR, batched_jvp=True)
    fwd = defop(f"{fwd_name}(self, *, output_size, align_corners, scales)",
                fwd_kernel, node, self=self_vjp, jvp=LINEAR, batched_jvp=True)
    return fwd, bwd


UPSAMPLE_NEAREST1D, UPSAMPLE_NEAREST1D_BACKWARD = _upsample(
    "upsample_nearest1d", "UpsampleNearest1DBackward0", "nearest")
UPSAMPLE_NEAREST2D, UPSAMPLE_NEAREST2D_BACKWARD = _upsample(
    "upsample_nearest2d", "UpsampleNearest2DBackward0", "nearest")
UPSAMPLE_NEAREST3D, UPSAMPLE_NEAREST3D_BACKWARD = _upsample(
    "upsample_nearest3d", "UpsampleNearest3DBackward0", "nearest")
UPSAMPLE_NEAREST_EXACT1D, UPSAMPLE_NEAREST_EXACT1D_BACKWARD = _upsample(
    "_upsample_nearest_exact1d", "UpsampleNearestExact1DBackward0", "nearest-exact")
UPSAMPLE_NEAREST_EXACT2D, UPSAMPLE_NEAREST_EXACT2D_BACKWARD = _upsample(
    "_upsample_nearest_exact2d", "UpsampleNearestExact2DBackward0", "nearest-exact")
UPSAMPLE_NEAREST_EXACT3D, UPSAMPLE_NEAREST_EXACT3D_BACKWARD = _upsample(
    "_upsample_nearest_exact3d", "UpsampleNearestExact3DBackward0", "nearest-exact")
UPSAMPLE_LINEAR1D, UPSAMPLE_LINEAR1D_BACKWARD = _upsample(
    "upsample_linear1d", "UpsampleLinear1DBackward0", "linear")
UPSAMPLE_BILINEAR2D, UPSAMPLE_BILINEAR2D_BACKWARD = _upsample(
    "upsample_bilinear2d", "UpsampleBilinear2DBackward0", "linear")
UPSAMPLE_TRILINEAR3D, UPSAMPLE_TRILINEAR3D_BACKWARD = _upsample(
    "upsample_trilinear3d", "UpsampleTrilinear3DBackward0", "linear")
UPSAMPLE_BICUBIC2D, UPSAMPLE_BICUBIC2D_BACKWARD = _upsample(
    "upsample_bicubic2d", "UpsampleBicubic2DBackward0", "cubic")
UPSAMPLE_BILINEAR2D_AA, UPSAMPLE_BILINEAR2D_AA_BACKWARD = _upsample(
    "_upsample_bilinear2d_aa", "UpsampleBilinear2DAaBackward0", "linear-aa")
UPSAMPLE_BICUBIC2D_AA, UPSAMPLE_BICUBIC2D_AA_BACKWARD = _upsample(
    "_upsample_bicubic2d_aa", "UpsampleBicubic2DAaBackward0", "cubic-aa")
UPSAMPLE_LANCZOS2D_AA, UPSAMPLE_LANCZOS2D_AA_BACKWARD = _upsample(
    "_upsample_lanczos2d_aa", "UpsampleLanczos2DAaBackward0", "lanczos-aa")


# ====================================================================== pixel shuffle
PIXEL_SHUFFLE = defop(
    "pixel_shuffle(self, *, upscale_factor)", _pixel_shuffle_kernel, "PixelShuffleBackward0",
    self=lambda grad, upscale_factor: F.pixel_unshuffle(grad, upscale_factor),
    jvp=LINEAR, batched_jvp=True)
PIXEL_UNSHUFFLE = defop(
    "pixel_unshuffle(self, *, downscale_factor)", _pixel_unshuffle_kernel,
    "PixelUnshuffleBackward0",
    self=lambda grad, downscale_factor: F.pixel_shuffle(grad, downscale_factor),
    jvp=LINEAR, batched_jvp=True)


# ====================================================================== channel shuffle
CHANNEL_SHUFFLE = defop(
    "channel_shuffle(self, *, groups, dim)", _channel_shuffle_kernel, "ChannelShuffleBackward0",
    # (the inverse permutation is the shuffle with C / groups groups)
    self=lambda grad, self_sym_sizes, groups, dim:
        F.channel_shuffle(grad, self_sym_sizes[dim] // groups, dim),
    jvp=LINEAR, batched_jvp=True)
