"""The BLAS floor of the BLAS-bound workloads: the matrix products graphgrad's step makes,
alone, in NumPy (``python -m benchmarks.steady`` times it as the ``blas`` child).

A NumPy-based library cannot do its step faster than NumPy's BLAS does its matrix
products, so ``blas / PyTorch`` (both one compute thread) is the lowest graphgrad / PyTorch
ratio reachable without a faster BLAS than the one NumPy ships (OpenBLAS in NumPy's
wheels; PyTorch's CPU wheels use MKL).  The products below are the gemm calls of one
graphgrad step of each workload, as NumPy hands them to ``cblas_?gemm`` (row-major;
shapes ``m x k @ k x n``; ``"T"`` an operand passed transposed, i.e. a transposed view
of a C-contiguous array), logged from the BLAS interface of the graphgrad commit of
2026-12-07 (a14ef88).  Each product writes into an output made once, and matrix-vector
products (bias gradients) and the element-wise work are left out: the floor is a lower
bound.
"""
import numpy as np

# workload -> (dtype, [(transpose a, transpose b, m, n, k, batch, calls)]): ``batch`` > 1
# is one stacked np.matmul of that many products (attention's per-head products)
PRODUCTS = {
    "w2_mlp": ("float32", [
        ("N", "N", 256, 512, 784, 1, 1), ("N", "N", 256, 512, 512, 1, 1),
        ("N", "N", 256, 10, 512, 1, 1),                                     # forward
        ("T", "N", 512, 10, 256, 1, 1), ("N", "T", 256, 512, 10, 1, 1),
        ("T", "N", 512, 512, 256, 1, 1), ("N", "T", 256, 512, 512, 1, 1),
        ("T", "N", 784, 512, 256, 1, 1),                                    # backward
    ]),
    "w3_rnn": ("float64", [
        ("N", "N", 32, 128, 128, 1, 200),                                   # forward
        ("T", "N", 128, 128, 32, 1, 200), ("N", "T", 32, 128, 128, 1, 99),  # backward
    ]),
    "w8_transformer": ("float32", [
        ("N", "T", 1024, 384, 128, 1, 1),                                   # qkv
        ("N", "N", 64, 64, 32, 64, 1), ("N", "N", 64, 32, 64, 64, 1),       # attention
        ("N", "T", 1024, 128, 128, 1, 1), ("N", "T", 1024, 512, 128, 1, 1),
        ("N", "T", 1024, 128, 512, 1, 1), ("N", "T", 1024, 1000, 128, 1, 1),  # logits
        ("N", "N", 1024, 128, 1000, 1, 1), ("T", "N", 128, 1000, 1024, 1, 1),
        ("N", "N", 1024, 512, 128, 1, 1), ("T", "N", 128, 512, 1024, 1, 1),
        ("N", "N", 1024, 128, 512, 1, 1), ("T", "N", 512, 128, 1024, 1, 1),
        ("N", "N", 1024, 128, 128, 1, 1), ("T", "N", 128, 128, 1024, 1, 1),
        ("N", "T", 64, 64, 32, 64, 1), ("T", "N", 64, 32, 64, 64, 1),
        ("N", "T", 64, 32, 64, 64, 1), ("T", "N", 32, 64, 64, 64, 1),
        ("N", "N", 1024, 128, 384, 1, 1), ("T", "N", 384, 128, 1024, 1, 1),
    ]),
}


def _operand(rng, rows, cols, transposed, batch, dtype):
    """A ``rows x cols`` operand (stacked ``batch`` deep if > 1), a transposed view of a
    C-contiguous array when ``transposed``."""
    shape = (cols, rows) if transposed else (rows, cols)
    if batch > 1:
        shape = (batch, *shape)
    a = rng.standard_normal(shape).astype(dtype)
    return np.swapaxes(a, -1, -2) if transposed else a


def has_floor(name):
    """Whether ``name`` has a BLAS floor (a ``blas`` child)."""
    return name in PRODUCTS


def blas_step(name):
    """One step's matrix products of workload ``name`` in NumPy."""
    dtype, products = PRODUCTS[name]
    rng = np.random.default_rng(0)
    calls = []
    for ta, tb, m, n, k, batch, count in products:
        a = _operand(rng, m, k, ta == "T", batch, dtype)
        b = _operand(rng, k, n, tb == "T", batch, dtype)
        # into a kept output: the products alone, without a fresh array's allocation and
        # page faults (a 4 MB result freed and made again each step cost ~30 % more here)
        calls.append((a, b, np.empty((batch, m, n) if batch > 1 else (m, n), dtype), count))

    def step():
        for a, b, out, count in calls:
            for _ in range(count):
                np.matmul(a, b, out=out)
    return step
