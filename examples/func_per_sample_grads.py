"""Per-sample gradients with graphgrad.func -- the program of PyTorch's torch.func
tutorial "Per-sample-gradients", on graphgrad with a small MLP.

    python examples/func_per_sample_grads.py [--batch 64]

The gradient of the loss of every example of a batch with respect to the model's
parameters: ``vmap(grad(loss))`` computes them in one batched pass, checked against the
obvious loop (one forward and backward per example).  Prints the largest difference and
both times.
"""
from __future__ import annotations

import argparse
import time

import graphgrad as torch
import graphgrad.nn as nn
import graphgrad.nn.functional as F
from graphgrad.func import functional_call, grad, vmap


class MLP(nn.Module):
    def __init__(self, n_in=20, hidden=32, n_out=10):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=64)
    args = p.parse_args(argv)

    torch.manual_seed(0)
    model = MLP()
    data = torch.randn(args.batch, 20)
    targets = torch.randint(10, (args.batch,))

    # the loop: one backward per example
    def loop_grads():
        grads = []
        for x, y in zip(data, targets):
            model.zero_grad()
            F.cross_entropy(model(x.unsqueeze(0)), y.unsqueeze(0)).backward()
            grads.append({k: p.grad.clone() for k, p in model.named_parameters()})
        return {k: torch.stack([g[k] for g in grads]) for k in grads[0]}

    # the transform: the loss of ONE example as a function of the parameters, grad of it,
    # vmapped over the batch (the parameters are not batched: in_dims None)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        out = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return F.cross_entropy(out, target.unsqueeze(0))

    per_sample = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))

    t0 = time.perf_counter()
    want = loop_grads()
    t1 = time.perf_counter()
    got = per_sample(params, buffers, data, targets)
    t2 = time.perf_counter()

    diff = max(float((got[k] - want[k]).abs().max()) for k in want)
    for k in want:
        print(f"{k:<12} per-sample grads {tuple(got[k].shape)}")
    print(f"max |vmap(grad) - loop| = {diff:.1e}")
    print(f"loop {1e3 * (t1 - t0):.1f} ms, vmap(grad) {1e3 * (t2 - t1):.1f} ms "
          f"(batch {args.batch})")
    if not diff <= 1e-5:   # float32
        raise SystemExit("per-sample gradients differ from the loop's")


if __name__ == "__main__":
    main()
