"""Activation checkpointing on a 16-layer MLP: peak activation memory and step time,
each layer checkpointed (``checkpoint(layer, h, use_reentrant=False)``) against plain.

    python -m benchmarks.checkpoint_mlp                  # graphgrad, the default block
    python -m benchmarks.checkpoint_mlp --block relu     # Linear -> ReLU layers
    python -m benchmarks.checkpoint_mlp --repeats 3 --steps 9

The model: 16 layers of width 1024, batch 256, float32, one compute thread. A layer
(``--block``) is ``Linear -> LayerNorm -> GELU`` (``ln-gelu``, the default), ``Linear ->
GELU`` (``gelu``) or ``Linear -> ReLU`` (``relu``). A training step is forward, a mean
squared loss, backward, and SGD applied to each parameter as soon as its gradient is
accumulated (a post-accumulate-grad hook that updates the parameter and frees its
``.grad``: PyTorch's "optimizer step in backward" pattern). Gradients are then transient,
as activations are, so the peak over the step measures what checkpointing changes.

- **Peak activation memory**: ``tracemalloc`` peak during one step minus the traced memory
  at its start (NumPy reports its array buffers to tracemalloc). It includes the backward's
  transient buffers (one layer's weight gradient, the gradient flowing back), the same in
  both runs. Measured in a step of its own: tracemalloc slows Python down.
- **Activation memory at the end of the forward**: traced memory right after the loss is
  computed minus the traced memory at the step's start: the saved tensors (and the graph)
  the backward will read, without the backward's transients. This is what checkpointing
  is meant to reduce; the whole-step peak above adds the backward's transients.
- **Step time**: ``--steps`` plain and checkpointed steps alternated after a warm-up step
  of each, tracemalloc off; the time ratio of a repetition is the median of the per-pair
  ratios (robust to the load of a shared machine), the times shown are medians.

Why ``Linear -> ReLU`` cannot gain: ReLU saves its result, which is the next Linear's
input, so the plain run keeps one batch x width tensor per layer, exactly what a
checkpoint keeps (its input); PyTorch is in the same position. Blocks with tensors saved
inside the layer (a LayerNorm's input, a GELU's input) are what per-layer checkpointing
frees.

Prints the three ratios (checkpointed / plain) per repetition and their spread. Figures:
docs/performance.md.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
import tracemalloc

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before NumPy loads its BLAS

import numpy as np  # noqa: E402

import graphgrad as gg  # noqa: E402
from graphgrad.utils.checkpoint import checkpoint  # noqa: E402

WIDTH, BATCH, LAYERS = 1024, 256, 16
LR = 1e-3


def make_layer(block):
    lin = gg.nn.Linear(WIDTH, WIDTH)
    if block == "relu":
        return gg.nn.Sequential(lin, gg.nn.ReLU())
    if block == "gelu":
        return gg.nn.Sequential(lin, gg.nn.GELU())
    if block == "ln-gelu":
        return gg.nn.Sequential(lin, gg.nn.LayerNorm(WIDTH), gg.nn.GELU())
    raise SystemExit(f"unknown --block {block!r}: relu, gelu or ln-gelu")


class Model:
    def __init__(self, block, seed=0):
        gg.manual_seed(seed)
        self.layers = [make_layer(block) for _ in range(LAYERS)]
        self.params = [p for layer in self.layers for p in layer.parameters()]
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._sgd)
        self.x = gg.randn(BATCH, WIDTH)

    @staticmethod
    def _sgd(p):
        with gg.no_grad():
            p.sub_(p.grad, alpha=LR)
        p.grad = None

    def forward(self, checkpointed):
        h = self.x
        for layer in self.layers:
            h = checkpoint(layer, h, use_reentrant=False) if checkpointed else layer(h)
        return h.pow(2).mean()

    def step(self, checkpointed):
        loss = self.forward(checkpointed)
        loss.backward()
        return float(loss)


def peak_memory(model, checkpointed):
    """Peak traced bytes above the step's starting point, over one step."""
    tracemalloc.start()
    try:
        model.step(checkpointed)  # allocations made before tracing started are not traced
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        model.step(checkpointed)
        return tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def forward_memory(model, checkpointed):
    """Traced bytes held at the end of the forward (the saved activations and the graph)
    above the step's starting point: what checkpointing is meant to reduce."""
    tracemalloc.start()
    try:
        model.step(checkpointed)
        start = tracemalloc.get_traced_memory()[0]
        loss = model.forward(checkpointed)
        held = tracemalloc.get_traced_memory()[0] - start
        loss.backward()
        return held
    finally:
        tracemalloc.stop()


def step_times(model, steps):
    """Plain and checkpointed step times, alternated step by step (the order swapped every
    other pair) so that a change in the machine's load hits both: (plain, checkpointed,
    per-pair ratios)."""
    model.step(False)  # warm-up
    model.step(True)
    plain, ckpt = [], []
    for i in range(steps):
        for checkpointed in ((False, True) if i % 2 == 0 else (True, False)):
            t0 = time.perf_counter()
            model.step(checkpointed)
            (ckpt if checkpointed else plain).append(time.perf_counter() - t0)
    return plain, ckpt, [c / p for p, c in zip(plain, ckpt)]


def check_same_gradients(block):
    """Checkpointed and plain runs take the same steps (same loss trajectory)."""
    a, b = Model(block, seed=1), Model(block, seed=1)
    la = [a.step(False) for _ in range(2)]
    lb = [b.step(True) for _ in range(2)]
    if not np.allclose(la, lb, rtol=1e-5, atol=0):
        raise SystemExit(f"checkpointed losses {lb} differ from plain {la}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--block", default="ln-gelu", help="relu, gelu or ln-gelu (default)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--steps", type=int, default=9, help="timed steps of each kind per repetition")
    args = ap.parse_args(argv)
    check_same_gradients(args.block)
    model = Model(args.block)
    mb = 2.0 ** 20
    print(f"{LAYERS}-layer MLP, width {WIDTH}, batch {BATCH}, float32, block {args.block}, "
          f"one thread")
    print(f"{'run':>4} {'fwd plain':>9} {'fwd ckpt':>8} {'fwd ratio':>9} "
          f"{'peak plain':>10} {'peak ckpt':>9} {'peak ratio':>10} {'plain s':>8} "
          f"{'ckpt s':>7} {'time ratio':>10}   (MB)")
    fwd_r, mem_r, time_r = [], [], []
    for r in range(args.repeats):
        fp, fc = forward_memory(model, False), forward_memory(model, True)
        mp, mc = peak_memory(model, False), peak_memory(model, True)
        plain, ckpt, pair_ratios = step_times(model, args.steps)
        tp, tc = statistics.median(plain), statistics.median(ckpt)
        fwd_r.append(fc / fp)
        mem_r.append(mc / mp)
        time_r.append(statistics.median(pair_ratios))
        print(f"{r + 1:>4} {fp / mb:>9.1f} {fc / mb:>8.1f} {fc / fp:>9.1%} "
              f"{mp / mb:>10.1f} {mc / mb:>9.1f} {mc / mp:>10.1%} {tp:>8.3f} "
              f"{tc:>7.3f} {time_r[-1]:>9.2f}x")

    def spread(xs, fmt):
        return f"{statistics.median(xs):{fmt}} [{min(xs):{fmt}}-{max(xs):{fmt}}]"
    print(f"end-of-forward memory ratio {spread(fwd_r, '.1%')}, whole-step peak ratio "
          f"{spread(mem_r, '.1%')}, time ratio {spread(time_r, '.2f')}x "
          f"(targets: <= 40 %, <= 1.4x)")


if __name__ == "__main__":
    main()
