"""``graphgrad.amp.GradScaler``: dynamic loss scaling, with PyTorch's semantics.

A training step with a scaler::

    scaler = graphgrad.amp.GradScaler("cpu")
    scaler.scale(loss).backward()   # gradients are ``scale`` times too large
    scaler.step(optimizer)          # unscale them; skip optimizer.step() on inf/NaN
    scaler.update()                 # back off after a skipped step, grow after
                                    # ``growth_interval`` clean ones

The scale is a 0-dim float32 tensor and the growth tracker a 0-dim int32 tensor,
created by the first ``scale()`` call, as PyTorch's are. Per optimizer the scaler
remembers where the iteration is (READY -> UNSCALED -> STEPPED, reset by ``update``)
and the found-inf flag of each device, so misuse (``unscale_`` twice, ``step`` twice,
``unscale_`` after ``step``) raises PyTorch's errors.

The two kernels PyTorch runs (``torch._amp_foreach_non_finite_check_and_unscale_`` and
``torch._amp_update_scale_``) are here too, on the tensors' NumPy arrays.
"""
from __future__ import annotations

import enum
import warnings
from collections import abc, defaultdict

import numpy as np

from .._core import dtypes as _dt
from .._tensor.tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["OptState", "GradScaler"]


class OptState(enum.Enum):
    """Where one optimizer is within the current iteration (PyTorch's names and values)."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _float32_scalar(value):
    """``value`` rounded to float32 (overflow gives inf, silently, as a C cast does)."""
    with np.errstate(over="ignore"):
        return np.float32(value)


# ------------------------------------------------------------------ kernels


def _amp_foreach_non_finite_check_and_unscale_(self, found_inf, inv_scale):
    """Multiply every tensor of ``self`` by ``inv_scale`` in place and set ``found_inf`` (a
    1-element float32 tensor) to 1.0 if any element of them is inf or NaN (checked before the
    multiplication). Low-precision tensors are multiplied in float32, as PyTorch's CPU kernel
    does."""
    if not isinstance(found_inf, Tensor) or found_inf.numel() != 1 \
            or found_inf.dtype is not _dt.float32:
        raise RuntimeError("_amp_foreach_non_finite_check_and_unscale_: found_inf must be a "
                           "1-element float32 tensor")
    if not isinstance(inv_scale, Tensor) or inv_scale.numel() != 1 \
            or inv_scale.dtype is not _dt.float32:
        raise RuntimeError("_amp_foreach_non_finite_check_and_unscale_: inv_scale must be a "
                           "1-element float32 tensor")
    tensors = list(self)
    for t in tensors:
        if not t.is_floating_point():
            raise RuntimeError(
                "_amp_foreach_non_finite_check_and_unscale_: every tensor must be a floating "
                f"point tensor, got {t.dtype}")
    inv = np.float32(inv_scale._data.reshape(()))
    found = False
    for t in tensors:
        a = t._data
        low = a.dtype.itemsize < 4  # float16 / bfloat16: compute in float32
        work = a.astype(np.float32) if low else a
        if not found and not np.isfinite(work).all():
            found = True
        if inv != 1.0:
            if low:
                a[...] = (work * inv).astype(a.dtype)
            else:
                a *= inv
            t._bump_version()
    if found:
        found_inf._data[...] = 1.0
        found_inf._bump_version()


def _amp_update_scale_(self, growth_tracker, found_inf, scale_growth_factor,
                       scale_backoff_factor, growth_interval):
    """PyTorch's scale update, in place on the 1-element float32 ``self`` (the scale) and
    int32 ``growth_tracker``: after an inf/NaN multiply the scale by the backoff factor and
    reset the tracker; otherwise count the clean step and, on the ``growth_interval``-th,
    multiply by the growth factor (unless that overflows float32) and reset the tracker."""
    if self.numel() != 1 or self.dtype is not _dt.float32:
        raise RuntimeError("_amp_update_scale_: the scale must be a 1-element float32 tensor")
    if growth_tracker.numel() != 1 or growth_tracker.dtype is not _dt.int32:
        raise RuntimeError("_amp_update_scale_: growth_tracker must be a 1-element int32 tensor")
    if found_inf.numel() != 1 or found_inf.dtype is not _dt.float32:
        raise RuntimeError("_amp_update_scale_: found_inf must be a 1-element float32 tensor")
    sd = self._data
    gd = growth_tracker._data
    current = float(sd.reshape(()))
    if float(found_inf._data.reshape(())):
        sd[...] = _float32_scalar(current * scale_backoff_factor)
        gd[...] = 0
    else:
        clean = int(gd.reshape(())) + 1
        if clean == growth_interval:
            grown = _float32_scalar(current * scale_growth_factor)
            if np.isfinite(grown):
                sd[...] = grown
            gd[...] = 0
        else:
            gd[...] = clean
    self._bump_version()
    growth_tracker._bump_version()
    return self


# ------------------------------------------------------------------- scaler


class GradScaler:
    """Dynamic gradient (loss) scaling, as ``torch.amp.GradScaler``.

    ``scale(loss)`` multiplies by the current scale; ``step(optimizer)`` unscales the
    optimizer's gradients (unless ``unscale_`` did already) and runs ``optimizer.step()``
    only when none is inf/NaN; ``update()`` multiplies the scale by ``backoff_factor`` after
    a skipped step and by ``growth_factor`` after ``growth_interval`` consecutive clean ones.
    With ``enabled=False`` every method is a pass-through.

    graphgrad's default device is ``"cpu"`` (PyTorch's is ``"cuda"``, which graphgrad does not
    have); ``device="cuda"`` warns and disables the scaler, as PyTorch does without CUDA.
    """

    def __init__(self, device="cpu", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        dev = getattr(device, "type", device)
        if dev not in ("cpu", "cuda"):
            raise RuntimeError(
                f"GradScaler: device {device!r} is not available in graphgrad, which runs on "
                "the CPU only; use GradScaler('cpu')")
        self._device = dev
        self._enabled = bool(enabled)
        if dev == "cuda" and self._enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # ----------------------------------------------------------- helpers

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev=None):
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = Tensor._wrap(np.array(self._init_scale, dtype=np.float32))
        self._growth_tracker = Tensor._wrap(np.array(self._init_growth_tracker, dtype=np.int32))

    def _scale_tensor(self, device):
        if self._scale is None:
            self._lazy_init_scale_growth_tracker(device)
        return self._scale

    # ------------------------------------------------------------ scale

    def scale(self, outputs):
        """``outputs`` (a tensor, or a list/tuple/iterable of them, nested) times the scale.
        Lists and tuples keep their type; other iterables come back as a lazy ``map``."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale_tensor(outputs.device)

        def apply(val):
            if isinstance(val, Tensor):
                return val * self._scale_tensor(val.device)
            if isinstance(val, abc.Iterable) and not isinstance(val, (str, bytes)):
                scaled = map(apply, val)
                return type(val)(scaled) if isinstance(val, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors "
                             f"(GradScaler.scale got {type(val).__name__})")

        return apply(outputs)

    # ---------------------------------------------------------- unscale

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        by_device_dtype = defaultdict(lambda: defaultdict(list))
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(
                        f"expected param to be torch.Tensor, got {type(param).__name__}")
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype is _dt.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                by_device_dtype[grad.device][grad.dtype].append(grad)
        found_per_device = {}
        with no_grad():
            for dev, per_dtype in by_device_dtype.items():
                flag = found_per_device.setdefault(dev, found_inf.clone())
                for grads in per_dtype.values():
                    _amp_foreach_non_finite_check_and_unscale_(grads, flag, inv_scale)
        return found_per_device

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place (once per iteration), and
        record whether any of them is inf/NaN; ``step`` then uses that record."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = Tensor._wrap(np.array(1.0 / float(self._scale._data), dtype=np.float32))
        found_inf = Tensor._wrap(np.array(0.0, dtype=np.float32))
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    # ------------------------------------------------------------- step

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        if sum(float(v.item()) for v in optimizer_state["found_inf_per_device"].values()):
            return None
        return optimizer.step(*args, **kwargs)

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless ``unscale_`` did), then ``optimizer.step(*args, **kwargs)`` unless a
        gradient is inf/NaN; returns what ``optimizer.step`` returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    # ----------------------------------------------------------- update

    def update(self, new_scale=None):
        """End the iteration: set the scale to ``new_scale`` (a float or a 1-element tensor)
        if given, else back off / grow it from this iteration's inf checks."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale._data[...] = _float32_scalar(new_scale)
                scale._bump_version()
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, Tensor):
                    raise AttributeError(
                        f"GradScaler.update: {reason} Got {type(new_scale).__name__}; pass "
                        "float(new_scale).")
                if new_scale.device.type != self._device or new_scale.numel() != 1 \
                        or new_scale.requires_grad:
                    raise AssertionError(reason)
                with no_grad():
                    scale.copy_(new_scale.reshape(()))
        else:
            found = [f for st in self._per_optimizer_states.values()
                     for f in st["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found[0]
            if len(found) > 1:
                combined = Tensor._wrap(np.array(sum(float(f._data) for f in found),
                                                 dtype=np.float32))
            _amp_update_scale_(scale, tracker, combined, self._growth_factor,
                               self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # ---------------------------------------------------------- getters

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        if self._scale is None:
            return self._init_scale
        return float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self):
        return self._enabled

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _check_inf_per_device(self, optimizer):
        self._check_scale_growth_tracker("_check_inf_per_device")
        one = Tensor._wrap(np.array(1.0, dtype=np.float32))
        zero = Tensor._wrap(np.array(0.0, dtype=np.float32))
        found = self._unscale_grads_(optimizer, one, zero, True)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = found
        return found

    # ------------------------------------------------------------ state

    def state_dict(self):
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` ({} when disabled); save it after ``update()``."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._scale is not None:
            self._scale._data[...] = _float32_scalar(state_dict["scale"])
            self._scale._bump_version()
        if self._growth_tracker is not None:
            self._growth_tracker._data[...] = state_dict["_growth_tracker"]
            self._growth_tracker._bump_version()

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
