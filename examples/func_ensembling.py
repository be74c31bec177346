"""Model ensembling with graphgrad.func -- the program of PyTorch's torch.func tutorial
"Model ensembling", on graphgrad.

    python examples/func_ensembling.py [--models 10]

Ten MLPs of the same architecture (different initial weights) are run as one: their
parameters are stacked with ``stack_module_state`` and ``vmap`` maps ``functional_call``
over the stack -- each model on its own minibatch, or all models on the same minibatch.
Checked against calling the models one by one; prints the largest differences.
"""
from __future__ import annotations

import argparse
import copy

import graphgrad as torch
import graphgrad.nn as nn
import graphgrad.nn.functional as F
from graphgrad.func import functional_call, stack_module_state, vmap


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=10)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    num_models = args.models

    # a minibatch of 64 MNIST-sized images per model, or the same one for all models
    minibatches = torch.randn(num_models, 64, 1, 28, 28)
    minibatch = minibatches[0]

    models = [SimpleMLP() for _ in range(num_models)]
    predictions_diff = [model(mb) for model, mb in zip(models, minibatches)]
    predictions_same = [model(minibatch) for model in models]

    params, buffers = stack_module_state(models)
    # a stateless copy to call with the stacked tensors (PyTorch's tutorial moves it to the
    # 'meta' device, which graphgrad does not have: a plain copy serves as well)
    base_model = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return functional_call(base_model, (params, buffers), (x,))

    out_diff = vmap(fmodel)(params, buffers, minibatches)
    out_same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)

    d1 = float((out_diff - torch.stack(predictions_diff)).abs().max())
    d2 = float((out_same - torch.stack(predictions_same)).abs().max())
    print(f"stacked parameters: {', '.join(f'{k} {tuple(v.shape)}' for k, v in params.items())}")
    print(f"{num_models} models, different minibatches: output {tuple(out_diff.shape)}, "
          f"max |diff| vs the loop {d1:.1e}")
    print(f"{num_models} models, same minibatch:        output {tuple(out_same.shape)}, "
          f"max |diff| vs the loop {d2:.1e}")
    if not (d1 <= 1e-5 and d2 <= 1e-5):
        raise SystemExit("the vmapped ensemble differs from the models called one by one")


if __name__ == "__main__":
    main()
