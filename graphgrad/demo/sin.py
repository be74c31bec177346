"""The first demo (``python -m graphgrad.demo.sin``): fit y = sin(x) with a cubic
polynomial by gradient descent.

The classic PyTorch autograd example, run on graphgrad: the four coefficients
are leaf tensors, the loss is built from tensor ops, ``loss.backward()``
fills their ``.grad``, and a no_grad step updates them.  At the end it prints
the backward graph of one step as an indented tree of node names.
"""
from __future__ import annotations

import math

import graphgrad as torch


def fit(steps=2000, lr=1e-6, report_every=500, out=print):
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float64)
    y = torch.sin(x)
    a, b, c, d = (torch.randn((), dtype=torch.float64, requires_grad=True) for _ in range(4))
    loss = None
    for t in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % report_every == report_every - 1:
            out(f"step {t + 1:5d}  loss {loss.item():12.4f}")
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    return (a, b, c, d), loss


def graph_tree(tensor):
    """The backward graph below ``tensor.grad_fn`` as indented lines (iterative walk)."""
    lines = []
    stack = [(tensor.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            continue
        lines.append("  " * depth + node.name())
        for child, _ in reversed(node.next_functions):
            if child is not None:
                stack.append((child, depth + 1))
    return lines


def main():
    torch.manual_seed(0)
    (a, b, c, d), _ = fit()
    print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + "
          f"{d.item():.4f} x^3")
    x = torch.linspace(-math.pi, math.pi, 5, dtype=torch.float64)
    loss = (a + b * x + c * x ** 2 + d * x ** 3 - torch.sin(x)).pow(2).sum()
    print("Backward graph of one step:")
    for line in graph_tree(loss):
        print("  " + line)


if __name__ == "__main__":
    main()
