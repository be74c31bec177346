"""``graphgrad.utils.checkpoint``: PyTorch's activation checkpointing.

``checkpoint(fn, *args, use_reentrant=...)`` runs ``fn`` without keeping the tensors
its backward needs, and recomputes them during backward:

- ``use_reentrant=False`` (recommended): ``fn`` runs under a saved-tensor hook pair whose
  pack stores only a slot number. The first unpack in a backward reruns ``fn`` on the
  original inputs (grad enabled, the forward's RNG state restored) under a hook pair that
  fills the slots, and stops the rerun as soon as every slot is filled. Because the rerun
  is attached to the original inputs, ``autograd.grad``, ``inputs=`` and double backward
  work.
- ``use_reentrant=True``: a custom Function running ``fn`` under ``no_grad``; its backward
  reruns ``fn`` on detached inputs and calls ``autograd.backward`` inside the backward.
- ``use_reentrant=None``: PyTorch 2.13's default (reentrant) with its warning.
"""
from __future__ import annotations

import contextlib
import warnings

import graphgrad as _gg
from .._core.state import tls  # (tls.engine_task: the running graph task)
from ._checkpoint_debug import DEBUG_TIP, debug_contexts
from ._selective_checkpoint import (CheckpointPolicy, SAC_IGNORED_OPS,  # noqa: F401
                                    SelectiveCheckpointContext,
                                    create_selective_checkpoint_contexts)

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "detach_variable",
           "check_backward_validity", "noop_context_fn", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled",
           "CheckpointPolicy", "SelectiveCheckpointContext", "SAC_IGNORED_OPS",
           "create_selective_checkpoint_contexts"]


class CheckpointError(RuntimeError):
    """Raised when the recomputation of a non-reentrant checkpoint differs from the forward."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


_EARLY_STOP = [True]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Whether a non-reentrant recomputation stops once every saved tensor is recomputed."""
    prev = _EARLY_STOP[0]
    _EARLY_STOP[0] = enable
    try:
        yield
    finally:
        _EARLY_STOP[0] = prev


_DEBUG = [None]


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Whether non-reentrant checkpoints put the ops of the forward and of the
    recomputation into their errors; overrides ``debug=`` while set (``None``: don't)."""
    prev = _DEBUG[0]
    _DEBUG[0] = enabled
    try:
        yield
    finally:
        _DEBUG[0] = prev


def _autocast_state():
    """The CPU autocast state, which a recomputation runs under as the forward did."""
    return dict(enabled=_gg.is_autocast_enabled("cpu"), dtype=_gg.get_autocast_dtype("cpu"),
                cache_enabled=_gg.is_autocast_cache_enabled())


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, _gg.Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        else:
            out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _gg.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


_WARN_MSG = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, **kwargs):
    """Run ``function(*args, **kwargs)`` without saving its activations; recompute them in backward."""
    if use_reentrant is None:
        warnings.warn(_WARN_MSG, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs)
                         + " (checkpoint with use_reentrant=True passes only positional "
                           "arguments to the function; use use_reentrant=False for keywords)")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    error_cb = None
    if _DEBUG[0] if _DEBUG[0] is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, error_cb = debug_contexts()
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_non_reentrant(function, preserve, context_fn, determinism_check,
                                     args, kwargs, error_cb)


# ---------------------------------------------------------------- reentrant


def _is_checkpoint_valid():
    """False inside a backward that only computes some gradients (autograd.grad, inputs=):
    the reentrant backward inside it would accumulate into every leaf's .grad."""
    task = tls.engine_task
    return task is None or task[3] is None


class CheckpointFunction(_gg.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.autocast_state = _autocast_state()
        if preserve_rng_state:
            ctx.fwd_cpu_state = _gg.get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, a in enumerate(args):
            if isinstance(a, _gg.Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        with _gg.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _gg.random.fork_rng(devices=[], enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                _gg.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with _gg.enable_grad(), _gg.autocast("cpu", **ctx.autocast_state):
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _gg.Tensor):
            outputs = (outputs,)
        outs, gs = [], []
        for o, g in zip(outputs, grads):
            if isinstance(o, _gg.Tensor) and o.requires_grad:
                outs.append(o)
                gs.append(g)
        if not outs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        _gg.autograd.backward(outs, gs)
        return (None, None) + tuple(d.grad if isinstance(d, _gg.Tensor) else None
                                    for d in detached)


# ------------------------------------------------------------ non-reentrant


class _StopRecomputation(Exception):
    pass


class _Frame:
    """One checkpointed call: the slots its forward saved and their recomputed values."""

    def __init__(self, function, args, kwargs, preserve, rng_state, context_fn, determinism_check,
                 error_cb=None):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.preserve = preserve
        self.rng_state = rng_state
        self.context_fn = context_fn
        self.determinism_check = determinism_check
        self.error_cb = error_cb    # debug=True: adds the logged ops to a CheckpointError
        self.autocast_state = _autocast_state()
        self.early_stop = _EARLY_STOP[0]
        self.meta = []          # (shape, dtype) of each tensor the forward saved
        # False while fn runs: a backward inside fn (autograd.grad in the checkpointed
        # function) can recompute a frame whose forward has saved only part of its tensors
        self.forward_completed = False
        # set when such a recomputation (without early stop) saved more tensors than the
        # forward had so far: the count and metadata checks no longer apply to this frame
        self.ignore_saved_mismatch = False
        # per backward (graph task id): slot -> recomputed tensor, filled by a recomputation,
        # emptied by unpacks; a later backward (retain_graph) recomputes again
        self.recomputed = {}
        self.unpacked = {}      # per backward: the slots already unpacked

    def pack(self, x):
        self.meta.append((tuple(x.shape), x.dtype))
        return len(self.meta) - 1

    def unpack(self, slot):
        try:
            return self._unpack(slot)
        except CheckpointError as exc:
            if self.error_cb is None:
                raise
            raise self.error_cb(exc) from None

    def _unpack(self, slot):
        task = tls.engine_task
        if task is None:
            # outside a backward (``grad_fn._saved_result``): every access recomputes and
            # keeps nothing, as PyTorch's fresh graph-task id per access does
            return self._pick(self.recompute(), slot)
        tid = task[0]
        done = self.unpacked.setdefault(tid, set())
        if slot in done:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                "so only once. Otherwise please open an issue with details on your use case.")
        if tid not in self.recomputed:
            self.recomputed[tid] = self.recompute()
        values = self.recomputed[tid]
        done.add(slot)
        t = self._pick(values, slot)
        del values[slot]
        if not values:  # every slot this backward recomputed has been handed out
            del self.recomputed[tid]
        return t

    @staticmethod
    def _pick(values, slot):
        if slot not in values:
            raise CheckpointError(
                "torch.utils.checkpoint: the recomputation saved fewer tensors than the forward "
                f"({len(values)} left, slot {slot} missing). Make sure the checkpointed function "
                "does the same thing when it is rerun.")
        return values[slot]

    def recompute(self):
        n = len(self.meta)
        got = {}
        early = self.early_stop

        def pack(x):
            # keep the value only (unpacking re-attaches the forward's history to it); a
            # tensor without history is kept as is, so unpack hands back the very object the
            # forward saved (a custom Function's saved input stays `is`-identical)
            if x.requires_grad:
                x = x.detach()
            if len(got) >= n and not early and not self.forward_completed:
                # a backward inside fn, while fn's forward is still running, recomputes
                # past what the forward has saved so far: not an error (PyTorch's rule)
                self.ignore_saved_mismatch = True
                return x
            got[len(got)] = x
            if early and len(got) == n:
                raise _StopRecomputation
            return x

        def unpack(x):  # a saved tensor of the recomputed graph itself (rarely backwarded)
            return x

        with _gg.random.fork_rng(devices=[], enabled=self.preserve):
            if self.preserve:
                _gg.set_rng_state(self.rng_state)
            _, recompute_ctx = self.context_fn()
            try:
                with _gg.enable_grad(), _gg.autocast("cpu", **self.autocast_state), \
                        _gg.autograd.graph.saved_tensors_hooks(pack, unpack), recompute_ctx:
                    self.function(*self.args, **self.kwargs)
            except _StopRecomputation:
                pass
        if self.ignore_saved_mismatch:
            return {i: t for i, t in got.items() if i < n}
        if len(got) > n:
            raise CheckpointError(
                "torch.utils.checkpoint: trying to save more tensors during recomputation than "
                f"during the original forward pass ({len(got)} vs {n}). Make sure the checkpointed "
                "function does the same thing when it is rerun (no branches on global state)."
                + DEBUG_TIP)
        if self.determinism_check == "default":
            if len(got) != n:
                raise CheckpointError(
                    "torch.utils.checkpoint: A different number of tensors was saved during the "
                    f"original forward and recomputation.\nNumber of tensors saved during forward: "
                    f"{n}\nNumber of tensors saved during recomputation: {len(got)}.\nMake sure the "
                    "checkpointed function does the same thing when it is rerun (for example, "
                    "no branches on global state), or pass determinism_check='none'."
                    + DEBUG_TIP)
            bad = [(i, self.meta[i], (tuple(got[i].shape), got[i].dtype)) for i in range(n)
                   if (tuple(got[i].shape), got[i].dtype) != self.meta[i]]
            if bad:
                lines = "\n".join(f"tensor at position {i}:\nsaved metadata: shape={a[0]}, "
                                  f"dtype={a[1]}\nrecomputed metadata: shape={b[0]}, dtype={b[1]}"
                                  for i, a, b in bad)
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    f"different metadata than during the forward pass.\n{lines}\nMake sure the "
                    "checkpointed function is deterministic in shapes and dtypes, or pass "
                    "determinism_check='none'." + DEBUG_TIP)
        return {i: t for i, t in got.items() if i < n}


def _checkpoint_non_reentrant(function, preserve, context_fn, determinism_check, args, kwargs,
                              error_cb=None):
    rng_state = _gg.get_rng_state() if preserve else None
    # one pair per call: a selective checkpoint's two contexts share the forward's cache
    forward_ctx, recompute_ctx = context_fn()
    frame = _Frame(function, args, kwargs, preserve, rng_state,
                   lambda: (forward_ctx, recompute_ctx), determinism_check, error_cb)
    with _gg.autograd.graph.saved_tensors_hooks(frame.pack, frame.unpack), forward_ctx:
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


# ------------------------------------------------------------------ sequential


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Split ``functions`` (a list or ``nn.Sequential``) into ``segments`` chunks and checkpoint
    every chunk but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
            "passed. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
            "the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs)
                         + " (checkpoint_sequential accepts only preserve_rng_state)")

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if isinstance(functions, _gg.nn.Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
