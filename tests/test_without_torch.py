"""PyTorch is the oracle, not a dependency: with ``import torch`` failing, the invariant
tests run and the differential ones are skipped, with no collection error (tests/conftest.py).
"""
import os
import subprocess
import sys
import textwrap

import pytest

import tests.conftest as harness
from tests.conftest import _code_uses_oracle, _MissingTorch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_suite_files_run_with_torch_unimportable():
    files = ["tests/autograd/test_saved_variable.py", "tests/autograd/test_grad_mode.py",
             "tests/test_tensor_str.py"]
    code = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None  # "import torch" raises ImportError
        import pytest
        sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist", *{files!r}]))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    last = out.stdout.strip().splitlines()[-1]
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert " passed" in last and " skipped" in last and "error" not in last, last


def test_stand_in_binds_names_and_skips_on_use():
    torch = _MissingTorch()
    functional = torch.nn.functional  # binding a name at import time is fine
    assert "torch.nn.functional" in repr(functional)
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        functional.relu(1)
    with pytest.raises(pytest.skip.Exception):
        bool(torch.float32)
    with pytest.raises(AttributeError):
        torch.__wrapped__  # protocols probed by inspect/copy are not stand-ins


# Sample test bodies, compiled in a namespace of their own so that this file's tests
# are not themselves marked as differential.
SAMPLES = """
def _helper(lib):
    return run_both(lambda L: L.ones(2))

def own():
    return len(ROOT)

def through_a_helper():
    return _helper(None)

def nested():
    return (lambda: run_both)()

def local_import():
    import torch
"""


def test_differential_tests_are_recognised(request):
    ns = {"__name__": "tests.samples", "run_both": harness.run_both, "ROOT": ROOT}
    exec(SAMPLES, ns)

    def check(name):
        code = ns[name].__code__
        return _code_uses_oracle(code, ns, {code})
    assert not check("own")
    assert check("through_a_helper") and check("nested") and check("local_import")
    assert request.node.get_closest_marker("torch") is None  # this test is graphgrad's own
