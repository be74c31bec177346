"""The workloads of ``python -m benchmarks.steady`` and what its table says about them.

Each workload is ``setup(lib) -> step`` where ``step()`` is one timed unit of work and
``lib`` is ``graphgrad`` or ``torch``; ``REPEAT[name]`` units are timed back to back per
sample.  The ``wN_*`` workloads are the modules of ``benchmarks/`` (the same ``build`` /
``run_graph`` as ``benchmarks.run``), with their parameters made once and their grads
cleared at the start of every run, as a training loop does; those with ``run_numpy``
(W1-W8) also have a NumPy step (``numpy_step``).  Nothing here imports torch or
graphgrad at module level: a child process imports only its own library.
"""
import importlib

# ----------------------------------------------------------------- workloads


def _digits(lib):
    """sklearn's digits (1797 x 64, 10 classes) when installed, else data of that shape."""
    import numpy as np
    try:
        from sklearn.datasets import load_digits
        d = load_digits()
        x, y = d.data / 16.0, d.target
    except ImportError:
        rng = np.random.default_rng(0)
        x, y = rng.random((1797, 64)), rng.integers(0, 10, 1797)
    return lib.tensor(x, dtype=lib.float32), lib.tensor(y, dtype=lib.int64)


def module_call(lib):
    """``Module.__call__`` with no hooks registered, around a forward that does nothing."""
    class Nothing(lib.nn.Module):
        def forward(self, x):
            return x

    m = Nothing()
    x = lib.zeros(1)

    def step():
        for _ in range(1000):
            m(x)
    return step


def _digits_epoch(lib, make_opt):
    lib.manual_seed(0)
    nn = lib.nn
    x, y = _digits(lib)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=64,
                                       shuffle=True)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    opt = make_opt(lib, model.parameters())
    loss_fn = nn.CrossEntropyLoss()

    def step():
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
    return step


def digits_mlp_epoch(lib):
    """One training epoch of a 64-128-64-10 MLP on digits: DataLoader (batch 64, shuffled),
    cross entropy, backward, SGD with momentum (28 steps)."""
    return _digits_epoch(lib, lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9))


def digits_adam_epoch(lib):
    """The same epoch with Adam."""
    return _digits_epoch(lib, lambda lib, ps: lib.optim.Adam(ps, lr=1e-3))


def interpolate_bilinear(lib):
    """``F.interpolate(x, scale_factor=2, mode='bilinear')`` of an (8, 16, 32, 32) float32
    batch and its backward (``autograd.grad`` of the sum)."""
    import numpy as np
    x = lib.tensor(np.random.default_rng(0).standard_normal((8, 16, 32, 32)),
                   dtype=lib.float32, requires_grad=True)

    def step():
        y = lib.nn.functional.interpolate(x, scale_factor=2, mode="bilinear")
        lib.autograd.grad(y.sum(), x)
    return step


def embedding_bag_mean(lib):
    """``nn.EmbeddingBag(20000, 64, mode='mean')`` on 256 bags of 1-40 indices (1-D input
    with offsets), float32, and its backward (``autograd.grad`` of a weighted sum)."""
    import numpy as np
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 41, 256)
    idx = lib.tensor(rng.integers(0, 20000, int(sizes.sum())))
    off = lib.tensor(np.r_[0, np.cumsum(sizes)[:-1]])
    bag = lib.nn.EmbeddingBag(20000, 64, mode="mean")
    w = lib.tensor(rng.standard_normal((256, 64)), dtype=lib.float32)

    def step():
        y = bag(idx, off)
        lib.autograd.grad((y * w).sum(), bag.weight)
    return step


def workload_module(name):
    """The ``benchmarks.wN_*`` module of a graph workload."""
    return importlib.import_module(f"benchmarks.{GRAPH_WORKLOADS[name]}")


def _graph_workload(name):
    """A ``wN_*`` module with ``make_data``/``build``/``run_graph``: parameters made once,
    their grads cleared at the start of every run (as a training loop does).  W7's unit is
    one evaluation (``value_and_grad``), not ``run_graph``'s hundred."""
    def setup(lib):
        wl = workload_module(name)
        state = wl.build(lib, wl.make_data(0))
        if name == "w7_rosenbrock":
            x = state["x"]
            return lambda: wl.value_and_grad(x)
        return lambda: wl.run_graph(lib, state)
    return setup


def numpy_step(name):
    """The hand-written NumPy unit of a workload that has ``run_numpy`` (else None): its
    ``run_numpy(data)``; for W7 one analytic evaluation, as its graph unit."""
    if name not in GRAPH_WORKLOADS:
        return None
    wl = workload_module(name)
    if not hasattr(wl, "run_numpy"):
        return None
    data = wl.make_data(0)
    if name == "w7_rosenbrock":
        return wl.peer_step("numpy", data)
    return lambda: wl.run_numpy(data)


def has_numpy(name):
    """Whether the workload has a NumPy child (its module has ``run_numpy``)."""
    return name in GRAPH_WORKLOADS and hasattr(workload_module(name), "run_numpy")


def per_sample_grads_mlp(lib):
    """Per-sample gradients, torch.func's tutorial way: ``vmap(grad(loss), in_dims=(None, 0,
    0))`` of a 64-128-10 MLP (ReLU, cross entropy, float32) over a batch of 64 examples
    (issue 21's performance bar: graphgrad <= 1.0x torch.func)."""
    import numpy as np
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))

    def loss(p, xi, yi):
        out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yi.unsqueeze(0))
    per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


def w7_func_grad(lib):
    """W7 (Rosenbrock-10, float64) by the function transform: ``func.grad(f)(x)`` -- the
    gradient only, as HIPS autograd's ``grad(f)(x)`` (its peer, ``--peers autograd``)."""
    wl = importlib.import_module("benchmarks.w7_rosenbrock")
    x = lib.tensor(wl.make_data(0)["x"])
    g = lib.func.grad(wl.rosenbrock)
    return lambda: g(x)


GRAPH_WORKLOADS = {name: name for name in (
    "w1_sin_chain", "w2_mlp", "w3_rnn", "w4_hessian", "w5_jacobian", "w6_jacfwd",
    "w7_rosenbrock", "w8_transformer", "w9_cnn")}
WORKLOADS = {**{name: _graph_workload(name) for name in GRAPH_WORKLOADS},
             "digits_mlp_epoch": digits_mlp_epoch, "digits_adam_epoch": digits_adam_epoch,
             "per_sample_grads_mlp": per_sample_grads_mlp, "w7_func_grad": w7_func_grad,
             "module_call": module_call, "interpolate_bilinear": interpolate_bilinear,
             "embedding_bag_mean": embedding_bag_mean}
# the default selection: issue 20's table (W1-W9, the digits epoch) and issue 21's
# per-sample gradients; the others run when named with --only
TABLE = ("w1_sin_chain", "w2_mlp", "w3_rnn", "w4_hessian", "w5_jacobian", "w6_jacfwd",
         "w7_rosenbrock", "w8_transformer", "w9_cnn", "digits_mlp_epoch",
         "per_sample_grads_mlp")
ALIASES = {f"W{i}": name for i, name in enumerate(GRAPH_WORKLOADS, start=1)}  # --only W3

# units per sample: one sample takes ~20-50 ms (one thread, measured on the loaded 2-core
# machine); where graphgrad and PyTorch differ by ~3x (W4-W6, the digits epoch) the repeat
# is in between (~20 ms on the faster, ~60 ms on the slower); the NumPy child times the
# same number of its (faster) units
REPEAT = {"w1_sin_chain": 3, "w2_mlp": 4, "w3_rnn": 2, "w4_hessian": 12, "w5_jacobian": 120,
          "w6_jacfwd": 80, "w7_rosenbrock": 300, "w8_transformer": 1, "w9_cnn": 2,
          "digits_mlp_epoch": 2, "digits_adam_epoch": 2, "per_sample_grads_mlp": 20,
          "w7_func_grad": 200, "module_call": 20, "interpolate_bilinear": 2,
          "embedding_bag_mean": 4}
UNITS = {"module_call": ("us/call", 1e6 / 1000), "w7_rosenbrock": ("us", 1e6),
         "w7_func_grad": ("us", 1e6)}   # (unit, factor from seconds per unit); else ms
PEER_WORKLOADS = {"w7_rosenbrock": "value_and_grad", "w7_func_grad": "grad"}  # --peers

# one row per workload in the table (compact: the README copies it)
LABELS = {
    "w1_sin_chain": "W1 1000 x (sin, * scalar), 16 float64",
    "w2_mlp": "W2 MLP step 256x784-512-512-10, float32",
    "w3_rnn": "W3 RNN 100 steps, batch 32, hidden 128, float64",
    "w4_hessian": "W4 `hessian(vectorize=True)`, n=200",
    "w5_jacobian": "W5 `jacobian(vectorize=True)`, n=100",
    "w6_jacfwd": "W6 `jacobian(strategy=\"forward-mode\")`, n=100",
    "w7_rosenbrock": "W7 Rosenbrock-10 value and gradient",
    "w8_transformer": "W8 transformer block + tied LM loss, float32",
    "w9_cnn": "W9 small CNN step, batch 64, float32",
    "digits_mlp_epoch": "digits MLP, one SGD epoch",
    "digits_adam_epoch": "digits MLP, one Adam epoch",
    "per_sample_grads_mlp": "per-sample grads, `vmap(grad(f))` vs `torch.func`",
    "w7_func_grad": "`func.grad` of W7 vs `torch.func.grad`",
    "module_call": "`Module.__call__` without hooks",
    "interpolate_bilinear": "bilinear x2 upsampling 8x16x32x32 + backward, float32",
    "embedding_bag_mean": "EmbeddingBag 20000x64 mean, 256 bags + backward, float32",
}
# issue 20's targets for graphgrad / PyTorch (issue 21's for the per-sample gradients);
# W3 is also bound by instruction counts (INSTRUCTION_TARGETS) and W2 by memory
TARGETS = {"w1_sin_chain": 0.65, "w2_mlp": 0.9, "w3_rnn": 0.9, "w4_hessian": 0.25,
           "w5_jacobian": 0.25, "w7_rosenbrock": 1.0, "w8_transformer": 1.0, "w9_cnn": 1.5,
           "digits_mlp_epoch": 1.0, "per_sample_grads_mlp": 1.0}
MEMORY_TARGETS = {"w2_mlp": 1.2}   # tracemalloc peak of one step, graphgrad / NumPy
INSTRUCTION_TARGETS = {"w3_rnn": ("W3", "W3numpy", 1.05)}  # benchmarks.instructions names


def resolve(only):
    """``--only`` text -> workload names: names, W1-W9 aliases, or ``all``."""
    if not only:
        return list(TABLE)
    names = []
    for item in (w.strip() for w in only.split(",")):
        if not item:
            continue
        if item == "all":
            names.extend(WORKLOADS)
            continue
        name = ALIASES.get(item.upper(), item)
        if name not in WORKLOADS:
            raise SystemExit(f"unknown workload {item!r}: one of {', '.join(WORKLOADS)}, "
                             f"W1-W9 or all")
        names.append(name)
    return list(dict.fromkeys(names))


def check_graph_workloads(names):
    """Run each graph workload once on graphgrad, PyTorch and (where there is one) the
    NumPy code in this process and compare the results with PyTorch's (tolerances ``TOL``
    of the workload module; W1 on its short ``check_data`` chain, whose gradient has not
    underflowed)."""
    import numpy as np
    import torch
    import graphgrad
    ok = True
    for name in names:
        if name not in GRAPH_WORKLOADS:
            continue
        wl = workload_module(name)
        data = wl.check_data(0) if hasattr(wl, "check_data") else wl.make_data(0)
        if name == "w7_rosenbrock":
            results = {lib.__name__: wl.value_and_grad(wl.build(lib, data)["x"])
                       for lib in (graphgrad, torch)}
        else:
            results = {lib.__name__: wl.run_graph(lib, wl.build(lib, data))
                       for lib in (graphgrad, torch)}
        if hasattr(wl, "run_numpy"):
            results["numpy"] = wl.run_numpy(data)
        ref = [r.detach().double().numpy() for r in results.pop("torch")]
        for lib, got in results.items():
            worst, this_ok = 0.0, len(got) == len(ref)
            for g, r in zip(got, ref):
                g = np.asarray(g.detach().numpy() if hasattr(g, "detach") else g, np.float64)
                scale = float(np.max(np.abs(r))) or 1.0
                worst = max(worst, float(np.max(np.abs(g - r))) / scale)
                if not np.allclose(g, r, rtol=wl.TOL["rtol"], atol=wl.TOL["atol"] * scale):
                    this_ok = False
            ok = ok and this_ok
            print(f"{name} {lib}: {'ok' if this_ok else 'MISMATCH'} vs torch "
                  f"(max err / max|ref| {worst:.1e})")
    return ok
