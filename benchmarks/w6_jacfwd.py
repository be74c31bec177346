"""W6: ``autograd.functional.jacobian(f, x, vectorize=True, strategy="forward-mode")``.

The function of W5, f(x) = sin(B @ x) * x, B 100x100 float64, x 100 float64,
differentiated in forward mode: graphgrad pushes the 100 one-hot tangents
through f as one batch (a batched dual level), PyTorch vmaps its JVP.  The
NumPy column is the analytic Jacobian J = diag(cos(z) * x) B + diag(sin(z))
with z = B @ x (as in W5).
"""

from benchmarks._common import const, submodule
from benchmarks.w5_jacobian import N, make_data, run_numpy  # noqa: F401 (the same data)

NAME = "W6"
TITLE = 'jacobian(sin(B@x)*x), vectorize=True, strategy="forward-mode", n=100, float64'
GRAD_NAMES = ("jacobian",)
TOL = dict(rtol=1e-7, atol=1e-10)
TARGETS = (("torch", 1.0),)
REPS = {"quick": 15, "full": 60}
BUDGET = {"quick": 4.0, "full": 20.0}


def build(module, data):
    return {"B": const(module, data["B"]), "x": const(module, data["x"])}


def run_graph(module, state):
    B = state["B"]
    functional = submodule(module, "autograd.functional")
    J = functional.jacobian(lambda x: module.sin(B @ x) * x, state["x"], vectorize=True,
                            strategy="forward-mode")
    return (J,)
