"""graphgrad.nn.functional: PyTorch's torch.nn.functional (table entries and functions).

Each op is one ``defop`` entry (forward kernel, VJP per input, JVP) followed by
its public function with PyTorch's signature.  Numerically careful forms are
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

import itertools
import math
import warnings

import numpy as np

from .. import _dtype
from .._dtype import scalar_type_name
from .._tensor import Tensor, _wrap_dim
from .._ops import formulas as F
from .._ops import registry as _registry
from .._ops.dispatch import binary, dispatch, dispatch_inplace, no_bool, unary
from .._ops.registry import LINEAR, ELEMENTWISE, POINTWISE, defop, export
from .._ops.linalg import _check_same_dtype
from .._ops.opmath import BFLOAT16, FLOAT16, half_in_float32
from .._ops.views import _renamed

__all__ = [
    "linear", "relu", "relu_", "leaky_relu", "leaky_relu_", "elu", "elu_", "gelu", "silu",
    "softplus", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "mse_loss", "l1_loss",
    "smooth_l1_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "layer_norm", "normalize", "one_hot", "conv1d", "conv2d",
    "max_pool2d", "avg_pool2d", "embedding",
]


# ====================================================================== helpers
def _pub(name):
    """A public graphgrad function of another family (looked up when called)."""
    fn = _registry.PUBLIC.get(name)
    if fn is None:
        raise NotImplementedError(f"graphgrad.{name} is needed here but is not available")
    return fn


def _tensor_arg(fname, x, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _type_name(t):
    return scalar_type_name(t.dtype)


def _real_floating(fname, x):
    """PyTorch's kernels for most nn ops exist for real floating dtypes only."""
    if x._data.dtype.kind != "f" and x.dtype.name != "bfloat16":
        raise NotImplementedError(f'"{fname}" not implemented for \'{_type_name(x)}\'')


def _real_floating_pair(fname, input, target):
    """The pair losses' kernels run in the dtype the two promote to: a real floating one
    (an int or bool input with a float target is fine, a complex target is not)."""
    rt = _dtype.result_type(input, target)
    if not rt.is_floating_point:
        raise NotImplementedError(f'"{fname}" not implemented for \'{scalar_type_name(rt)}\'')


def _no_grad_arg(fname, arg, t):
    """PyTorch refuses inputs it has no derivative for (weight, pos_weight ...)."""
    from .._state import tls
    if isinstance(t, Tensor) and t._requires_grad and tls.grad_enabled:
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to "
                           f"argument '{arg}'. This input cannot have requires_grad True.")


def _sumk(x, dims):
    """Sum over (negative) ``dims`` keeping them; ndarray or Tensor."""
    if isinstance(x, Tensor):
        return F.sum_dim_IntList(x, tuple(dims), True, None)
    return x.sum(axis=tuple(dims), keepdims=True)


def _reduce_last(x, reduction, nd):
    """``_reduce`` over the last ``nd`` dims of ``x`` only: its leading dims are the batch of
    a batched tangent (the batched JVPs of the losses)."""
    lead = F.ndim(x) - nd
    if reduction == "none" or lead == 0:
        return _reduce(x, reduction)
    dims = tuple(range(lead, F.ndim(x)))
    if reduction == "sum":
        return F.sum_dim_IntList(x, dims, False, None)
    return F.mean_dim(x, dims, False, None)


def _bpad(t, x, nd):
    """The tangent ``t`` of ``x`` with singleton dims after its batch dims up to ``nd``."""
    return F.pad_batched(t, F.ndim(x), nd)


def _pair_loss_batched(dloss, self_t, target_t, self, target, reduction):
    """The batched JVP of a loss of ``self - target`` with elementwise derivative ``dloss``
    (input and target broadcast against each other)."""
    nd = len(np.broadcast_shapes(F.shape(self), F.shape(target)))
    # the two terms apart, as PyTorch's (see _mse_jvp)
    t = dloss * _bpad(self_t, self, nd) - dloss * _bpad(target_t, target, nd)
    return _reduce_last(t, reduction, nd)


def _reduce(x, reduction):
    """Apply a loss reduction ('none' | 'mean' | 'sum'); ndarray or Tensor."""
    if reduction == "none":
        return x
    if isinstance(x, Tensor):
        return F.sum(x) if reduction == "sum" else F.mean(x)
    return x.sum() if reduction == "sum" else x.mean()


def _reduced_grad(grad, reduction, sizes):
    """The gradient of a reduced loss broadcast against its ``sizes``-shaped elements."""
    if reduction == "none":
        return grad
    g = F.reshape_to(grad, (1,) * len(sizes), 0)
    if reduction == "mean":
        n = F.numel(sizes)
        g = F.div_count(g, n) if n else g * math.nan
    return g


def _reduction(size_average, reduce, reduction):
    """The ``reduction`` string, honouring the deprecated size_average/reduce flags."""
    if size_average is not None or reduce is not None:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      "reduction='...' instead.", UserWarning, stacklevel=3)
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _neg_dim(dim, nd):
    """``dim`` counted from the end (batch-safe), or None for a 0-d tensor."""
    d = _wrap_dim(dim, nd)
    return d - nd if nd else None


def _where0(cond, x):
    """``where(cond, 0, x)``; keeps exp() of the untaken branch finite."""
    return F.where(cond, 0.0, x)


# ====================================================================== activations
@half_in_float32
def _leaky_relu_kernel(a, negative_slope):
    return np.where(a > 0, a, a * negative_slope)


# the backward functions are ops of their own, as PyTorch's leaky_relu_backward and
# elu_backward: under create_graph the gradient depends on the input (so it requires grad,
# with the derivative PyTorch defines there), and it selects rather than multiplies, so a
# NaN input passes the gradient of the branch PyTorch takes
@half_in_float32
def _leaky_relu_backward_kernel(g, a, negative_slope):
    return np.where(a > 0, g, g * negative_slope)


LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward(grad_output, self, *, negative_slope)", _leaky_relu_backward_kernel,
    "LeakyReluBackwardBackward0",
    grad_output=lambda grad, self, negative_slope:
        F.leaky_relu_backward(grad, self, negative_slope),
    self=lambda grad: F.zeros_like(grad),
    jvp=lambda grad_output_t, self, negative_slope:
        F.leaky_relu_backward(grad_output_t, self, negative_slope), batched_jvp=POINTWISE)
LEAKY_RELU = defop("leaky_relu(self, *, negative_slope)", _leaky_relu_kernel,
                   "LeakyReluBackward0",
                   self=lambda grad, self, negative_slope:
                       F.leaky_relu_backward(grad, self, negative_slope),
                   jvp=ELEMENTWISE)


def _inplace_slope_check(name, slope):
    if slope < 0:
        raise RuntimeError(
            f"In-place {name} backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead.")


def _leaky_relu_inplace_vjp(grad, result, negative_slope):
    # the in-place variant saves its result, not the overwritten input: the input's sign is
    # read off the result, which needs a positive slope
    _inplace_slope_check("leakyReLu", negative_slope)
    return F.leaky_relu_backward(grad, result, negative_slope)


LEAKY_RELU_ = defop("leaky_relu_(self, *, negative_slope)", _leaky_relu_kernel,
                    "LeakyReluBackward1", self=_leaky_relu_inplace_vjp, jvp=ELEMENTWISE)


@half_in_float32
def _elu_kernel(a, alpha):
    return np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0)))


@half_in_float32
def _elu_backward_kernel(g, x, alpha, is_result):
    # x is the input, or the result (in-place elu_). At NaN the gradient is NaN, as PyTorch's
    # vectorised loop gives on every CPU (its scalar loop, which only handles a short tensor
    # or the tail past the last full vector, gives the gradient itself: a CPU-dependent 1)
    if is_result:
        return np.where(x > 0, g, g * (x + alpha))
    return np.where(x > 0, g, g * (alpha * np.exp(np.minimum(x, 0))))


def _elu_double_backward(grad, grad_output, self_or_result, alpha, is_result):
    # PyTorch's elu_double_backward: 0 at x = 0 (the mask is x < 0)
    if is_result:
        return grad * grad_output * (self_or_result < 0)
    return F.elu_backward(grad * grad_output, self_or_result, alpha, False) * \
        (self_or_result < 0)


ELU_BACKWARD = defop(
    "elu_backward(grad_output, self_or_result, *, alpha, is_result)", _elu_backward_kernel,
    "EluBackwardBackward0",
    grad_output=lambda grad, self_or_result, alpha, is_result:
        F.elu_backward(grad, self_or_result, alpha, is_result),
    self_or_result=_elu_double_backward,
    jvp=lambda grad_output_t, self_or_result_t, grad_output, self_or_result, alpha, is_result:
        F.elu_backward(grad_output_t, self_or_result, alpha, is_result)
        + _elu_double_backward(self_or_result_t, grad_output, self_or_result, alpha, is_result),
    batched_jvp=POINTWISE)
ELU = defop("elu(self, *, alpha)", _elu_kernel, "EluBackward0",
            self=lambda grad, self, alpha: F.elu_backward(grad, self, alpha, False),
            jvp=ELEMENTWISE)


def _elu_inplace_vjp(grad, result, alpha):
    _inplace_slope_check("elu", alpha)
    return F.elu_backward(grad, result, alpha, True)


ELU_ = defop("elu_(self, *, alpha)", _elu_kernel, "EluBackward1", self=_elu_inplace_vjp,
             jvp=ELEMENTWISE)

# gelu: x * Phi(x), or the tanh approximation 0.5 x (1 + tanh(k (x + c x^3)))
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_C = 0.044715


def _erfc_np(x):
    try:
        from .._ops.special_kernels import erfc as kernel
    except ImportError:  # pragma: no cover - fallback when the special kernels are absent
        kernel = None
    if kernel is not None:
        return np.asarray(kernel(x), dtype=x.dtype)
    return np.frompyfunc(math.erfc, 1, 1)(x).astype(x.dtype)


@half_in_float32
def _gelu_kernel(a, approximate):
    if approximate == "tanh":
        inner = _SQRT_2_PI * (a + _GELU_C * a * a * a)
        return 0.5 * a * (1 + np.tanh(inner))
    # Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation for negative x
    return 0.5 * a * _erfc_np(a * -math.sqrt(0.5))


def _gelu_dx(a, approximate):
    """d gelu / dx (ndarray)."""
    if approximate == "tanh":
        a2 = a * a
        t = np.tanh(_SQRT_2_PI * (a + _GELU_C * a2 * a))
        du = _SQRT_2_PI * (1 + 3 * _GELU_C * a2)
        return 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * du
    return 0.5 * _erfc_np(a * -math.sqrt(0.5)) + a * (_INV_SQRT_2PI * np.exp(-0.5 * a * a))


def _gelu_dxx(x, approximate):
    """d^2 gelu / dx^2, written with graphgrad ops (ndarray or Tensor)."""
    if approximate == "tanh":
        x2 = x * x
        t = F.tanh(_SQRT_2_PI * (x + _GELU_C * x2 * x))
        du = _SQRT_2_PI * (1 + 3 * _GELU_C * x2)
        ddu = (6 * _SQRT_2_PI * _GELU_C) * x
        return (1 - t * t) * (du + 0.5 * x * (ddu - 2 * t * du * du))
    return (_INV_SQRT_2PI * F.exp(-0.5 * x * x)) * (2 - x * x)


GELU = defop("gelu(self, *, approximate)", _gelu_kernel, "GeluBackward0",
             self=lambda grad, self, approximate: F.gelu_backward(grad, self, approximate),
             jvp=ELEMENTWISE)
GELU_BACKWARD = defop(
    "gelu_backward(grad_output, self, *, approximate)",
    half_in_float32(lambda g, a, approximate: g * _gelu_dx(a, approximate)),
    "GeluBackwardBackward0",
    grad_output=lambda grad, self, approximate: F.gelu_backward(grad, self, approximate),
    self=lambda grad, grad_output, self, approximate:
        grad * grad_output * _gelu_dxx(self, approximate),
    jvp=lambda grad_output_t, self_t, grad_output, self, approximate:
        F.gelu_backward(grad_output_t, self, approximate)
        + grad_output * _gelu_dxx(self, approximate) * self_t, batched_jvp=POINTWISE)


@half_in_float32
def _silu_kernel(a):
    return a * F.sigmoid(a)


@half_in_float32
def _silu_vjp(grad, self):
    s = F.sigmoid(self)
    return grad * (s * (1 + self * (1 - s)))


SILU = defop("silu(self)", _silu_kernel, "SiluBackward0", self=_silu_vjp, jvp=ELEMENTWISE)


@half_in_float32
def _softplus_kernel(a, beta, threshold):
    z = a * beta
    # log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)): never overflows
    sp = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
    return np.where(z > threshold, a, sp).astype(a.dtype, copy=False)


SOFTPLUS = defop("softplus(self, *, beta, threshold)", _softplus_kernel, "SoftplusBackward0",
                 self=half_in_float32(lambda grad, self, beta, threshold: F.where(
                     self * beta > threshold, grad, grad * F.sigmoid(self * beta))),
                 jvp=ELEMENTWISE)


def relu(input, inplace=False):
    """``relu(input, inplace=False)``: max(input, 0) (ReluBackward0)."""
    _tensor_arg("relu", input)
    if inplace:
        return relu_(input)
    return unary(_registry.OPS["relu"], input)


def relu_(input):
    return dispatch_inplace(_registry.OPS["relu"], input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``leaky_relu(input, negative_slope=0.01, inplace=False)`` (LeakyReluBackward0)."""
    _tensor_arg("leaky_relu", input)
    _real_floating("leaky_relu_cpu", input)
    if inplace:
        return leaky_relu_(input, negative_slope)
    return dispatch(LEAKY_RELU, input, float(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    _real_floating("leaky_relu_cpu", input)
    return dispatch_inplace(LEAKY_RELU_, input, float(negative_slope))


def elu(input, alpha=1.0, inplace=False):
    """``elu(input, alpha=1.0, inplace=False)`` (EluBackward0)."""
    _tensor_arg("elu", input)
    _real_floating("elu_cpu", input)
    if inplace:
        return elu_(input, alpha)
    return dispatch(ELU, input, float(alpha))


def elu_(input, alpha=1.0):
    _real_floating("elu_cpu", input)
    return dispatch_inplace(ELU_, input, float(alpha))


def gelu(input, approximate="none"):
    """``gelu(input, approximate='none')``: x Phi(x), or the 'tanh' approximation."""
    _tensor_arg("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _real_floating("GeluKernelImpl", input)
    return dispatch(GELU, input, approximate)


def silu(input, inplace=False):
    """``silu(input, inplace=False)``: x * sigmoid(x) (SiluBackward0)."""
    _tensor_arg("silu", input)
    _real_floating("silu_cpu", input)
    if inplace:
        return dispatch_inplace(SILU, input)
    return unary(SILU, input)


def softplus(input, beta=1.0, threshold=20.0):
    """``softplus(input, beta=1, threshold=20)``: log(1 + exp(beta x)) / beta, linear above
    ``threshold`` (SoftplusBackward0)."""
    _tensor_arg("softplus", input)
    _real_floating("softplus_cpu", input)
    return dispatch(SOFTPLUS, input, beta, threshold)


def sigmoid(input):
    """``sigmoid(input)`` (SigmoidBackward0)."""
    return _pub("sigmoid")(input)


def tanh(input):
    """``tanh(input)`` (TanhBackward0)."""
    return _pub("tanh")(input)


# ====================================================================== softmax family
def _softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:  # 0-d input
        e = np.exp(a - a)  # 1, or nan for inf/nan
    elif a.size == 0:
        e = a.copy()
    else:
        e = np.subtract(a, a.max(axis=dim, keepdims=True))
        np.exp(e, out=e)
        s = e.sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim != a.ndim - 1 and \
                math.prod(a.shape[dim % a.ndim + 1:]) < 16:
            # PyTorch's kernel along a dim other than the last stores the exponentials in
            # its half-precision output before dividing them by their float32 sum (for
            # inner sizes below one SIMD vector; wider ones vary with the CPU's vector width)
            e = e.astype(half).astype(np.float32)
        e /= s
        e = np.ascontiguousarray(e)  # (PyTorch's result is contiguous for any input layout)
    return e if half is None else e.astype(half)


def _log_softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:
        s = a - a
    elif a.size == 0:
        s = a.copy()
    else:
        s = np.subtract(a, a.max(axis=dim, keepdims=True))
        lse = np.exp(s).sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim == a.ndim - 1:
            # PyTorch's last-dim kernel keeps the sum and its log in half precision
            lse = np.log(lse.astype(half).astype(np.float32)).astype(half).astype(np.float32)
        else:
            lse = np.log(lse)
        s -= lse
        s = np.ascontiguousarray(s)  # (PyTorch's result is contiguous for any input layout)
    return s if half is None else s.astype(half)


@half_in_float32   # (sums of half-precision gradients in float32)
def _softmax_vjp(grad, y, dim):
    """y * (grad - sum(grad * y)): the softmax Jacobian is symmetric (also the JVP)."""
    gy = grad * y
    if dim is None:
        return gy - y * gy
    if isinstance(gy, Tensor):
        return gy - y * _sumk(gy, (dim,))
    gy -= y * gy.sum(axis=dim, keepdims=True)
    return gy


@half_in_float32   # (sums of half-precision gradients in float32)
def _log_softmax_vjp(grad, result, dim):
    if dim is None:
        return grad - F.exp(result) * grad
    if isinstance(grad, Tensor) or isinstance(result, Tensor):
        return grad - F.exp(result) * _sumk(grad, (dim,))
    p = np.exp(result)
    s = grad.sum(axis=dim, keepdims=True)
    if grad.shape == p.shape:
        p *= s
        return np.subtract(grad, p, out=p)
    p = p * s  # batched gradient
    return grad - p


SOFTMAX = defop("_softmax(self, *, dim)", _softmax_kernel, "SoftmaxBackward0",
                self=lambda grad, result, dim: _softmax_vjp(grad, result, dim),
                jvp=lambda self_t, result, dim: _softmax_vjp(self_t, result, dim), batched_jvp=True)
LOG_SOFTMAX = defop("_log_softmax(self, *, dim)", _log_softmax_kernel, "LogSoftmaxBackward0",
                    self=lambda grad, result, dim: _log_softmax_vjp(grad, result, dim),
                    jvp=lambda self_t, result, dim:
                        self_t - (_sumk(F.exp(result) * self_t, (dim,)) if dim is not None
                                  else F.exp(result) * self_t), batched_jvp=True)


def _softmax_dim(name, ndim, stacklevel=4):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_like(op, fname, input, dim, dtype):
    _tensor_arg(fname, input)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    if isinstance(dim, (tuple, list)) or dim is None:
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(dim).__name__}")
    nd = input._data.ndim
    d = _neg_dim(int(dim), nd)
    if input._data.dtype.kind not in "f" and input.dtype.name != "bfloat16":
        raise NotImplementedError(f'"{fname}_lastdim_kernel_impl" not implemented for '
                                  f"'{_type_name(input)}'")
    return dispatch(op, input, d)


@export("softmax")
def _softmax_public(input, dim, dtype=None):
    """``graphgrad.softmax(input, dim, dtype=None)`` / ``Tensor.softmax(dim)``."""
    return _softmax_like(SOFTMAX, "softmax", input, dim, dtype)


@export("log_softmax")
def _log_softmax_public(input, dim, dtype=None):
    """``graphgrad.log_softmax(input, dim, dtype=None)`` / ``Tensor.log_softmax(dim)``."""
    return _softmax_like(LOG_SOFTMAX, "log_softmax", input, dim, dtype)


_softmax_public.__name__ = _softmax_public.__qualname__ = "softmax"
_log_softmax_public.__name__ = _log_softmax_public.__qualname__ = "log_softmax"


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(input, dim=None, _stacklevel=3, dtype=None)``: exp(x) / sum(exp(x)) along
    ``dim``, computed as exp(x - max) (SoftmaxBackward0)."""
    if dim is None:
        _tensor_arg("softmax", input)
        dim = _softmax_dim("softmax", input.ndim, _stacklevel + 1)
    return _softmax_like(SOFTMAX, "softmax", input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log_softmax(input, dim=None, _stacklevel=3, dtype=None)``: x - logsumexp(x) along
    ``dim`` (LogSoftmaxBackward0)."""
    if dim is None:
        _tensor_arg("log_softmax", input)
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel + 1)
    return _softmax_like(LOG_SOFTMAX, "log_softmax", input, dim, dtype)


# ====================================================================== dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """``dropout(input, p=0.5, training=True, inplace=False)``.

    Zeroes each element with probability ``p`` (drawn from graphgrad's generator, seeded by
    ``graphgrad.manual_seed``) and scales the rest by ``1 / (1 - p)``; the result is
    ``input * mask`` (MulBackward0), so the gradient is ``mask``.  Returns ``input`` itself
    when not training or ``p == 0``.
    """
    _tensor_arg("dropout", input)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    d = input._data
    if d.dtype.kind != "f" and input.dtype.name != "bfloat16":
        raise RuntimeError(f'"bernoulli_scalar_cpu_" not implemented for \'{_type_name(input)}\'')
    real = d.dtype if d.dtype in (np.float32, np.float64) else np.float32
    if p == 1:
        mask = np.zeros(d.shape, d.dtype)
    else:
        from .._creation import rng
        u = rng().random(d.shape, dtype=real)
        mask = (u >= p).astype(d.dtype)
        mask *= np.asarray(1.0 / (1.0 - p), d.dtype)
    m = Tensor._wrap(mask)
    if inplace:
        return dispatch_inplace(_registry.OPS["mul"], input, m)
    return binary(_registry.OPS["mul"], input, m)


# ====================================================================== regression losses
def _size_warning(input, target):
    if input._data.shape != target._data.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", UserWarning, stacklevel=3)


def _broadcast_pair(fname, input, target):
    """PyTorch's mse/l1/smooth_l1 losses broadcast input and target against each other first
    (broadcast_tensors): an ExpandBackward0 node for the operand that grows, which then
    takes part in the dtype promotion like any sized tensor (a float64 0-d target makes a
    float32 input's loss float64)."""
    si, st = input._data.shape, target._data.shape
    if si == st:
        return input, target
    try:
        shape = np.broadcast_shapes(si, st)
    except ValueError:
        from .._ops.dispatch import _broadcast_error
        raise _broadcast_error(fname, (si, st)) from None
    expand = _pub("expand")
    return (input if si == shape else expand(input, shape),
            target if st == shape else expand(target, shape))


_reduce_in_opmath = half_in_float32(_reduce)


def _mse_kernel(a, b, reduction):
    # (half precision: the difference and its square are rounded, as in PyTorch's kernel; the
    # sum or mean accumulates in float32 and is rounded once)
    d = np.asarray(np.subtract(a, b))
    d *= d
    return _reduce_in_opmath(d, reduction)


def _mse_vjp(grad, self, target, reduction):
    d = self - target
    return (2 * _reduced_grad(grad, reduction, F.shape(d))) * d


def _mse_jvp(self_t, target_t, self, target, reduction):
    # PyTorch's: the two inputs' terms apart (inf - inf is NaN where a difference of
    # tangents would not be; a missing tangent's zero counts too, inf * 0 is NaN)
    d2 = 2 * (self - target)
    return _reduce(d2 * self_t - d2 * target_t, reduction)


MSE_LOSS = defop("mse_loss(self, target, *, reduction)", _mse_kernel, "MseLossBackward0",
                 promote=True,
                 self=_mse_vjp,
                 target=lambda grad, self, target, reduction: -_mse_vjp(grad, self, target,
                                                                        reduction),
                 jvp=_mse_jvp,
                 batched_jvp=lambda self_t, target_t, self, target, reduction:
                     _pair_loss_batched(2 * (self - target), self_t, target_t, self, target,
                                        reduction))


@half_in_float32(float16=False)  # (PyTorch: float16 step by step, measured)
def _smooth_l1_kernel(a, b, reduction, beta):
    d = np.abs(np.subtract(a, b))
    return _reduce(np.where(d < beta, (0.5 / beta) * d * d, d - 0.5 * beta), reduction)


def _smooth_l1_dx(self, target, beta):
    """d loss / d self elementwise: clamp((self - target) / beta, -1, 1)."""
    d = self - target
    # beyond |d| < beta the derivative is the constant sign(d) (NaN stays NaN): so the
    # second derivative is 0 at |d| == beta and at NaN, as PyTorch's double backward
    s = F.sign(d)
    return F.where(F.abs(d) < beta, d / beta, F.where(d != d, s * math.nan, s))


def _smooth_l1_vjp(grad, self, target, reduction, beta):
    dx = _smooth_l1_dx(self, target, beta)
    return _reduced_grad(grad, reduction, F.shape(dx)) * dx


SMOOTH_L1_LOSS = defop(
    "smooth_l1_loss(self, target, *, reduction, beta)", _smooth_l1_kernel,
    "SmoothL1LossBackward0", promote=True,
    self=_smooth_l1_vjp,
    target=lambda grad, self, target, reduction, beta:
        -_smooth_l1_vjp(grad, self, target, reduction, beta),
    jvp=lambda self_t, target_t, self, target, reduction, beta:
        _reduce(_smooth_l1_dx(self, target, beta) * (self_t - target_t), reduction),
    batched_jvp=lambda self_t, target_t, self, target, reduction, beta:
        _pair_loss_batched(_smooth_l1_dx(self, target, beta), self_t, target_t, self, target,
                           reduction))


def _weighted_reduce(loss, weight, reduction):
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / weight.sum()


def _check_loss_weight(input, weight):
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``mse_loss(input, target, ..., reduction='mean', weight=None)``: mean((input -
    target)^2) (MseLossBackward0); with ``weight``, sum(w (x - y)^2) / sum(w) for 'mean'."""
    _tensor_arg("mse_loss", input)
    _tensor_arg("mse_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair("mse_loss", input, target)
    if weight is not None:
        _check_loss_weight(input, weight)
        d = input - target
        return _weighted_reduce(d ** 2, weight, reduction)
    _real_floating_pair("mse_cpu", input, target)
    return dispatch(MSE_LOSS, input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``l1_loss(input, target, ..., reduction='mean', weight=None)``: mean(|input - target|)
    (composite: SubBackward0, AbsBackward0, then the reduction, as in PyTorch)."""
    _tensor_arg("l1_loss", input)
    _tensor_arg("l1_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair("l1_loss", input, target)
    a = _pub("abs")(input - target)
    if weight is not None:
        _check_loss_weight(input, weight)
        return _weighted_reduce(a, weight, reduction)
    return a if reduction == "none" else (a.sum() if reduction == "sum" else a.mean())


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``smooth_l1_loss(input, target, ..., reduction='mean', beta=1.0)``: 0.5 d^2 / beta for
    |d| < beta, else |d| - beta / 2 (SmoothL1LossBackward0); l1_loss when beta == 0."""
    _tensor_arg("smooth_l1_loss", input)
    _tensor_arg("smooth_l1_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _broadcast_pair("smooth_l1_loss", input, target)
    _real_floating_pair("smooth_l1_cpu", input, target)
    return dispatch(SMOOTH_L1_LOSS, input, target, reduction, float(beta))


# ====================================================================== nll / cross entropy
def _nll_parts(target, weight, n_cls, dtype, ignore_index, check=True):
    """Safe class indices and per-element weights (0 where ignored; None means all ones).

    Targets >= n_cls are caught by the gather that follows (an IndexError); the common case
    (no negative ignore_index present) costs a single reduction.
    """
    t = target
    lo = t.min() if t.size else 0
    if ignore_index < 0 and lo >= 0:
        valid = None
    else:
        valid = t != ignore_index
        if valid.all():
            valid = None
        else:
            t = np.where(valid, t, 0)
            lo = t.min()
    if check and lo < 0:
        raise IndexError(f"Target {lo} is out of bounds.")
    if weight is None:
        w = None if valid is None else valid.astype(dtype)
    else:
        w = weight.astype(dtype, copy=False)[t]
        if valid is not None:
            w = w * valid
    return t, w


def _total_weight(t, w):
    return t.size if w is None else w.sum()


@half_in_float32
def _nll_kernel(x, target, weight, reduction, ignore_index):
    # x: (*lead, [N,] C, *d) with target (N, *d) or () -- lead dims come from batched rules
    nlead = x.ndim - target.ndim - 1
    cax = nlead + (1 if target.ndim else 0)
    try:
        t, w = _nll_parts(target, weight, x.shape[cax], x.dtype, ignore_index)
        if nlead == 0 and x.ndim == 2:
            picked = x[np.arange(t.shape[0]), t]
        else:
            idx = np.expand_dims(t, cax - nlead).reshape(
                (1,) * nlead + t.shape[:cax - nlead] + (1,) + t.shape[cax - nlead:])
            picked = np.take_along_axis(x, idx, axis=cax).squeeze(cax)
    except IndexError:
        bad = np.where(target != ignore_index, target, 0)
        bad = bad.min() if bad.min() < 0 else bad.max()
        raise IndexError(f"Target {bad} is out of bounds.") from None
    if reduction == "none":
        return -picked if w is None else -(picked * w)
    loss = picked if w is None else picked * w
    s = -loss.sum(axis=tuple(range(nlead, loss.ndim))) if loss.ndim > nlead else -loss
    if reduction == "sum":
        return s
    return s / np.asarray(_total_weight(t, w), x.dtype)


def _nll_backward_kernel(grad, target, weight, self_sizes, reduction, ignore_index):
    cax = 1 if target.ndim else 0
    # (the targets were checked by the forward)
    t, w = _nll_parts(target, weight, self_sizes[cax], grad.dtype, ignore_index, check=False)
    if reduction == "none":
        lead = grad.shape[:grad.ndim - target.ndim]
        g = grad
    else:
        lead = grad.shape
        g = grad.reshape(lead + (1,) * target.ndim)
        if reduction == "mean":
            g = g / np.asarray(_total_weight(t, w), grad.dtype)
    vals = np.negative(g) if w is None else -(g * w)
    out = np.zeros(lead + tuple(self_sizes), grad.dtype)
    if not lead and len(self_sizes) == 2:
        out[np.arange(t.shape[0]), t] = vals
    else:
        vals = np.broadcast_to(vals, lead + t.shape)
        nl = len(lead)
        idx = np.broadcast_to(np.expand_dims(t, cax), lead + np.expand_dims(t, cax).shape)
        np.put_along_axis(out, idx, np.expand_dims(vals, nl + cax), axis=nl + cax)
    return out


def _nll_vjp(grad, target, weight, self_sym_sizes, reduction, ignore_index):
    return F.nll_loss_backward(grad, target, weight, tuple(self_sym_sizes), reduction,
                               ignore_index)


NLL_LOSS = defop("nll_loss(self, target, weight, *, reduction, ignore_index)", _nll_kernel,
                 "NllLossBackward0", self=_nll_vjp,
                 jvp=lambda self_t, target, weight, reduction, ignore_index:
                     F.nll_loss(self_t, target, weight, reduction, ignore_index), batched_jvp=True)
NLL_LOSS2D = defop("nll_loss2d(self, target, weight, *, reduction, ignore_index)", _nll_kernel,
                   "NllLoss2DBackward0", self=_nll_vjp,
                   jvp=lambda self_t, target, weight, reduction, ignore_index:
                       F.nll_loss(self_t, target, weight, reduction, ignore_index),
                   batched_jvp=True)
# linear in grad_output: its adjoint is nll_loss itself (same weights and normalisation)
NLL_LOSS_BACKWARD = defop(
    "nll_loss_backward(grad_output, target, weight, *, self_sizes, reduction, ignore_index)",
    _nll_backward_kernel, "NllLossBackwardBackward0",
    grad_output=lambda grad, target, weight, reduction, ignore_index:
        F.nll_loss(grad, target, weight, reduction, ignore_index),
    jvp=lambda grad_output_t, target, weight, self_sizes, reduction, ignore_index:
        F.nll_loss_backward(grad_output_t, target, weight, self_sizes, reduction, ignore_index),
    batched_jvp=True)


def _check_target_dtype(target):
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_type_name(target)}")


def _check_nll_args(fname, input, target, weight):
    _tensor_arg(fname, input)
    _tensor_arg(fname, target, "target", 2)
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    _check_target_dtype(target)
    ishape, tshape = input._data.shape, target._data.shape
    if nd == 1:
        if tshape != ():
            raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported "
                               f"(input of shape {list(ishape)} needs a 0-d target, got "
                               f"{list(tshape)})")
    else:
        if not tshape or ishape[0] != tshape[0]:
            raise ValueError(f"Expected input batch_size ({ishape[0]}) to match target "
                             f"batch_size ({tshape[0] if tshape else 0}).")
        if tshape != ishape[:1] + ishape[2:]:
            raise RuntimeError(f"Expected target size {list(ishape[:1] + ishape[2:])}, got "
                               f"{list(tshape)}")
    C = ishape[0 if nd == 1 else 1]
    if weight is not None:
        if weight._data.ndim != 1 or weight._data.shape[0] != C:
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or "
                               f"no classes but got weight tensor of shape: "
                               f"{list(weight._data.shape)}")
        _no_grad_arg("nll_loss_forward", "weight", weight)
    _real_floating("nll_loss_forward_out_frame", input)
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._data.dtype)} but found "
                           f"{scalar_type_name(weight._data.dtype)} [{fname}: convert the "
                           "weight with weight.to(input.dtype)]")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """``nll_loss(input, target, weight=None, ..., ignore_index=-100, reduction='mean')``:
    -input[n, target[n]] (weighted), for (C,), (N, C) and (N, C, d1, ...) inputs
    (NllLossBackward0, or NllLoss2DBackward0 for K-dim inputs)."""
    _check_nll_args("nll_loss", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    op = NLL_LOSS if input._data.ndim <= 2 else NLL_LOSS2D
    return dispatch(op, input, target, weight, reduction, int(ignore_index))


def _class_view(t, nd, cax):
    """A (C,) tensor viewed to broadcast along the class dim of an ``nd``-d input."""
    shape = [1] * nd
    shape[cax] = t._data.shape[0]
    return t.view(tuple(shape)) if nd != 1 else t


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``cross_entropy(input, target, weight=None, ..., ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``.

    Class-index targets: ``nll_loss(log_softmax(input, 1), target)`` (NllLossBackward0 after
    LogSoftmaxBackward0, as in PyTorch).  Class-probability targets (a float tensor shaped
    like ``input``): ``-sum(target * log_softmax(input))`` per element.  Inputs are (C,),
    (N, C) or (N, C, d1, ...); the class dim is 1 (0 for a 1-D input).
    """
    _tensor_arg("cross_entropy", input)
    _tensor_arg("cross_entropy", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    cax = 0 if nd == 1 else 1
    C = input._data.shape[cax]
    if target._data.shape == input._data.shape:  # PyTorch decides by shape, then the dtype
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {scalar_type_name(target.dtype)}")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, cax, C)
    _check_nll_args("cross_entropy", input, target, weight)
    lsm = dispatch(LOG_SOFTMAX, input, cax - nd)
    if label_smoothing == 0.0:
        op = NLL_LOSS if nd <= 2 else NLL_LOSS2D
        return dispatch(op, lsm, target, weight, reduction, int(ignore_index))
    # (1 - eps) * nll + eps / C * (-sum_c w_c log p_c), ignored targets contributing 0
    nll = dispatch(NLL_LOSS if nd <= 2 else NLL_LOSS2D, lsm, target, weight, reduction,
                   int(ignore_index))
    if weight is not None:
        smooth = -(lsm * _class_view(weight, nd, cax)).sum(cax)
    else:
        smooth = -lsm.sum(cax)
    valid = target._data != ignore_index
    if not valid.all():
        smooth = F.where(Tensor._wrap(valid), smooth, 0.0)
    if reduction == "none":
        ret = smooth
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        tv = target._data[valid]
        denom = tv.size if weight is None else weight._data[tv].sum()
        ret = smooth.sum() / float(denom)
    return nll * (1.0 - label_smoothing) + ret * (label_smoothing / C)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, cax, C):
    if weight is not None:
        if weight._data.ndim != 1 or weight._data.shape[0] != C:
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or "
                               f"no classes but got weight tensor of shape: "
                               f"{list(weight._data.shape)}")
    _real_floating("log_softmax_lastdim_kernel_impl", input)
    nd = input._data.ndim
    lsm = dispatch(LOG_SOFTMAX, input, cax - nd)
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / C
    prod = lsm * target
    if weight is not None:
        prod = prod * _class_view(weight, nd, cax)
    if reduction == "none":
        return -prod.sum(cax)
    if reduction == "sum":
        return -prod.sum()
    n = input._data.size // C if C else 0
    out = -prod.sum() / n
    if out._grad_fn is not None:  # PyTorch divides by the count as a Scalar: div.Scalar
        _renamed(out._grad_fn, "DivBackward1")
    return out


# ====================================================================== binary cross entropy
def _clamp_low(x, lo):
    if isinstance(x, Tensor):
        return F.where(x > lo, x, lo)
    return np.maximum(x, lo)


def _log_pair(x):
    """(max(log x, -100), max(log(1 - x), -100)), PyTorch's clamped logs."""
    if isinstance(x, Tensor):
        return _clamp_low(F.log(x), -100.0), _clamp_low(F.log(1 - x), -100.0)
    return np.maximum(np.log(x), -100), np.maximum(np.log1p(-x), -100)


def _half_steps(dt):
    """Rounding to the half type ``dt`` after each step of a computation kept in float32:
    PyTorch's kernels that do their arithmetic on half-precision scalars (the binary cross
    entropies) round every intermediate result, not only the last."""
    f32 = np.float32
    return lambda v: np.asarray(v).astype(dt).astype(f32)


def _bce_kernel(x, t, w, reduction):
    if x.size and not ((x >= 0) & (x <= 1)).all():  # (NaN is not in [0, 1]: PyTorch raises)
        raise RuntimeError("all elements of input should be between 0 and 1")
    if x.dtype is FLOAT16 or x.dtype is BFLOAT16:
        dt, r = x.dtype, _half_steps(x.dtype)
        x, t = x.astype(np.float32), t.astype(np.float32)
        lx = np.maximum(r(np.log(x)), -100)
        l1x = np.maximum(r(np.log1p(-x)), -100)
        loss = r(r(r(t - 1) * l1x) - r(t * lx))
        if w is not None:
            loss = r(loss * w.astype(np.float32))
        return _reduce_in_opmath(loss.astype(dt), reduction)
    lx, l1x = _log_pair(x)
    loss = (t - 1) * l1x - t * lx
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)


def _bce_dself(self, target, weight):
    d = _clamp_low((1 - self) * self, 1e-12)
    r = (self - target) / d
    return r if weight is None else r * weight


def _bce_dtarget(self, weight):
    lx, l1x = _log_pair(self)
    r = l1x - lx
    return r if weight is None else r * weight


BINARY_CROSS_ENTROPY = defop(
    "binary_cross_entropy(self, target, weight, *, reduction)", _bce_kernel,
    "BinaryCrossEntropyBackward0",
    self=lambda grad, self, target, weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bce_dself(self, target, weight),
    target=lambda grad, self, weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bce_dtarget(self, weight),
    jvp=lambda self_t, target_t, self, target, weight, reduction:
        _reduce(self_t * _bce_dself(self, target, weight)
                + target_t * _bce_dtarget(self, weight), reduction),
    batched_jvp=lambda self_t, target_t, self, target, weight, reduction:
        _reduce_last(self_t * _bce_dself(self, target, weight)
                     + target_t * _bce_dtarget(self, weight), reduction, F.ndim(self)))


def _softplus_neg(x):
    """log(1 + exp(-x)), stable."""
    if isinstance(x, Tensor):
        return F.softplus(-x, 1.0, 20.0)
    return np.logaddexp(0, -x)


def _bcel_kernel(x, t, w, pw, reduction):
    if x.dtype is FLOAT16 or x.dtype is BFLOAT16:
        # PyTorch composes it from ops that each round to the half type:
        # (1 - t) * x - ((pw - 1) * t + 1) * logsigmoid(x), times w
        dt, r = x.dtype, _half_steps(x.dtype)
        f = np.float32
        x, t = x.astype(f), t.astype(f)
        ls = r(-_softplus_neg(x))  # (logsigmoid: in float32, rounded once)
        if pw is not None:
            ls = r(r(r(r(pw.astype(f) - 1) * t) + 1) * ls)
        loss = r(r(r(1 - t) * x) - ls)
        if w is not None:
            loss = r(loss * w.astype(f))
        return _reduce_in_opmath(loss.astype(dt), reduction)
    sp = _softplus_neg(x)
    if pw is not None:
        sp = sp * (1 + (pw - 1) * t)
    loss = (1 - t) * x + sp
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)


def _bcel_dself(self, target, weight, pos_weight):
    s = F.sigmoid(self)
    r = s - target if pos_weight is None else (1 + (pos_weight - 1) * target) * s - \
        pos_weight * target
    return r if weight is None else r * weight


def _bcel_dtarget(self, weight, pos_weight):
    r = -self if pos_weight is None else (pos_weight - 1) * _softplus_neg(self) - self
    return r if weight is None else r * weight


BCE_WITH_LOGITS = defop(
    "binary_cross_entropy_with_logits(self, target, weight, pos_weight, *, reduction)",
    _bcel_kernel, "BinaryCrossEntropyWithLogitsBackward0",
    self=lambda grad, self, target, weight, pos_weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bcel_dself(self, target, weight,
                                                                   pos_weight),
    target=lambda grad, self, weight, pos_weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bcel_dtarget(self, weight, pos_weight),
    jvp=lambda self_t, target_t, self, target, weight, pos_weight, reduction:
        _reduce(self_t * _bcel_dself(self, target, weight, pos_weight)
                + target_t * _bcel_dtarget(self, weight, pos_weight), reduction),
    batched_jvp=lambda self_t, target_t, self, target, weight, pos_weight, reduction:
        _reduce_last(self_t * _bcel_dself(self, target, weight, pos_weight)
                     + target_t * _bcel_dtarget(self, weight, pos_weight), reduction,
                     F.ndim(self)))


def _same_float(t, like):
    if t is None or t._data.dtype == like._data.dtype:
        return t
    return t.to(like.dtype)


def _expandable(fname, w, shape):
    if w is None:
        return
    try:
        ok = np.broadcast_shapes(w._data.shape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"{fname}: the size of weight {list(w._data.shape)} must be "
                           f"broadcastable to the target size {list(shape)}")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``binary_cross_entropy(input, target, weight=None, ..., reduction='mean')``:
    -w (t log x + (1 - t) log(1 - x)), logs clamped at -100 (BinaryCrossEntropyBackward0)."""
    _tensor_arg("binary_cross_entropy", input)
    _tensor_arg("binary_cross_entropy", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    _real_floating("binary_cross_entropy", input)
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name(target._data.dtype)} but expected "
                           f"{scalar_type_name(input._data.dtype)} [binary_cross_entropy: "
                           "convert the target with target.to(input.dtype)]")
    _no_grad_arg("binary_cross_entropy", "weight", weight)
    _expandable("binary_cross_entropy", weight, input._data.shape)
    return dispatch(BINARY_CROSS_ENTROPY, input, target, _same_float(weight, input), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """``binary_cross_entropy_with_logits(input, target, weight=None, ..., reduction='mean',
    pos_weight=None)``: (1 - t) x + (1 + (pw - 1) t) softplus(-x), weighted
    (BinaryCrossEntropyWithLogitsBackward0)."""
    _tensor_arg("binary_cross_entropy_with_logits", input)
    _tensor_arg("binary_cross_entropy_with_logits", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _real_floating("binary_cross_entropy_with_logits", input)
    _no_grad_arg("binary_cross_entropy_with_logits", "weight", weight)
    _no_grad_arg("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    _expandable("binary_cross_entropy_with_logits", weight, input._data.shape)
    _expandable("binary_cross_entropy_with_logits", pos_weight, input._data.shape)
    rt = _dtype.result_type(input, target)
    if rt.np != input._data.dtype:  # (PyTorch promotes to a float64 target, not to weights)
        input = input.to(rt)
    return dispatch(BCE_WITH_LOGITS, input, _same_float(target, input),
                    _same_float(weight, input), _same_float(pos_weight, input), reduction)


# ====================================================================== layer norm
def _ln_axes(normalized_shape):
    return tuple(range(-len(normalized_shape), 0))


@half_in_float32
def _layer_norm_kernel(x, weight, bias, normalized_shape, eps):
    axes = _ln_axes(normalized_shape)
    mean = x.mean(axis=axes, keepdims=True)
    out = np.subtract(x, mean)
    var = np.mean(out * out, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    out *= rstd
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return out, mean, rstd


def _ln_stats(input, result1, result2, normalized_shape, eps):
    """(xhat, rstd): from the saved mean/rstd, or recomputed with graphgrad ops when the rule
    runs on Tensors (create_graph / forward AD), so they are differentiated too."""
    if isinstance(input, Tensor):
        axes = _ln_axes(normalized_shape)
        n = F.numel(normalized_shape)
        xc = input - _sumk(input, axes) / n
        rstd = (_sumk(xc * xc, axes) / n + eps) ** -0.5
        return xc * rstd, rstd
    xhat = np.subtract(input, result1)
    xhat *= result2
    return xhat, result2


@half_in_float32   # (sums of half-precision gradients in float32)
def _ln_input_vjp(grad, input, weight, result1, result2, normalized_shape, eps):
    axes = _ln_axes(normalized_shape)
    n = F.numel(normalized_shape)
    xhat, rstd = _ln_stats(input, result1, result2, normalized_shape, eps)
    g = grad if weight is None else grad * weight
    if isinstance(g, Tensor):
        return rstd * (g - _sumk(g, axes) / n - xhat * (_sumk(g * xhat, axes) / n))
    out = g - g.mean(axis=axes, keepdims=True)
    out -= xhat * (g * xhat).mean(axis=axes, keepdims=True)
    out *= rstd
    return out


def _ln_jvp(input_t, weight_t, bias_t, input, weight, bias, result1, result2, normalized_shape,
            eps):
    axes = _ln_axes(normalized_shape)
    n = F.numel(normalized_shape)
    xhat, rstd = _ln_stats(input, result1, result2, normalized_shape, eps)
    xt = input_t - _sumk(input_t, axes) / n
    out_t = rstd * (xt - xhat * (_sumk(xhat * xt, axes) / n))
    if weight is not None:
        out_t = out_t * weight + xhat * weight_t
    if bias is not None:
        out_t = out_t + bias_t
    return out_t


LAYER_NORM = defop(
    "native_layer_norm(input, weight, bias, *, normalized_shape, eps)", _layer_norm_kernel,
    "NativeLayerNormBackward0", n_outputs=3, nondiff_outputs=(1, 2),
    input=_ln_input_vjp,
    weight=lambda grad, input, result1, result2, normalized_shape, eps:
        grad * _ln_stats(input, result1, result2, normalized_shape, eps)[0],
    bias=lambda grad: grad,
    jvp=_ln_jvp,
    # weight and bias have the trailing (normalized) shape: their batched tangents are padded
    # to the input's rank
    batched_jvp=lambda input_t, weight_t, bias_t, input, weight, bias, result1, result2,
    normalized_shape, eps: _ln_jvp(
        input_t, None if weight is None else _bpad(weight_t, weight, F.ndim(input)),
        None if bias is None else _bpad(bias_t, bias, F.ndim(input)), input, weight, bias,
        result1, result2, normalized_shape, eps))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)``: normalise
    over the trailing ``normalized_shape`` dims, then scale and shift
    (NativeLayerNormBackward0)."""
    _tensor_arg("layer_norm", input)
    ns = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else \
        tuple(int(s) for s in normalized_shape)
    shape = input._data.shape
    if not ns or len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in ns)}], but got input of size"
                           f"{list(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t._data.shape)} and normalized_shape "
                               f"= {list(ns)}")
    _real_floating("LayerNormKernelImpl", input)
    dt = input._data.dtype
    if weight is not None and weight._data.dtype != dt:
        raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                           f"{scalar_type_name(dt)} [layer_norm: weight is "
                           f"{scalar_type_name(weight._data.dtype)}]")
    if bias is not None and bias._data.dtype != dt:
        raise RuntimeError(f"expected scalar type {scalar_type_name(dt)} but found "
                           f"{scalar_type_name(bias._data.dtype)} [layer_norm: bias]")
    out = dispatch(LAYER_NORM, input, weight, bias, ns, float(eps))
    return out[0]


# ====================================================================== normalize, one_hot
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``normalize(input, p=2.0, dim=1, eps=1e-12, out=None)``: input / max(||input||_p, eps)
    along ``dim`` (as PyTorch: norm, clamp_min, expand_as, div)."""
    _tensor_arg("normalize", input)
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _pub("div")(input, denom, out=out)


def one_hot(tensor, num_classes=-1):
    """``one_hot(tensor, num_classes=-1)``: int64 tensor of shape ``(*, num_classes)``
    (not differentiable)."""
    _tensor_arg("one_hot", tensor, "self")
    d = tensor._data
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if d.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(d.max()) + 1
    if d.size:
        if d.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if d.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = (d[..., None] == np.arange(num_classes, dtype=np.int64)).astype(np.int64)
    return Tensor._wrap(out)


# ====================================================================== linear
@half_in_float32
def _addmm_kernel(bias, mat1, mat2, beta, alpha):
    no_bool("addmm_impl_cpu_", mat1)
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"addmm: mat1 and mat2 must be matrices, got {mat1.ndim}-D and "
                           f"{mat2.ndim}-D")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    out = mat1 @ mat2
    if alpha != 1:
        out *= alpha
    if beta != 0:
        b = bias if beta == 1 else bias * beta
        if np.broadcast_shapes(b.shape, out.shape) != out.shape:
            raise RuntimeError(f"The expanded size of the tensor bias {list(b.shape)} must match "
                               f"the result shape {list(out.shape)}")
        out += b
    return out


def _scaled(x, alpha):
    return x if alpha == 1 else x * F.conj(alpha)


def _declare_addmm():
    # another family may have declared torch.addmm already: reuse it if it has PyTorch's
    # signature, else keep this one under a private name
    existing = _registry.OPS.get("addmm")
    if existing is not None and existing.params == ("self", "mat1", "mat2", "beta", "alpha"):
        return existing
    name = "addmm" if existing is None else "_nn_addmm"
    return defop(
        f"{name}(self, mat1, mat2, *, beta, alpha)", _addmm_kernel, "AddmmBackward0",
        promote=True,
        self=lambda grad, beta: _scaled(grad, beta),
        mat1=lambda grad, mat2, alpha: _scaled(F.matmul(grad, F.mH(mat2)), alpha),
        mat2=lambda grad, mat1, alpha: _scaled(F.matmul(F.mH(mat1), grad), alpha),
        jvp=lambda self_t, mat1_t, mat2_t, mat1, mat2, beta, alpha:
            _scaled(F.matmul(mat1_t, mat2) + F.matmul(mat1, mat2_t), alpha) + self_t * beta,
        batched_jvp=lambda self_t, mat1_t, mat2_t, self, mat1, mat2, beta, alpha:
            _scaled(F.matmul(mat1_t, mat2) + F.matmul(mat1, mat2_t), alpha)
            + _bpad(self_t, self, 2) * beta)


ADDMM = _declare_addmm()


def _check_addmm_dtypes(input, mat1, mat2):
    """addmm does not promote: PyTorch's errors for operands of different dtypes."""
    if not all(isinstance(t, Tensor) for t in (input, mat1, mat2)):
        return
    _check_same_dtype("mm", mat1, mat2)
    a, b = input._data.dtype, mat2._data.dtype
    if a != b:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{scalar_type_name(a)} and {scalar_type_name(b)} [addmm: cast the "
                           "bias or the matrices with .to()]")


if "addmm" not in _registry.PUBLIC:
    @export("addmm")
    def _addmm_public(input, mat1, mat2, *, beta=1, alpha=1, out=None):
        """``graphgrad.addmm(input, mat1, mat2, *, beta=1, alpha=1)``: beta input + alpha
        mat1 @ mat2 (AddmmBackward0)."""
        _check_addmm_dtypes(input, mat1, mat2)
        r = dispatch(ADDMM, input, mat1, mat2, beta, alpha)
        return r if out is None else _pub("_write_out")(r, out)

    _addmm_public.__name__ = _addmm_public.__qualname__ = "addmm"


def linear(input, weight, bias=None):
    """``linear(input, weight, bias=None)``: input @ weight.T + bias, with weight (out, in).
    A 2-D input with a bias is one ``addmm`` (AddmmBackward0 <- TBackward0), as in PyTorch;
    other ranks fold their leading dims around it."""
    _tensor_arg("linear", input)
    _tensor_arg("linear", weight, "weight", 2)
    wt = _pub("t")(weight)
    nd = input._data.ndim
    if nd == 2 and weight._data.ndim == 1 and bias is not None:
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
    if bias is not None and weight._data.ndim == 2 and nd >= 1:
        _check_addmm_dtypes(bias, input, wt)
        if nd == 2:
            return dispatch(ADDMM, bias, input, wt, 1, 1)
        n_in = input._data.shape[-1]
        if n_in != weight._data.shape[1]:
            rows = input._data.size // n_in if n_in else 0
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{n_in} and "
                               f"{weight._data.shape[1]}x{weight._data.shape[0]})")
        out = dispatch(ADDMM, bias, input.reshape(-1, n_in), wt, 1, 1)
        return out.view(input._data.shape[:-1] + (weight._data.shape[0],))
    out = _pub("matmul")(input, wt)
    return out if bias is None else out + bias


# ====================================================================== convolution
def _ntuple(v, k, name):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            v = tuple(v) * k
        if len(v) != k:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(v)}")
        return tuple(int(x) for x in v)
    return (int(v),) * k


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _pad_spatial(x, pads, value=0):
    if not any(lo or hi for lo, hi in pads):
        return x
    k = len(pads)
    return np.pad(x, [(0, 0)] * (x.ndim - k) + [tuple(p) for p in pads], constant_values=value)


def _windows(xp, out_sp, ksz, stride, dilation):
    """Strided view ``(..., *out_sp, *ksz)`` of the sliding windows over the last dims."""
    k = len(ksz)
    st = xp.strides[xp.ndim - k:]
    shape = xp.shape[:xp.ndim - k] + tuple(out_sp) + tuple(ksz)
    strides = xp.strides[:xp.ndim - k] + tuple(s * t for s, t in zip(stride, st)) + \
        tuple(d * t for d, t in zip(dilation, st))
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def _conv_out_sizes(in_sp, w_sp, stride, padding, dilation):
    return tuple((n + lo + hi - d * (kk - 1) - 1) // s + 1
                 for n, kk, s, (lo, hi), d in zip(in_sp, w_sp, stride, padding, dilation))


def _im2col(x, w_sp, stride, padding, dilation, groups, out_sp):
    """(*lead, N, C, *S) -> columns (*lead, G, N * prod(out), C/G * prod(kernel))."""
    k = len(w_sp)
    nl = x.ndim - k - 2
    lead = x.shape[:nl]
    n, c = x.shape[nl], x.shape[nl + 1]
    cg = c // groups
    win = _windows(_pad_spatial(x, padding), out_sp, w_sp, stride, dilation)
    win = win.reshape(lead + (n, groups, cg) + tuple(out_sp) + tuple(w_sp))
    perm = list(range(nl)) + [nl + 1, nl] + list(range(nl + 3, nl + 3 + k)) + [nl + 2] + \
        list(range(nl + 3 + k, nl + 3 + 2 * k))
    # (a copy: the im2col matrix; contiguous so the matmul runs in BLAS even when x was a
    # broadcast view)
    return np.ascontiguousarray(
        win.transpose(perm).reshape(lead + (groups, n * _prod(out_sp), cg * _prod(w_sp))))


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_kernel(x, w, b, stride, padding, dilation, groups):
    """Convolution (cross-correlation) via im2col + one (grouped) matmul.  Either operand may
    carry extra leading dims (batched rules); they broadcast."""
    k = len(stride)
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    out_sp = _conv_out_sizes(x.shape[x.ndim - k:], w_sp, stride, padding, dilation)
    n = x.shape[x.ndim - k - 2]
    og = o // groups
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (groups, og, cg * _prod(w_sp)))
    res = np.matmul(cols, np.swapaxes(wm, -1, -2))          # (*L, G, M, Og)
    lead = res.shape[:-3]
    nl = len(lead)
    res = res.reshape(lead + (groups, n) + out_sp + (og,))
    perm = list(range(nl)) + [nl + 1, nl, nl + 2 + k] + list(range(nl + 2, nl + 2 + k))
    # row-major, as PyTorch's (so that e.g. out.view(n, -1) works)
    out = np.asarray(res.transpose(perm), order="C").reshape(lead + (n, o) + out_sp)
    if b is not None:
        out += b.reshape((o,) + (1,) * k)
    return out


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_weight_kernel(g, x, weight_sizes, stride, padding, dilation, groups):
    """The weight gradient of a convolution: columns of ``x`` contracted with ``g``."""
    k = len(stride)
    weight_sizes = tuple(weight_sizes[len(weight_sizes) - k - 2:])
    w_sp = weight_sizes[2:]
    og = weight_sizes[0] // groups
    out_sp = g.shape[g.ndim - k:]
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, G, M, K)
    nl = g.ndim - k - 2
    lead, n = g.shape[:nl], g.shape[nl]
    gm = g.reshape(lead + (n, groups, og) + out_sp)
    perm = list(range(nl)) + [nl + 1, nl] + list(range(nl + 3, nl + 3 + k)) + [nl + 2]
    gm = np.ascontiguousarray(gm.transpose(perm).reshape(lead + (groups, n * _prod(out_sp), og)))
    # cols^T @ g, then a (small) transpose: OpenBLAS is much slower on g^T @ cols here
    res = np.swapaxes(np.matmul(np.swapaxes(cols, -1, -2), gm), -1, -2)   # (*L, G, Og, K)
    return np.asarray(res, order="C").reshape(res.shape[:-3] + weight_sizes)


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_input_kernel(g, w, input_sizes, stride, padding, dilation, groups):
    """The input gradient of a convolution (a transposed convolution): one matmul to columns,
    then the columns are added back onto the (padded) input positions they were read from."""
    k = len(stride)
    input_sizes = tuple(input_sizes[len(input_sizes) - k - 2:])
    n, c = input_sizes[0], input_sizes[1]
    in_sp = input_sizes[2:]
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    og = o // groups
    out_sp = g.shape[g.ndim - k:]
    nl = g.ndim - k - 2
    gm = g.reshape(g.shape[:nl] + (n, groups, og) + out_sp)
    perm = list(range(nl)) + [nl + 1, nl + 2, nl] + list(range(nl + 3, nl + 3 + k))
    gm = np.ascontiguousarray(
        gm.transpose(perm).reshape(g.shape[:nl] + (groups, og, n * _prod(out_sp))))
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (groups, og, cg * _prod(w_sp)))
    # columns laid out (G, Cg, *ksz, N, *out), so each kernel offset's slab is contiguous
    cols = np.matmul(np.swapaxes(wm, -1, -2), gm)                        # (*L, G, K, M)
    lead = cols.shape[:-3]
    cols = cols.reshape(lead + (groups, cg) + w_sp + (n,) + out_sp)
    sp = tuple(s + lo + hi for s, (lo, hi) in zip(in_sp, padding))
    xp = np.zeros(lead + (groups, cg, n) + sp, dtype=cols.dtype)
    tail = (slice(None),) * (k + 1)
    for off in itertools.product(*[range(kk) for kk in w_sp]):
        sl = tuple(slice(i * d, i * d + s * (m - 1) + 1, s)
                   for i, d, s, m in zip(off, dilation, stride, out_sp))
        xp[(Ellipsis,) + sl] += cols[(Ellipsis,) + off + tail]
    nl = len(lead)
    xp = xp.transpose(list(range(nl)) + [nl + 2, nl, nl + 1] + list(range(nl + 3, nl + 3 + k)))
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(padding, in_sp))
    return np.asarray(xp[(Ellipsis,) + crop], order="C").reshape(lead + (n, c) + in_sp)


def _conv_bias_grad(grad, k):
    s = _sumk(grad, (-(k + 2),) + tuple(range(-k, 0)))
    return F.reshape_to(s, (F.shape(s)[-(k + 1)],), k + 2)


def _conv_jvp(input_t, weight_t, bias_t, input, weight, bias, stride, padding, dilation, groups):
    r = F.convolution(input_t, weight, None, stride, padding, dilation, groups) + \
        F.convolution(input, weight_t, None, stride, padding, dilation, groups)
    if bias is not None:   # (batch-safe: a batched bias tangent keeps its leading dims)
        k = len(stride)
        b = F.reshape_to(bias_t, (F.shape(bias)[0],) + (1,) * k, 1)
        r = r + F.pad_batched(b, k + 1, F.ndim(input))
    return r


# for complex operands the VJPs conjugate the other factor (the conv is bilinear, no conj)
CONVOLUTION = defop(
    "convolution(input, weight, bias, *, stride, padding, dilation, groups)", _conv_kernel,
    "ConvolutionBackward0",
    input=lambda grad, weight, input_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_input(grad, F.conj(weight), tuple(input_sym_sizes), stride,
                                     padding, dilation, groups),
    weight=lambda grad, input, weight_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_weight(grad, F.conj(input), tuple(weight_sym_sizes), stride,
                                      padding, dilation, groups),
    bias=lambda grad, stride: _conv_bias_grad(grad, len(stride)),
    jvp=_conv_jvp, batched_jvp=True)
# the two adjoints of the bilinear convolution; each one's rules are the other two maps
CONVOLUTION_BACKWARD_INPUT = defop(
    "convolution_backward_input(grad_output, weight, *, input_sizes, stride, padding, dilation, "
    "groups)", _conv_backward_input_kernel, "ConvolutionBackwardBackward0",
    grad_output=lambda grad, weight, stride, padding, dilation, groups:
        F.convolution(grad, F.conj(weight), None, stride, padding, dilation, groups),
    weight=lambda grad, grad_output, weight_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_weight(F.conj(grad_output), grad, tuple(weight_sym_sizes), stride,
                                      padding, dilation, groups),
    jvp=lambda grad_output_t, weight_t, grad_output, weight, input_sizes, stride, padding,
    dilation, groups:
        F.convolution_backward_input(grad_output_t, weight, input_sizes, stride, padding,
                                     dilation, groups)
        + F.convolution_backward_input(grad_output, weight_t, input_sizes, stride, padding,
                                       dilation, groups), batched_jvp=True)
CONVOLUTION_BACKWARD_WEIGHT = defop(
    "convolution_backward_weight(grad_output, input, *, weight_sizes, stride, padding, "
    "dilation, groups)", _conv_backward_weight_kernel, "ConvolutionBackwardBackward0",
    grad_output=lambda grad, input, stride, padding, dilation, groups:
        F.convolution(F.conj(input), grad, None, stride, padding, dilation, groups),
    input=lambda grad, grad_output, input_sym_sizes, stride, padding, dilation, groups:
        F.convolution_backward_input(F.conj(grad_output), grad, tuple(input_sym_sizes), stride,
                                     padding, dilation, groups),
    jvp=lambda grad_output_t, input_t, grad_output, input, weight_sizes, stride, padding,
    dilation, groups:
        F.convolution_backward_weight(grad_output_t, input, weight_sizes, stride, padding,
                                      dilation, groups)
        + F.convolution_backward_weight(grad_output, input_t, weight_sizes, stride, padding,
                                        dilation, groups), batched_jvp=True)


def _conv_nd(fname, k, input, weight, bias, stride, padding, dilation, groups):
    _tensor_arg(fname, input)
    _tensor_arg(fname, weight, "weight", 2)
    stride = _ntuple(stride, k, "stride")
    dilation = _ntuple(dilation, k, "dilation")
    wshape = weight._data.shape
    if weight._data.ndim != k + 2:
        raise RuntimeError(f"Expected {k + 2}-dimensional weight for {k + 2}-dimensional input "
                           f"{list(input._data.shape)}, but got {weight._data.ndim}-dimensional "
                           f"weight of size {list(wshape)} instead")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    w_sp = wshape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * k
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            # PyTorch puts the odd extra element of the total padding on the right
            pads = tuple((t // 2, t - t // 2) for t in (d * (kk - 1)
                                                        for d, kk in zip(dilation, w_sp)))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = _ntuple(padding, k, "padding")
        if any(v < 0 for v in p):
            raise RuntimeError("negative padding is not supported")
        pads = tuple((v, v) for v in p)
    nd = input._data.ndim
    if nd not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to "
                           f"{fname}, but got input of size: {list(input._data.shape)}")
    x = input if nd == k + 2 else _pub("unsqueeze")(input, 0)
    xshape = x._data.shape
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {list(wshape)} instead")
    if xshape[1] != wshape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(wshape)}, expected "
                           f"input{list(xshape)} to have {wshape[1] * groups} channels, but got "
                           f"{xshape[1]} channels instead")
    if bias is not None and bias._data.shape != (wshape[0],):
        raise RuntimeError(f"Given weight of size {list(wshape)}, expected bias to be "
                           f"1-dimensional with {wshape[0]} elements, but got bias of size "
                           f"{list(bias._data.shape)} instead")
    padded = [s + lo + hi for s, (lo, hi) in zip(xshape[2:], pads)]
    eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, w_sp)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           "actual input size")
    for t in (input, weight, bias):
        if t is not None and t._data.dtype.kind not in "fciu" and t.dtype is not _dtype.bfloat16:
            raise NotImplementedError(f'"slow_conv{k}d_cpu" not implemented for '
                                      f"'{_type_name(t)}'")
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"{fname}: input type ({_type_name(input)}) and "
                               f"{'weight' if t is weight else 'bias'} type ({_type_name(t)}) "
                               "should be the same")
    out = dispatch(CONVOLUTION, x, weight, bias, stride, pads, dilation, int(groups))
    return out if nd == k + 2 else _pub("squeeze")(out, 0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, L) or (C, L) inputs; ``padding`` may be 'valid' or 'same' (ConvolutionBackward0)."""
    return _conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` on
    (N, C, H, W) or (C, H, W) inputs; ``padding`` may be 'valid' or 'same'
    (ConvolutionBackward0)."""
    return _conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


# ====================================================================== pooling
def _pool_out(n, k, s, p, d, ceil_mode):
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    o = num // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def _pool_geometry(sizes, kernel_size, stride, padding, dilation, ceil_mode):
    """Output sizes and the (lo, hi) padding that makes every window fit."""
    outs, pads = [], []
    for n, k, s, p, d in zip(sizes, kernel_size, stride, padding, dilation):
        o = _pool_out(n, k, s, p, d, ceil_mode)
        need = (o - 1) * s + d * (k - 1) + 1
        outs.append(o)
        pads.append((p, max(need - n - p, 0)))
    return tuple(outs), tuple(pads)


def _max_pool_kernel(x, kernel_size, stride, padding, dilation, ceil_mode):
    H, W = x.shape[-2:]
    out_sp, pads = _pool_geometry((H, W), kernel_size, stride, padding, dilation, ceil_mode)
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    win = _windows(_pad_spatial(x, pads, fill), out_sp, kernel_size, stride, dilation)
    kh, kw = kernel_size
    flat = win.reshape(win.shape[:-2] + (kh * kw,))
    am = flat.argmax(axis=-1)   # the first maximum; a NaN wins (propagates, as in PyTorch)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0]
    ki, kj = np.divmod(am, kw)
    hh = (np.arange(out_sp[0]) * stride[0] - padding[0])[:, None] + ki * dilation[0]
    ww = (np.arange(out_sp[1]) * stride[1] - padding[1])[None, :] + kj * dilation[1]
    return vals, (hh * W + ww).astype(np.int64)


def _pool_scatter_kernel(grad, indices, self_sizes):
    """Add each gradient element into its argmax position (flat H*W indices per plane)."""
    H, W = self_sizes[-2:]
    planes = grad.shape[:-2]
    n = _prod(planes)
    idx = np.broadcast_to(indices, grad.shape).reshape(n, -1)
    flat = idx + (np.arange(n, dtype=np.int64) * (H * W))[:, None]
    out = np.bincount(flat.ravel(), weights=grad.reshape(n, -1).ravel(), minlength=n * H * W)
    return out.reshape(planes + (H, W)).astype(grad.dtype, copy=False)


def _pool_gather_kernel(x, indices):
    """x[..., indices] per plane: the adjoint of the scatter."""
    xf = x.reshape(x.shape[:-2] + (x.shape[-2] * x.shape[-1],))
    idx = indices.reshape(indices.shape[:-2] + (-1,))
    idx = np.broadcast_to(idx, xf.shape[:-1] + idx.shape[-1:])
    return np.take_along_axis(xf, idx, -1).reshape(x.shape[:-2] + indices.shape[-2:])


MAX_POOL2D = defop(
    "max_pool2d_with_indices(self, *, kernel_size, stride, padding, dilation, ceil_mode)",
    _max_pool_kernel, "MaxPool2DWithIndicesBackward0", n_outputs=2, nondiff_outputs=(1,),
    self=lambda grad, self_sym_sizes, result1:
        F.max_pool2d_with_indices_backward(grad, result1, tuple(self_sym_sizes)),
    jvp=lambda self_t, result1: F.max_pool2d_gather(self_t, result1), batched_jvp=True)
MAX_POOL2D_BACKWARD = defop(
    "max_pool2d_with_indices_backward(grad_output, indices, *, self_sizes)", _pool_scatter_kernel,
    "MaxPool2DWithIndicesBackwardBackward0",
    grad_output=lambda grad, indices: F.max_pool2d_gather(grad, indices),
    jvp=lambda grad_output_t, indices, self_sizes:
        F.max_pool2d_with_indices_backward(grad_output_t, indices, self_sizes), batched_jvp=True)
MAX_POOL2D_GATHER = defop(
    "max_pool2d_gather(self, indices)", _pool_gather_kernel, "GatherBackward0",
    self=lambda grad, indices, self_sym_sizes:
        F.max_pool2d_with_indices_backward(grad, indices, tuple(self_sym_sizes)),
    jvp=lambda self_t, indices: F.max_pool2d_gather(self_t, indices), batched_jvp=True)


def _pool_args(fname, input, kernel_size, stride, padding, dilation=1):
    _tensor_arg(fname, input)
    k = _ntuple(kernel_size, 2, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _ntuple(stride, 2, "stride")
    p = _ntuple(padding, 2, "padding")
    d = _ntuple(dilation, 2, "dilation")
    if input._data.ndim not in (3, 4) or input._data.size == 0 and input._data.ndim != 4:
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got "
                           f"input of size {list(input._data.shape)}")
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel_size must be greater than zero, but got kH: {k[0]} kW: "
                           f"{k[1]}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} "
                           f"dilationW: {d[1]}")
    return k, s, p, d


def _check_pool_out(input, out_sp):
    shape = input._data.shape
    if any(o < 1 for o in out_sp):
        c = shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{shape[-2]}x{shape[-1]}). Calculated output "
                           f"size: ({c}x{out_sp[0]}x{out_sp[1]}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)`` on (N, C, H, W) or (C, H, W): the gradient goes to each window's
    (first) maximum (MaxPool2DWithIndicesBackward0); indices are flat H*W positions."""
    k, s, p, d = _pool_args("max_pool2d", input, kernel_size, stride, padding, dilation)
    for pv, kv, dv in zip(p, k, d):
        if pv > ((kv - 1) * dv + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pv}, kernel_size={kv} and dilation={dv}")
    _check_pool_out(input, _pool_geometry(input._data.shape[-2:], k, s, p, d, ceil_mode)[0])
    if input._data.dtype.kind not in "fiuV":
        raise NotImplementedError(f'"max_pool2d" not implemented for \'{_type_name(input)}\'')
    out, idx = dispatch(MAX_POOL2D, input, k, s, p, d, bool(ceil_mode))
    return (out, idx) if return_indices else out


def _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                 divisor_override):
    if divisor_override:
        return float(divisor_override)
    ds = []
    for n, k, s, p, o in zip(sizes, kernel_size, stride, padding, out_sp):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            ds.append(end - start)
        else:
            ds.append(np.minimum(end, n) - np.maximum(start, 0))
    return np.multiply.outer(ds[0], ds[1])


@half_in_float32
def _avg_pool_kernel(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override):
    sizes = x.shape[-2:]
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, (1, 1), ceil_mode)
    win = _windows(_pad_spatial(x, pads), out_sp, kernel_size, stride, (1, 1))
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    return (win.sum(axis=(-2, -1)) / np.asarray(div, x.dtype)).astype(x.dtype, copy=False)


@half_in_float32
def _avg_pool_backward_kernel(g, self_sizes, kernel_size, stride, padding, ceil_mode,
                              count_include_pad, divisor_override):
    sizes = tuple(self_sizes[-2:])
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, (1, 1), ceil_mode)
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    gd = g / np.asarray(div, g.dtype)
    sp = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    xp = np.zeros(g.shape[:-2] + sp, g.dtype)
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            xp[..., i:i + stride[0] * (out_sp[0] - 1) + 1:stride[0],
               j:j + stride[1] * (out_sp[1] - 1) + 1:stride[1]] += gd
    return np.ascontiguousarray(xp[..., padding[0]:padding[0] + sizes[0],
                                   padding[1]:padding[1] + sizes[1]])


AVG_POOL2D = defop(
    "avg_pool2d(self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, "
    "divisor_override)", _avg_pool_kernel, "AvgPool2DBackward0",
    self=lambda grad, self_sym_sizes, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: F.avg_pool2d_backward(grad, tuple(self_sym_sizes), kernel_size, stride,
                                            padding, ceil_mode, count_include_pad,
                                            divisor_override),
    jvp=LINEAR, batched_jvp=True)
AVG_POOL2D_BACKWARD = defop(
    "avg_pool2d_backward(grad_output, *, self_sizes, kernel_size, stride, padding, ceil_mode, "
    "count_include_pad, divisor_override)", _avg_pool_backward_kernel,
    "AvgPool2DBackwardBackward0",
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: F.avg_pool2d(grad, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override),
    jvp=LINEAR, batched_jvp=True)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """``avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`` on (N, C, H, W) or (C, H, W)
    (AvgPool2DBackward0)."""
    k, s, p, _ = _pool_args("avg_pool2d", input, kernel_size, stride, padding)
    for pv, kv in zip(p, k):
        if pv > kv // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pv}, kernel_size={kv} and dilation=1")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool_out(input, _pool_geometry(input._data.shape[-2:], k, s, p, (1, 1),
                                          ceil_mode)[0])
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f"avg_pool2d: {_type_name(input)} (integer) inputs are not supported by graphgrad "
            "(PyTorch divides in integer arithmetic); convert the input to a floating dtype")
    return dispatch(AVG_POOL2D, input, k, s, p, bool(ceil_mode), bool(count_include_pad),
                    divisor_override)


# ====================================================================== embedding
def _embedding_factor(indices, num_weights, padding_idx, scale_grad_by_freq, dtype):
    """Per-lookup gradient factor: 1/count with scale_grad_by_freq, 0 at padding_idx."""
    f = None
    if scale_grad_by_freq:
        counts = np.bincount(indices.ravel(), minlength=num_weights)
        f = (1.0 / counts[indices]).astype(dtype)
    if padding_idx >= 0:
        m = indices != padding_idx
        f = m.astype(dtype) if f is None else f * m
    return f


def _embedding_backward_kernel(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    d = grad.shape[-1]
    lead = grad.shape[:grad.ndim - indices.ndim - 1]
    f = _embedding_factor(indices, num_weights, padding_idx, scale_grad_by_freq, grad.dtype)
    g = grad if f is None else grad * f[..., None]
    idx = indices.ravel()
    nb = _prod(lead)
    out = np.zeros((nb * num_weights, d), grad.dtype)
    flat = idx if nb == 1 else \
        (np.arange(nb, dtype=np.int64)[:, None] * num_weights + idx[None, :]).ravel()
    np.add.at(out, flat, g.reshape(nb * idx.size, d))
    return out.reshape(lead + (num_weights, d))


def _embedding_gather_kernel(x, indices, padding_idx, scale_grad_by_freq):
    r = np.take(x, indices, axis=x.ndim - 2)
    f = _embedding_factor(indices, x.shape[-2], padding_idx, scale_grad_by_freq, x.dtype)
    return r if f is None else r * f[..., None]


EMBEDDING = defop(
    "embedding(weight, indices, *, padding_idx, scale_grad_by_freq, sparse)",
    lambda w, indices, padding_idx, scale_grad_by_freq, sparse: np.take(w, indices,
                                                                        axis=w.ndim - 2),
    "EmbeddingBackward0",
    weight=lambda grad, indices, weight_sym_sizes, padding_idx, scale_grad_by_freq:
        F.embedding_dense_backward(grad, indices, weight_sym_sizes[-2], padding_idx,
                                   scale_grad_by_freq),
    jvp=lambda weight_t, indices, padding_idx, scale_grad_by_freq, sparse:
        F.embedding(weight_t, indices, padding_idx, scale_grad_by_freq, sparse), batched_jvp=True)
EMBEDDING_DENSE_BACKWARD = defop(
    "embedding_dense_backward(grad_output, indices, *, num_weights, padding_idx, "
    "scale_grad_by_freq)", _embedding_backward_kernel, "EmbeddingDenseBackwardBackward0",
    grad_output=lambda grad, indices, padding_idx, scale_grad_by_freq:
        F.embedding_dense_gather(grad, indices, padding_idx, scale_grad_by_freq),
    jvp=lambda grad_output_t, indices, num_weights, padding_idx, scale_grad_by_freq:
        F.embedding_dense_backward(grad_output_t, indices, num_weights, padding_idx,
                                   scale_grad_by_freq), batched_jvp=True)
EMBEDDING_DENSE_GATHER = defop(
    "embedding_dense_gather(self, indices, *, padding_idx, scale_grad_by_freq)",
    _embedding_gather_kernel, "EmbeddingBackward0",
    self=lambda grad, indices, self_sym_sizes, padding_idx, scale_grad_by_freq:
        F.embedding_dense_backward(grad, indices, self_sym_sizes[-2], padding_idx,
                                   scale_grad_by_freq),
    jvp=lambda self_t, indices, padding_idx, scale_grad_by_freq:
        F.embedding_dense_gather(self_t, indices, padding_idx, scale_grad_by_freq),
    batched_jvp=True)


def _embedding_renorm_(weight, idx, max_norm, norm_type):
    """Rescale (in place, without recording) the looked-up rows whose norm exceeds max_norm."""
    w = weight._data
    rows = np.unique(idx)
    if rows.size == 0:
        return
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    sel = norms > max_norm
    if sel.any():
        scale = (max_norm / (norms[sel] + 1e-7)).astype(w.dtype)
        w[rows[sel]] *= scale[:, None]
        weight._bump_version()


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """``embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False)``: rows of ``weight`` (num_embeddings, dim)
    looked up by ``input``; the ``padding_idx`` row gets no gradient; ``max_norm`` renormalises
    the looked-up rows of ``weight`` in place, as PyTorch does (EmbeddingBackward0)."""
    _tensor_arg("embedding", input)
    _tensor_arg("embedding", weight, "weight", 2)
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {_type_name(input)} "
                           "instead (while checking arguments for embedding)")
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    nw = weight._data.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= nw:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -nw:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx += nw
    else:
        padding_idx = -1
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= nw):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("embedding(sparse=True) needs sparse gradients, which graphgrad "
                                  "does not have; use sparse=False")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    return dispatch(EMBEDDING, weight, input, int(padding_idx), bool(scale_grad_by_freq), False)


# ====================================================================== public names
# torch.* / Tensor.* names PyTorch also has for these ops
export("conv1d", method=False)(conv1d)
export("conv2d", method=False)(conv2d)
export("max_pool2d", method=False)(max_pool2d)
export("layer_norm", method=False)(layer_norm)

# every op above becomes reachable from rules as F.<name>
F.install(_registry.OPS)
F._bind(_registry.OPS)


# ====================================================================== pad (shapes/indexing family)
def pad(input, pad, mode="constant", value=None):  # noqa: F811 - the public nn.functional.pad
    """Pad (or crop, with negative widths) the trailing dims of ``input``.

    ``pad`` is ``(left, right)`` for the last dim, then for the dim before, ...; ``mode`` is
    ``'constant'`` (with ``value``, default 0), ``'reflect'``, ``'replicate'`` or
    ``'circular'``.  See graphgrad/_ops/padding.py.
    """
    from .._ops.padding import pad as _pad
    if mode in ("reflect", "replicate") and isinstance(input, Tensor) and \
            input._data.dtype == np.bool_ and len(pad) in (2, 4, 6):
        kernel = ("reflection" if mode == "reflect" else "replication") + f"_pad{len(pad) // 2}d"
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return _pad(input, pad, mode, value)
# ====================================================================== end of pad block
