"""NOTE [kept heap]: graphgrad keeps glibc from giving a step's freed arrays back to the
system, so the next step does not page-fault them in again."""
import json
import os

import pytest

from graphgrad._core import heap
from tests.fresh_interpreter import run_fresh

glibc = pytest.mark.skipif(heap._glibc() is None, reason="mallopt is glibc's")

# A step's worth of multi-MB arrays made, written and freed, five times after a warm-up;
# the minor page faults of those five steps are printed.
STEPS = """
    import json, resource
    import numpy as np
    {imports}
    def step():
        arrays = [np.ones((1024, 1000), np.float32) for _ in range(6)]
        return sum(float(a[0, 0]) for a in arrays)
    step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        step()
    print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before))
"""


def _faults(imports, **environ):
    return json.loads(run_fresh(STEPS.format(imports=imports), **environ))


@glibc
def test_freed_arrays_are_reused_without_page_faults():
    clean = {name: None for name in heap._USER_SETTINGS}
    kept = _faults("import graphgrad", **clean)
    # what glibc does on its own (the opt-out): each step faults its 24 MB in again
    plain = _faults("import graphgrad", GRAPHGRAD_KEEP_HEAP="0", **clean)
    assert plain > 5 * 3000, plain   # ~5,900 pages a step
    assert kept < 100, kept


@pytest.mark.parametrize("environ", [
    {"GRAPHGRAD_KEEP_HEAP": "0"},
    {"MALLOC_TRIM_THRESHOLD_": "1000000"},
    {"MALLOC_MMAP_THRESHOLD_": "1000000"},
    {"MALLOC_TOP_PAD_": "0"},
    {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"},
])
def test_the_users_own_settings_win(environ):
    assert heap.keep_freed_memory(environ) is False


@glibc
def test_settings_taken_on_glibc():
    # the values are within what glibc accepts (it refuses a larger mmap threshold)
    assert heap.keep_freed_memory({}) is True
