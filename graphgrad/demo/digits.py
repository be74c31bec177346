"""The main job: train a small network on scikit-learn's handwritten digits.

``python -m graphgrad.demo`` builds an MLP with ``graphgrad.nn``, feeds it with a
``DataLoader`` over a ``TensorDataset``, trains it with ``optim.Adam`` and
``nn.CrossEntropyLoss`` (a tqdm bar per epoch), prints the test accuracy, writes the loss /
accuracy curves as a PNG and saves the weights with ``graphgrad.save`` -- in PyTorch's file
format, so ``torch.load`` reads them.  ``--compare-torch`` trains the same network from the
same initial weights on the same batches with PyTorch (when it is installed) and prints both
runs' final values side by side.

The training code is written once against the PyTorch API and run with ``lib = graphgrad``
(and ``lib = torch`` for the comparison): graphgrad is a drop-in replacement.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import graphgrad


def load_data(seed=0, test_fraction=0.2):
    """The 1797 8x8 digit images (scaled to [0, 1]) and labels, split into train / test."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise SystemExit("the demo needs scikit-learn (and tqdm, matplotlib): "
                         'pip install ".[demo]"') from None
    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32)
    y = y.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(round(len(x) * test_fraction))
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


class EpochShuffle:
    """A sampler (any iterable of indices will do): a fresh permutation each epoch from a
    NumPy generator, so that graphgrad and PyTorch see the same batches."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        return iter(self.rng.permutation(self.n).tolist())

    def __len__(self):
        return self.n


def build_model(lib, hidden=128):
    nn = lib.nn
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def initial_state(lib, seed):
    """The network's initial weights as NumPy arrays (PyTorch's default initialisation)."""
    lib.manual_seed(seed)
    return {k: v.detach().numpy().copy() for k, v in build_model(lib).state_dict().items()}


def _bar(total, desc, enabled):
    """A tqdm progress bar over one epoch's batches (None without progress or tqdm)."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="batch", leave=True, dynamic_ncols=True)


def accuracy(lib, model, x, y):
    model.eval()
    with lib.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def train(lib, data, init, epochs=20, batch_size=64, lr=3e-3, seed=0, progress=True,
          out=print):
    """Train with ``lib`` (graphgrad or torch) from the weights ``init``; returns the model
    and the per-epoch history (mean train loss, test accuracy, seconds)."""
    x_train, y_train, x_test, y_test = data
    model = build_model(lib)
    model.load_state_dict({k: lib.tensor(v) for k, v in init.items()})
    dataset = lib.utils.data.TensorDataset(lib.tensor(x_train), lib.tensor(y_train))
    loader = lib.utils.data.DataLoader(dataset, batch_size=batch_size,
                                       sampler=EpochShuffle(len(dataset), seed))
    optimizer = lib.optim.Adam(model.parameters(), lr=lr)
    scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = lib.nn.CrossEntropyLoss()
    xt, yt = lib.tensor(x_test), lib.tensor(y_test)
    history = {"loss": [], "test_acc": [], "seconds": 0.0}
    name = lib.__name__
    start = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        total, count = 0.0, 0
        bar = _bar(len(loader), f"{name} epoch {epoch + 1:2d}/{epochs}", progress)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(yb)
            count += len(yb)
            if bar is not None:
                bar.set_postfix(loss=f"{total / count:.4f}", refresh=False)
                bar.update(1)
        scheduler.step()
        acc = accuracy(lib, model, xt, yt)
        history["loss"].append(total / count)
        history["test_acc"].append(acc)
        if bar is not None:
            bar.set_postfix(loss=f"{total / count:.4f}", test_acc=f"{acc:.2%}")
            bar.close()
        elif out is not None:
            out(f"{name} epoch {epoch + 1:2d}/{epochs}  loss {total / count:.4f}  "
                f"test accuracy {acc:.2%}")
    history["seconds"] = time.perf_counter() - start
    return model, history


def plot(histories, path):
    """Loss and test-accuracy curves per epoch, one line per library; False without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return False
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for name, h in histories.items():
        epochs = range(1, len(h["loss"]) + 1)
        style = "-" if name == "graphgrad" else "--"
        ax_loss.plot(epochs, h["loss"], style, marker="o", ms=3, label=name)
        ax_acc.plot(epochs, [100 * a for a in h["test_acc"]], style, marker="o", ms=3,
                    label=name)
    ax_loss.set(title="training loss (cross-entropy)", xlabel="epoch", ylabel="loss",
                yscale="log")
    ax_acc.set(title="test accuracy", xlabel="epoch", ylabel="accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("MLP on scikit-learn's digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def _one_blas_thread():
    """Limit NumPy's BLAS to one thread: for these small matrices more threads only add
    synchronisation (and on a busy machine they make each product many times slower)."""
    try:
        from threadpoolctl import threadpool_limits   # installed with scikit-learn
    except ImportError:
        return None
    return threadpool_limits(limits=1, user_api="blas")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m graphgrad.demo", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="graphgrad-demo",
                   help="directory for the curves PNG and the saved weights")
    p.add_argument("--compare-torch", action="store_true",
                   help="also train with PyTorch from the same initial weights")
    p.add_argument("--no-progress", action="store_true", help="print one line per epoch "
                   "instead of progress bars")
    args = p.parse_args(argv)
    progress = not args.no_progress
    torch = None
    if args.compare_torch:
        try:
            import torch
        except ImportError:
            print("--compare-torch: PyTorch is not installed; training with graphgrad only")

    if torch is not None:
        torch.set_num_threads(1)   # the same single compute thread as graphgrad's NumPy
    limits = _one_blas_thread()
    try:
        return _run(graphgrad, torch, args, progress)
    finally:
        if limits is not None:
            limits.restore_original_limits()


def _run(graphgrad, torch, args, progress):
    data = load_data(args.seed)
    print(f"digits: {len(data[0])} training and {len(data[2])} test images of 8x8 pixels, "
          "10 classes")
    init = initial_state(graphgrad, args.seed)
    model = build_model(graphgrad)
    print(model)
    kw = dict(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, seed=args.seed,
              progress=progress)
    model, hist = train(graphgrad, data, init, **kw)
    histories = {"graphgrad": hist}
    print(f"graphgrad: test accuracy {hist['test_acc'][-1]:.2%} after {args.epochs} epochs "
          f"({hist['seconds']:.1f} s of training)")
    if torch is not None:
        _, th = train(torch, data, init, **kw)
        histories["torch"] = th
        print()
        print(f"{'':22s}{'graphgrad':>12s}{'torch':>12s}")
        print(f"{'final train loss':22s}{hist['loss'][-1]:12.5f}{th['loss'][-1]:12.5f}")
        print(f"{'final test accuracy':22s}{hist['test_acc'][-1]:12.2%}"
              f"{th['test_acc'][-1]:12.2%}")
        print(f"{'best test accuracy':22s}{max(hist['test_acc']):12.2%}"
              f"{max(th['test_acc']):12.2%}")
        print(f"{'training time (s)':22s}{hist['seconds']:12.2f}{th['seconds']:12.2f}")
    os.makedirs(args.out, exist_ok=True)
    weights = os.path.join(args.out, "digits_mlp.pt")
    graphgrad.save(model.state_dict(), weights)
    print(f"weights saved with graphgrad.save: {weights}")
    if torch is not None:
        tm = build_model(torch)
        tm.load_state_dict(torch.load(weights))
        xt, yt = torch.tensor(data[2]), torch.tensor(data[3])
        print(f"  torch.load reads them: test accuracy in PyTorch "
              f"{accuracy(torch, tm, xt, yt):.2%}")
    png = os.path.join(args.out, "digits_curves.png")
    if plot(histories, png):
        print(f"loss/accuracy curves: {png}")
    else:
        print("matplotlib is not installed: no curves written (pip install \".[demo]\")")
    return histories


if __name__ == "__main__":
    main()
