"""Autograd Functions used by nn.Module's machinery."""
from __future__ import annotations

from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity on a module's tensor inputs/outputs: its node (BackwardHookFunctionBackward)
    is where full backward hooks see grad_input / grad_output.  Its outputs are views of
    its inputs made inside a custom Function, so modifying them in place raises, as in
    PyTorch."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args
