"""Differentiable collectives (PyTorch's ``torch.distributed.nn.functional``): each returns a
new tensor and has the adjoint collective as its backward (all_reduce SUM <-> all_reduce SUM,
broadcast <-> reduce to the source, all_gather <-> the own slice of the summed gradients)."""
from __future__ import annotations

import graphgrad
from graphgrad.autograd.function import Function

from .. import GroupMember, ReduceOp
from .. import all_gather as _all_gather
from .. import all_reduce as _all_reduce
from .. import broadcast as _broadcast
from .. import get_rank, get_world_size
from .. import reduce as _reduce

__all__ = ["all_reduce", "broadcast", "all_gather"]


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group, ctx.op = group, op
        out = tensor.clone()
        _all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        if ctx.op not in (ReduceOp.SUM, ReduceOp.AVG):
            raise RuntimeError(f"graphgrad.distributed.nn.functional.all_reduce: the backward "
                               f"of ReduceOp.{ReduceOp.RedOpType(ctx.op).name} is not "
                               "implemented (only SUM and AVG are differentiable)")
        g = grad.clone()
        _all_reduce(g, op=ctx.op, group=ctx.group)
        return None, None, g


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = tensor.clone()
        _broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        g = grad.clone()
        _reduce(g, ctx.src, group=ctx.group)
        if get_rank() != ctx.src:
            g = graphgrad.zeros_like(g)
        return None, None, g


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group, ctx.like = group, tensor.detach()
        outs = [graphgrad.empty_like(tensor) for _ in range(get_world_size(group))]
        _all_gather(outs, tensor.contiguous(), group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        stacked = graphgrad.stack([graphgrad.zeros_like(ctx.like) if g is None else g for g in grads])
        _all_reduce(stacked, group=ctx.group)
        return None, stacked[get_rank(ctx.group)]


def all_reduce(tensor, op=ReduceOp.SUM, group=GroupMember.WORLD):
    """A new tensor: ``tensor`` reduced over the group; differentiable (SUM, AVG)."""
    return _AllReduce.apply(op, group, tensor)


def broadcast(tensor, src, group=GroupMember.WORLD):
    """A new tensor: ``tensor`` of rank ``src``; its gradient is summed back to ``src``."""
    return _Broadcast.apply(src, group, tensor)


def all_gather(tensor, group=GroupMember.WORLD):
    """A tuple: ``tensor`` of every rank; differentiable."""
    return _AllGather.apply(group, tensor)
