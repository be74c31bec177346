"""The main job (python -m graphgrad.demo) fits sin(x) and prints the backward graph."""
from __future__ import annotations

import graphgrad
from graphgrad import demo


def test_fit_reduces_the_loss_and_matches_the_closed_form_trend():
    graphgrad.manual_seed(0)
    lines = []
    (a, b, c, d), loss = demo.fit(steps=600, report_every=200, out=lines.append)
    losses = [float(line.split()[-1]) for line in lines]
    assert len(losses) == 3 and losses[0] > losses[-1]
    # the least-squares cubic for sin on [-pi, pi] is odd: b > 0, d < 0
    assert b.item() > 0.5 and d.item() < 0


def test_graph_tree_lists_node_names_indented():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * 2).sin().sum()
    assert demo.graph_tree(loss) == [
        "SumBackward0", "  SinBackward0", "    MulBackward0",
        "      torch::autograd::AccumulateGrad"]
