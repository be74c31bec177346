"""graphgrad.nn.functional: PyTorch's torch.nn.functional, one module per family.

Each op is one ``defop`` entry (forward kernel, VJP per input, JVP) in
``graphgrad/ops/derivatives/nn_<family>.py``, its kernels in ``ops/kernels/nn_<family>.py``;
the modules here hold the public functions with PyTorch's signatures and errors.  Numerically careful forms are
used where PyTorch uses them: softmax/log_softmax subtract the row maximum,
cross_entropy is log_softmax followed by nll_loss, binary_cross_entropy clamps
its logs at -100, binary_cross_entropy_with_logits uses the softplus form.

Ops whose backward is itself a non-trivial op (gelu, nll_loss, convolution,
pooling, embedding) declare that backward as an op too, whose own rules are
the adjoint pair (e.g. the input gradient of a convolution is a transposed
convolution, and the gradient of that is a convolution again), so
``create_graph=True`` differentiates them any number of times.

Kernels accept extra leading dimensions on their operands when they are
called from a rule with batched gradients (``is_grads_batched``), so every
rule works row-wise without a Python loop.
"""
from __future__ import annotations

from ...ops.registry import export
from .activation import (elu, elu_, gelu, leaky_relu, leaky_relu_, relu, relu_, sigmoid, silu,
                         softplus, tanh, threshold, threshold_)
from .softmax import log_softmax, softmax
from .dropout import dropout
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, l1_loss,
                   mse_loss, nll_loss, smooth_l1_loss)
from .norm import layer_norm, normalize
from .linear import linear
from .conv import conv1d, conv2d
from .pool import avg_pool2d, max_pool2d
from .embedding import embedding, one_hot
from .padding import pad

__all__ = [
    "linear", "relu", "relu_", "threshold", "threshold_", "leaky_relu", "leaky_relu_", "elu", "elu_", "gelu", "silu",
    "softplus", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "mse_loss",
    "l1_loss",
    "smooth_l1_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "layer_norm", "normalize", "one_hot", "conv1d", "conv2d",
    "max_pool2d", "avg_pool2d", "embedding",
    # the nn layers' ops
    "conv_transpose1d", "conv_transpose2d", "batch_norm", "instance_norm", "group_norm",
    "rms_norm", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "hardtanh", "hardtanh_", "relu6",
    "hardsigmoid", "hardswish", "mish", "logsigmoid", "softsign", "tanhshrink", "prelu", "glu",
    "dropout1d", "dropout2d", "alpha_dropout", "feature_alpha_dropout",
    "selu", "selu_", "celu", "celu_", "softshrink", "hardshrink", "rrelu", "rrelu_", "softmin",
    "huber_loss", "kl_div",
    "cosine_similarity", "pairwise_distance", "cosine_embedding_loss", "margin_ranking_loss",
    "scaled_dot_product_attention", "bilinear", "unfold", "fold",
]

# torch.* / Tensor.* names PyTorch also has for these ops
export("conv1d", method=False)(conv1d)
export("conv2d", method=False)(conv2d)
export("max_pool2d", method=False)(max_pool2d)
export("layer_norm", method=False)(layer_norm)

# The nn layers' ops: transposed convolutions and fold/unfold, the batch/instance/group/rms
# norms, 1-d and adaptive pools, further activations and dropouts, losses and distances,
# attention and bilinear.
from .conv_transpose import *  # noqa: E402,F401,F403
from .norm_layers import *  # noqa: E402,F401,F403
from .pool_adaptive import *  # noqa: E402,F401,F403
from .activation_extra import *  # noqa: E402,F401,F403
from .activation_more import *  # noqa: E402,F401,F403
from .loss_extra import *  # noqa: E402,F401,F403
from .attention import *  # noqa: E402,F401,F403

# the further losses, interpolate/upsample and pixel shuffle (api-loss branch)
from .loss_likelihood import *  # noqa: E402,F401,F403
from .loss_margin import *  # noqa: E402,F401,F403
from .upsampling import *  # noqa: E402,F401,F403
from . import loss_likelihood as _ll, loss_margin as _lm, upsampling as _up  # noqa: E402
__all__ += _ll.__all__ + _lm.__all__ + _up.__all__ + ["adaptive_avg_pool3d"]

# ops-reduce: F.pdist is torch.pdist
from ...ops.api.stats import pdist  # noqa: E402,F401
__all__ += ["pdist"]

# api3d: the 3-d convolutions and pools, *_with_indices, max_unpool, lp_pool, dropout3d
from .conv import conv3d  # noqa: E402,F401
from .pool import avg_pool3d, max_pool3d  # noqa: E402,F401
from .pool_more import *  # noqa: E402,F401,F403
from . import pool_more as _pm  # noqa: E402
from .pool_more import (_adaptive_max_pool1d, _adaptive_max_pool2d,  # noqa: E402,F401
                        _adaptive_max_pool3d, _max_pool1d, _max_pool2d, _max_pool3d)
__all__ += ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d"] + _pm.__all__
export("conv3d", method=False)(conv3d)
export("max_pool3d", method=False)(max_pool3d)

# embedding_bag, local_response_norm, channel_shuffle, gumbel_softmax (apinn branch)
from .embedding_bags import *  # noqa: E402,F401,F403
from .blocks import *  # noqa: E402,F401,F403
from . import blocks as _bl, embedding_bags as _eb  # noqa: E402
__all__ += _eb.__all__ + _bl.__all__
