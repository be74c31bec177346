"""Selective activation checkpointing: ``checkpoint(fn, x, use_reentrant=False,
context_fn=functools.partial(create_selective_checkpoint_contexts, policy))``.

PyTorch's design, on interposers (NOTE [interposition], graphgrad/ops/interpose.py)
instead of TorchDispatchModes.  ``create_selective_checkpoint_contexts`` returns two
context managers sharing one cache:

- the forward one sees every table op ``fn`` runs (a composite such as ``F.linear`` or
  ``matmul`` is passed through: its inner ops are seen, as PyTorch's modes see only the
  ops below its composite functions).  It numbers each call per op (the op's n-th call),
  runs it, asks the policy ``policy(ctx, op, *args, **kwargs)`` with ``op`` an
  ``aten`` overload (graphgrad.ops.aten) and ``ctx.op_output`` the result, and keeps a
  detached alias of the result when the answer is ``MUST_SAVE``/``PREFER_SAVE``;
- the recompute one, during the backward's recomputation of ``fn``, hands out the kept
  result of the op's n-th call instead of running it (once: a second backward through a
  kept entry raises, as PyTorch's does), and runs the others.

Two things PyTorch gets from running its modes below autograd are done here by hand:

- a kept op must still record its backward node during the recomputation, because the
  checkpoint matches the tensors the recomputation saves with the forward's by order:
  the cached result is wrapped fresh and recorded (``_record``, ``_run_extras``: the saved-tensor hooks) with the call's inputs;
- interposers nest (an op may run ops, e.g. a composite or an interposer's casts): the
  ops that ran inside a kept call are remembered and their counters advanced when the
  recomputation skips it, so later calls keep their numbers.

An op that writes into an input (``x.add_(y)``, ``out=``) is asked about (the policy
sees ``aten.add_.Tensor``) but always rerun: handing back its cached result would skip
the write (docs/differences.md).
"""
from __future__ import annotations

import enum
from collections import defaultdict

from .._core.state import tls
from .._tensor.tensor import Tensor
from ..autograd.views import _set_view
from ..ops.aten import OpOverload, OpOverloadPacket, overload_of
from ..ops.dispatch import _record
from ..ops.extras import _run_extras
from ..ops.interpose import interposing
from ..ops.registry import OpDef

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext", "SAC_IGNORED_OPS",
           "create_selective_checkpoint_contexts"]


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output (PyTorch's names and values):
    ``{MUST,PREFER}_SAVE`` keep it from the forward, ``{MUST,PREFER}_RECOMPUTE`` rerun the
    op in the recomputation (``MUST_*``: not to be overridden by a compiler; the same in
    eager mode); the ``*_CPU_OFFLOAD`` ones are recomputed on CPU, where offloading is moot."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)

# PyTorch skips detach and metadata queries, which graphgrad's interposers never see
SAC_IGNORED_OPS = frozenset()


class SelectiveCheckpointContext:
    """The ``ctx`` a policy gets: ``op_output`` is the op's result; the policy runs in the
    forward only, so ``is_recompute`` is False (kept for PyTorch's older policies)."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


def _policy_from_bool(b):
    # (PyTorch's older policies answered True for "save")
    return CheckpointPolicy.MUST_SAVE if b else CheckpointPolicy.PREFER_RECOMPUTE


_RECOMPUTE = "recompute"
_CONSUMED = "consumed"
_MISMATCH = ("This can happen if the operations in the checkpointed region are nondeterministic "
             "or depend on global state that changed between forward and backward.")


class _Kept:
    """A kept result: detached aliases (sharing the version counter) and their versions,
    and the ops that ran inside the call (their counters move on when it is skipped)."""

    __slots__ = ("value", "versions", "inner")

    def __init__(self, out, inner):
        if isinstance(out, Tensor):
            self.value = out.detach()
            self.versions = (self.value._version,)
        elif isinstance(out, tuple):
            self.value = type(out)(*[o.detach() if isinstance(o, Tensor) else o for o in out]) \
                if hasattr(out, "_fields") else tuple(
                    o.detach() if isinstance(o, Tensor) else o for o in out)
            self.versions = tuple(o._version if isinstance(o, Tensor) else None
                                  for o in self.value)
        else:
            self.value = out
            self.versions = ()
        self.inner = inner

    def get(self, allow_mutation):
        value = self.value
        parts = value if isinstance(value, tuple) else (value,)
        if not allow_mutation:
            for o, v in zip(parts, self.versions):
                if v is not None and o._version != v:
                    raise RuntimeError(
                        "Tensor cached during selective activation checkpoint has been mutated "
                        f"(an output of shape {list(o.shape)} was changed in place after the "
                        f"forward kept it, version {v} -> {o._version}). Modify a clone "
                        "instead, let the policy recompute that op, or pass "
                        "allow_cache_entry_mutation=True to create_selective_checkpoint_contexts.")
        return value


def _real_args(op, args):
    """The op's arguments as the policy sees them (the generic entries pass ``op`` first)."""
    return args[1:] if args and args[0] is op else args


def _writes_input(out, pargs, kwargs):
    """Whether the call wrote into an input: returned one of them, or had ``out=``."""
    if kwargs and kwargs.get("out") is not None:
        return True
    outs = out if isinstance(out, tuple) else (out,)
    return any(o is a for o in outs for a in pargs if isinstance(a, Tensor))


class _Interposing:
    """A context manager making ``self`` an interposer of this thread while it is entered
    (re-entrant: a recomputation per backward)."""

    def __init__(self):
        self._cms = []

    def _activate(self):
        cm = interposing(self)
        cm.__enter__()
        self._cms.append(cm)

    def __exit__(self, *exc):
        cm = self._cms.pop()
        if cm is not None:
            return cm.__exit__(*exc)
        return False


class _Caching(_Interposing):
    """The forward context: numbers the calls, asks the policy, keeps chosen results."""

    def __init__(self, policy_fn, storage):
        super().__init__()
        self.policy_fn = policy_fn
        self.storage = storage
        self.counter = defaultdict(int)
        self.log = []   # the ops in call order (what ran inside a kept call)

    def __enter__(self):
        if tls.grad_enabled:
            self._activate()
        else:  # PyTorch's checkpoint does not enter the context under no_grad
            self._cms.append(None)
        return self

    def __call__(self, op, call, args, kwargs):
        if op.__class__ is not OpDef:  # a composite: only its inner ops count
            return call(args, kwargs)
        idx = self.counter[op]
        self.counter[op] = idx + 1
        log = self.log
        start = len(log)
        log.append(op)
        out = call(args, kwargs)
        pargs = _real_args(op, args)
        writes = _writes_input(out, pargs, kwargs)
        overload = overload_of(op, inplace=writes and out is (pargs[0] if pargs else None))
        if kwargs and "out" in kwargs and kwargs["out"] is None:
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out),
                                overload, *pargs, **kwargs)
        if isinstance(policy, bool):
            policy = _policy_from_bool(policy)
        if policy in _SAVE and not writes:
            self.storage[op][idx] = _Kept(out, tuple(log[start + 1:]))
        else:
            self.storage[op][idx] = _RECOMPUTE
        if start == 0:
            log.clear()  # (only calls nested in a kept one need their ops remembered)
        return out


class _Cached(_Interposing):
    """The recompute context: hands out kept results, reruns the rest."""

    def __init__(self, storage, allow_cache_entry_mutation=False):
        super().__init__()
        self.storage = storage
        self.allow_cache_entry_mutation = allow_cache_entry_mutation
        self.counter = defaultdict(int)

    def __enter__(self):
        # a new recomputation (a second backward with retain_graph) numbers calls afresh,
        # and so meets its consumed entries
        self.counter.clear()
        self._activate()
        return self

    def __call__(self, op, call, args, kwargs):
        if op.__class__ is not OpDef:
            return call(args, kwargs)
        idx = self.counter[op]
        self.counter[op] = idx + 1
        calls = self.storage.get(op)
        if calls is None:
            raise RuntimeError(f"{overload_of(op)} encountered during backward but not found in "
                               f"storage. {_MISMATCH}")
        entry = calls.get(idx)
        if entry is None:
            raise RuntimeError(f"{overload_of(op)} invocation index {idx} encountered during "
                               f"backward but not found in storage. {_MISMATCH}")
        if entry is _RECOMPUTE:
            return call(args, kwargs)
        if entry is _CONSUMED:
            raise RuntimeError(
                "Trying to backward an extra time. You are only allowed to backward once on any "
                "region computed under selective activation checkpoint.")
        value = entry.get(self.allow_cache_entry_mutation)
        calls[idx] = _CONSUMED
        for inner in entry.inner:
            self.counter[inner] += 1
        return _replay(op, _real_args(op, args), value)


def _replay(op, pargs, value):
    """The kept ``value`` as the result of ``op(*pargs)``: fresh tensors on its data,
    recorded as the op's outputs (so the recomputation saves what the forward saved)."""
    many = isinstance(value, tuple)
    outs = tuple(o.detach() if isinstance(o, Tensor) else o for o in (value if many else (value,)))
    if op.is_view and outs and isinstance(pargs[0], Tensor):
        _set_view(op, pargs, outs[0])
    if op.differentiable and tls.grad_enabled and any(
            isinstance(pargs[i], Tensor) and pargs[i]._requires_grad
            for i in op.diff_pos if i < len(pargs)):
        _record(op, pargs, outs)
    if tls.extras_on:  # the saved-tensor hooks (the checkpoint's own), as dispatch does
        _run_extras(op, pargs, outs)
    if not many:
        return outs[0]
    return type(value)(*outs) if hasattr(value, "_fields") else outs


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The ``context_fn`` of a selective checkpoint: which ops' outputs the forward keeps
    instead of the recomputation rerunning them.

    ``policy_fn_or_list``: a function ``policy(ctx, op, *args, **kwargs)`` returning a
    :class:`CheckpointPolicy` (``op`` is a ``graphgrad.ops.aten`` overload such as
    ``aten.mm.default``), or a list of overloads to keep (``MUST_SAVE``; every other op is
    ``PREFER_RECOMPUTE``).  ``allow_cache_entry_mutation``: let a kept output be changed in
    place after the forward (by default that raises in backward, the recomputation would
    read the changed value).  Returns the forward and the recompute context managers."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                extra = (" Please update the OpOverloadPacket to a specific OpOverload. For "
                         "example, if you have `torch.ops.aten.mm`, change it to "
                         "`torch.ops.aten.mm.default`.") if isinstance(op, OpOverloadPacket) else ""
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} "
                                 f"of type {type(op)}.{extra}")
        ops = list(policy_fn_or_list)

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops. (got "
                        f"{type(policy_fn_or_list).__name__})")
    storage = defaultdict(dict)
    return _Caching(policy_fn, storage), _Cached(storage, allow_cache_entry_mutation)
