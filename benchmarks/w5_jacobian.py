"""W5: ``autograd.functional.jacobian(f, x, vectorize=True)``.

f(x) = sin(B @ x) * x, B 100x100 float64, x 100 float64.
The NumPy column is the analytic Jacobian
J = diag(cos(z) * x) B + diag(sin(z)) with z = B @ x.
"""

import numpy as np

from benchmarks._common import const, submodule

NAME = "W5"
TITLE = "jacobian(sin(B@x)*x), vectorize=True, n=100, float64"
GRAD_NAMES = ("jacobian",)
TOL = dict(rtol=1e-7, atol=1e-10)
TARGETS = (("torch", 1.0),)
REPS = {"quick": 15, "full": 60}
BUDGET = {"quick": 4.0, "full": 20.0}

N = 100


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "B": rng.standard_normal((N, N)) / np.sqrt(N),
        "x": rng.standard_normal(N),
    }


def build(module, data):
    return {"B": const(module, data["B"]), "x": const(module, data["x"])}


def run_graph(module, state):
    B = state["B"]
    functional = submodule(module, "autograd.functional")
    J = functional.jacobian(lambda x: module.sin(B @ x) * x, state["x"], vectorize=True)
    return (J,)


def run_numpy(data):
    B, x = data["B"], data["x"]
    z = B @ x
    J = (np.cos(z) * x)[:, None] * B
    J[np.diag_indices(N)] += np.sin(z)
    return (J,)
