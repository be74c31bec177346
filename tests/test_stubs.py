"""The type stubs (graphgrad/__init__.pyi, graphgrad/linalg/__init__.pyi): up to date with the
running package (tools/gen_stubs.py), and a typical autograd script type-checks under mypy
while real mistakes are still reported."""
import importlib.util
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "tools" / "gen_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_stubs_are_up_to_date():
    # in a fresh interpreter: tests import submodules (graphgrad.demo) that a user's
    # `import graphgrad` does not
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_stubs.py"), "--check"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


USER_SCRIPT = '''
import io

import graphgrad as torch
import graphgrad.nn.functional as F


def f(t: torch.Tensor) -> torch.Tensor:
    a = t + 1
    b = t.sin()
    c = t.sum()
    d = 2 * t - t / 2 + 1.5 ** t
    e = -t @ t
    m = t[0] + t[1:, None]
    o = (t > 0) & (t <= 1)
    t += 1
    return a + b + c + d + e + m + o.float() + t.exp().mean(dim=0, keepdim=True)


x = torch.tensor([1.0, 2.0], requires_grad=True, dtype=torch.float64)
y = torch.zeros(3, 2).normal_() @ x.unsqueeze(1)
loss = F.relu(y).pow(2).sum()
loss.backward()
grad = x.grad
if grad is not None:
    print(grad.numpy(), grad.shape[0] + 1, x.size(0), x.dim(), x.numel(), x.item())
with torch.no_grad():
    x -= 0.1 * x
(gx,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
first, second = x.unbind()
parts = torch.split(x, 1)
print(x.requires_grad, x.dtype, x.grad_fn, torch.linalg.norm(x), parts[0] + first * second)
print(torch.autograd.functional.jacobian(torch.sin, x), float(x.sum()), x.tolist())


@torch.no_grad()
def step(w: torch.Tensor) -> None:
    w.mul_(0.5)


step(x)
values, indices = torch.max(y, dim=0)
shape: torch.Size = x.shape
pooled, where = torch.adaptive_max_pool1d(y.unsqueeze(0), 1)
buf = io.BytesIO()
torch.save({"x": x}, buf)
for key, value in torch.load(buf).items():
    print(key, value)
'''

MISTAKES = '''
import graphgrad as torch
t = torch.ones(2)
a = t + "a"
b = t.no_such_method()
c: int = t.sum()
d = t.sin(1, 2)
'''


def test_typical_script_type_checks_and_mistakes_are_reported(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "script.py").write_text(textwrap.dedent(USER_SCRIPT))
    (tmp_path / "mistakes.py").write_text(textwrap.dedent(MISTAKES))
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                          "--cache-dir", str(tmp_path / "cache"),
                          str(tmp_path / "script.py"), str(tmp_path / "mistakes.py")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = out.stdout + out.stderr
    assert "script.py:" not in report, report  # no false error on the typical script
    for line, code in [(4, "operator"), (5, "attr-defined"), (6, "assignment"),
                       (7, "call-arg")]:
        assert f"mistakes.py:{line}: error:" in report and f"[{code}]" in report, report


def test_declared_returns_match_the_op_table():
    """Where the stub says an op returns a Tensor, each OpInfo sample's call gives one (and
    where it names another type, none does); ``Any`` is not checked."""
    import numpy as np

    import graphgrad
    from tests.ops.op_db import OP_DB
    from tests.ops.opinfo import materialize, resolve

    returns = _generator().RETURNS
    wrong = set()
    for op in OP_DB:
        for name in (op.name, *op.aliases):
            declared = returns.get(name.rsplit(".", 1)[-1], "Tensor")
            if name.startswith("nn.") or declared == "Any":
                continue
            for sample in op.samples(np.random.default_rng(0)):
                args, kwargs, _ = materialize(sample, graphgrad, (op.dtypes or ("float64",))[0])
                try:
                    out = resolve(graphgrad, name)(*args, **kwargs)
                except Exception:  # noqa: BLE001 - samples meant to raise
                    continue
                if (declared == "Tensor") != isinstance(out, graphgrad.Tensor):
                    wrong.add(f"{name}: stub says {declared}, returns {type(out).__name__}")
    assert not wrong, "fix RETURNS in tools/gen_stubs.py:\n" + "\n".join(sorted(wrong))
