"""graphgrad benchmark suite.

Run with ``python -m benchmarks.run`` from the repository root; see
``benchmarks/README.md``.  Each workload lives in its own ``wN_*.py`` module
and exposes the small interface described in ``benchmarks/_common.py``.
"""

WORKLOADS = (
    "w1_sin_chain",
    "w2_mlp",
    "w3_rnn",
    "w4_hessian",
    "w5_jacobian",
    "w6_jacfwd",
    "w7_rosenbrock",
)
