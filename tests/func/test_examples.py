"""The torch.func tutorials' programs under examples/ run (each checks its own results
against autograd.functional or a loop over the models/examples and exits non-zero when
they differ)."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_example(name, *args):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args],
                       capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
    return p.stdout


def test_jacobians_and_hessians():
    out = run_example("func_jacobians_hessians.py")
    assert "all checks passed" in out
    for what in ("jacrev(predict, argnums=2)", "vmap(vjp_fn) over the identity",
                 "hessian(energy)", "hvp: jvp(grad(energy))", "model: jacrev over the parameters"):
        assert what in out


@pytest.mark.parametrize("batch", ["64", "5"])
def test_per_sample_gradients(batch):
    out = run_example("func_per_sample_grads.py", "--batch", batch)
    assert f"fc1.weight   per-sample grads ({batch}, 32, 20)" in out
    assert "max |vmap(grad) - loop|" in out


def test_model_ensembling():
    out = run_example("func_ensembling.py")
    assert "different minibatches: output (10, 64, 10)" in out
    assert "same minibatch:        output (10, 64, 10)" in out
