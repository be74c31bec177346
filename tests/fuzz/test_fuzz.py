"""The differential fuzzer's bounded budget in the test suite: random programs (seeded,
deterministic) on graphgrad and PyTorch must agree, except for the known differences
listed, each with its reason, in tests/fuzz/known.py. A failure prints the program and
the command that replays it. The long run: ``python -m tests.fuzz --programs 20000``."""
import os

import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

from tests.fuzz.known import KNOWN, classify  # noqa: E402
from tests.fuzz.program import generate  # noqa: E402
from tests.fuzz.runner import check  # noqa: E402

import graphgrad  # noqa: E402

BUDGET = int(os.environ.get("GRAPHGRAD_FUZZ_PROGRAMS", "400"))


@settings(max_examples=BUDGET, derandomize=True, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_random_programs_match_pytorch(seed):
    prog = generate(seed)
    new = [m for m in check(prog) if classify(prog, m) is None]
    assert not new, ("graphgrad and PyTorch differ on this program:\n" + prog.source() + "\n"
                     + "\n".join(f"  {m}" for m in new)
                     + f"\nreplay: python -m tests.fuzz --replay {seed}")


def test_known_differences_are_documented():
    """Every known difference names its status and reason, and docs/differences.md lists it."""
    here = os.path.dirname(__file__)
    with open(os.path.join(here, "..", "..", "docs", "differences.md")) as f:
        doc = f.read()
    ids = [k[0] for k in KNOWN]
    assert len(ids) == len(set(ids))
    for ident, status, reason, pred in KNOWN:
        assert status and reason and callable(pred)
        assert f"`{ident}`" in doc, f"docs/differences.md does not list {ident}"


def test_replay_is_deterministic():
    a, b = generate(12345), generate(12345)
    assert a.source() == b.source() and a.outputs == b.outputs


@pytest.mark.parametrize("seed", [722856, 748968])
def test_sgn_norm_double_backward_is_sgn_zerotensor(seed):
    """The double backward of a 1-norm differentiates sgn: PyTorch's ZeroTensor keeps it 0
    against a NaN or inf factor, graphgrad's ordinary zero gives NaN (722856: an infinite
    entry; 748968: a var without a degree of freedom, whose derivative is a NaN constant).
    Matched by the norm's pattern, not by seed."""
    prog = generate(seed)
    found = check(prog)
    assert found and {classify(prog, m) for m in found} == {"sgn-zerotensor"}


def test_floor_divide_into_a_view_keeps_the_divisor():
    """PyTorch's floor_divide_ into a view of a tensor without grad loses the edge to its
    divisor (its CopySlices takes the NotImplemented node's only edge, the divisor's, for
    the view's own): the divisor looks unused. graphgrad's floor_divide is differentiable
    (docs/differences.md) and its graph keeps the edge, so a backward runs the nodes after
    it (and raised for seed 1514760 where w.mul_(w) had changed its saved w): the
    fuzzer's `floor-divide-differentiable`."""
    def grads(T):
        d = T.tensor([-0.8], requires_grad=True)
        w = T.tensor(0.11).expand(1)
        w.floor_divide_(d)
        return T.autograd.grad(w.sum(), [d], allow_unused=True)[0]
    assert grads(torch) is None
    assert grads(graphgrad).tolist() == [0.0]
    prog = generate(1514760)
    found = check(prog)
    assert found and {classify(prog, m) for m in found} == {"floor-divide-differentiable"}
