"""The demos: ``python -m graphgrad.demo`` trains an MLP on scikit-learn's digits (nn, optim,
DataLoader, save); ``graphgrad.demo.sin`` fits sin(x) and prints the backward graph."""
from __future__ import annotations

import runpy
import sys

import pytest

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


def test_digits_demo_reaches_95_percent_and_matches_torch(tmp_path, capsys):
    pytest.importorskip("sklearn")
    torch = pytest.importorskip("torch")
    from graphgrad.demo import digits
    threads = torch.get_num_threads()
    try:
        hist = digits.main(["--compare-torch", "--no-progress", "--epochs", "10",
                            "--out", str(tmp_path)])
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    ours, theirs = hist["graphgrad"], hist["torch"]
    assert ours["test_acc"][-1] >= 0.95
    # same initial weights, same batches: the curves agree to float32 rounding
    for a, b in zip(ours["loss"], theirs["loss"]):
        assert abs(a - b) <= 1e-4 * abs(b)
    assert abs(ours["test_acc"][-1] - theirs["test_acc"][-1]) <= 1 / 359
    assert "final test accuracy" in out and "torch.load reads them" in out
    weights = tmp_path / "digits_mlp.pt"
    sd = torch.load(weights)          # weights_only=True: graphgrad's file is plain weights
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"]
    if pytest.importorskip("matplotlib"):
        png = tmp_path / "digits_curves.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and str(png) in out


def test_python_dash_m_graphgrad_demo_runs_one_epoch(tmp_path, monkeypatch, capsys):
    """``python -m graphgrad.demo`` (run in this process by runpy, as -m does)."""
    pytest.importorskip("sklearn")
    monkeypatch.setattr(sys, "argv", ["graphgrad.demo", "--epochs", "1", "--no-progress",
                                      "--out", str(tmp_path)])
    runpy.run_module("graphgrad.demo", run_name="__main__", alter_sys=False)
    out = capsys.readouterr().out
    assert "graphgrad epoch  1/1" in out and "test accuracy" in out
    sd = graphgrad.load(tmp_path / "digits_mlp.pt")
    assert sd["0.weight"].shape == (128, 64)
