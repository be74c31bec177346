"""``autograd.Function`` under vmap: ``generate_vmap_rule=True`` and the ``vmap`` staticmethod.

A Function applied to BatchedTensors becomes one Function on the *physical* tensors (batch
dim in front), so autograd records a single node whose backward is the user's backward run
on batched values:

- forward: ``generate_vmap_rule=True`` runs the user's forward on the BatchedTensors (its
  ops take their batching rules); otherwise the user's ``vmap(info, in_dims, *args)``
  staticmethod computes the outputs from the physical tensors.  ``setup_context`` then
  sees the batched inputs and outputs, as in PyTorch.
- backward: the user's backward runs on BatchedTensors of the level (re-entered if the
  backward runs after vmap returned); a gradient for an input that was not batched is
  summed over the batch.

``ctx`` is a stand-in that keeps what the user saves as Python objects (BatchedTensors
cannot go through SavedVariable, which would keep example 0 only).
"""
from __future__ import annotations

from contextlib import contextmanager

from .._tensor.tensor import Tensor
from ..autograd.function import Function
from ..ops.interpose import interposing
from . import _batching as _bt

__all__ = ["vmap_apply"]


class VmapInfo:
    """What a ``vmap`` staticmethod is told: ``batch_size`` and ``randomness``."""

    __slots__ = ("batch_size", "randomness")

    def __init__(self, batch_size, randomness):
        self.batch_size, self.randomness = batch_size, randomness

    def __repr__(self):
        return f"VmapInfo(batch_size={self.batch_size}, randomness={self.randomness!r})"


class _Ctx:
    """The ``ctx`` a Function's setup_context/backward sees under vmap."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self._saved = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def save_for_forward(self, *tensors):
        self._saved_fw = tensors

    @property
    def saved_tensors(self):
        return self._saved

    def mark_non_differentiable(self, *args):
        pass

    def mark_dirty(self, *args):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


@contextmanager
def _at_level(level, size, randomness):
    """Make ``level`` active (it is not when a backward runs after vmap returned)."""
    if any(lv == level for lv, _, _ in _bt.levels()):
        yield
        return
    ls = _bt.levels()
    ls.append((level, size, randomness))
    try:
        with interposing(_bt._Level(level, size, randomness)):
            yield
    finally:
        ls.remove((level, size, randomness))


def vmap_apply(cls, args, new_style):
    """``cls.apply(*args)`` with BatchedTensors among ``args``; NotImplemented when none."""
    level = -1
    for a in args:
        if isinstance(a, _bt.BatchedTensor) and a._level > level:
            level = a._level
    if level < 0 or not any(x[0] == level for x in _bt.levels()):
        return NotImplemented
    lv = next(x for x in _bt.levels() if x[0] == level)
    size, randomness = lv[1], lv[2]
    name = cls.__name__
    if not new_style:
        raise RuntimeError(
            f"In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            f"jacrev, ...), it must override the setup_context staticmethod. {name} defines "
            "forward(ctx, ...): move the ctx work into setup_context(ctx, inputs, output).")
    overridden = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule and overridden:
        raise RuntimeError(
            f"You tried to vmap over {name}, but it has both generate_vmap_rule=True and an "
            "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            "overridden vmap staticmethod to avoid ambiguity.")
    if not cls.generate_vmap_rule and not overridden:
        raise RuntimeError(
            f"You tried to vmap over {name}, but it does not have vmap support. Please override "
            "and implement the vmap staticmethod or set generate_vmap_rule=True.")
    batched = [isinstance(a, _bt.BatchedTensor) and a._level == level for a in args]
    phys = [a._value if b else a for a, b in zip(args, batched)]
    holder = {}

    class _Physical(Function):
        @staticmethod
        def forward(*ps):
            wrapped = [_bt._wrap(p, level) if b else p for p, b in zip(ps, batched)]
            if cls.generate_vmap_rule:
                out = cls.forward(*wrapped)
            else:
                in_dims = tuple(0 if b else None for b in batched)
                out, out_dims = cls.vmap(VmapInfo(size, randomness), in_dims, *ps)
                was_tuple = isinstance(out, tuple)
                outs = out if was_tuple else (out,)
                ods = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(outs)
                out = tuple(o if d is None or not isinstance(o, Tensor)
                            else _bt.add_batch_dim(o, d, level) for o, d in zip(outs, ods))
                if not was_tuple:
                    out = out[0]
            ctx = _Ctx(tuple(isinstance(p, Tensor) and p.requires_grad for p in ps))
            cls.setup_context(ctx, tuple(wrapped), out)
            holder["ctx"] = ctx
            is_tuple = isinstance(out, tuple)
            holder["is_tuple"] = is_tuple
            outs = out if is_tuple else (out,)
            res = tuple(_bt.remove_batch_dim(o, level, size, 0) if isinstance(o, Tensor) else o
                        for o in outs)
            return res if is_tuple else res[0]

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(_ctx, *grads):
            ctx = holder["ctx"]
            with _at_level(level, size, randomness):
                gw = [None if g is None else _bt._wrap(g, level) for g in grads]
                res = cls.backward(ctx, *gw)
                res = res if isinstance(res, tuple) else (res,)
                out = []
                for g, p, b in zip(res, phys, batched):
                    if g is None or not isinstance(g, Tensor):
                        out.append(None)
                    elif b:
                        out.append(_bt.remove_batch_dim(g, level, size, 0))
                    elif _bt.is_batched(g, level):
                        out.append(g._value.sum(0))
                    else:
                        out.append(g)
            return tuple(out)

    _Physical.__name__ = f"{name}Vmapped"
    r = _Physical.apply(*phys)
    if isinstance(r, tuple):
        return tuple(_bt._wrap(o, level) if isinstance(o, Tensor) else o for o in r)
    return _bt._wrap(r, level)


_bt.FUNCTION_APPLY[0] = vmap_apply
