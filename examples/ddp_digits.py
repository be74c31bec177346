"""Data-parallel training of the demo's MLP on scikit-learn's digits with
DistributedDataParallel over MPI.

    mpiexec -n 2 python examples/ddp_digits.py
    python -m graphgrad.distributed.run --nproc-per-node 2 examples/ddp_digits.py
    python examples/ddp_digits.py            # one process: the single-process baseline

Every process builds the same model (DDP broadcasts rank 0's weights anyway), reads its own
share of each epoch through ``DistributedSampler`` (per-rank batch = global batch / N, so the
optimiser sees the same global batch size for any N), and DDP averages the gradients while
backward runs.  Each rank prints its throughput; rank 0 prints the loss and test accuracy,
which reach the single-process run's.  Needs the ``distributed`` and ``demo`` extras.
"""
from __future__ import annotations

import argparse
import time

import graphgrad as torch
import graphgrad.distributed as dist
from graphgrad.demo.digits import build_model, load_data
from graphgrad.nn.parallel import DistributedDataParallel as DDP
from graphgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch-size", type=int, default=64, help="global batch size")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        raise SystemExit(f"--batch-size {args.batch_size} must be a multiple of the number "
                         f"of processes ({world})")
    x_train, y_train, x_test, y_test = load_data(args.seed)
    train_set = TensorDataset(torch.tensor(x_train), torch.tensor(y_train))
    sampler = DistributedSampler(train_set, seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size // world, sampler=sampler)

    torch.manual_seed(args.seed)
    model = DDP(build_model(torch))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.tensor(x_test), torch.tensor(y_test)

    seen, busy = 0, 0.0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0 = time.perf_counter()
        total = torch.zeros(2, dtype=torch.float64)     # loss sum, sample count
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += torch.tensor([loss.item() * len(yb), len(yb)], dtype=torch.float64)
            seen += len(yb)
        busy += time.perf_counter() - t0
        scheduler.step()
        dist.all_reduce(total)
        if rank == 0:
            model.eval()
            with torch.no_grad():
                acc = (model(xt).argmax(1) == yt).float().mean().item()
            print(f"epoch {epoch + 1:2d}/{args.epochs}  loss {total[0].item() / total[1].item():.4f}"
                  f"  test accuracy {acc:.2%}", flush=True)
    rates = [None] * world
    dist.all_gather_object(rates, (seen, busy))
    if rank == 0:
        for r, (n, s) in enumerate(rates):
            print(f"rank {r}: {n} samples in {s:.2f} s = {n / s:,.0f} samples/s")
        print(f"{world} process(es): {sum(n for n, _ in rates) / max(s for _, s in rates):,.0f} "
              "samples/s in total")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
