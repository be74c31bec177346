"""Run a snippet in a new interpreter: for what only a fresh process shows (what
``import graphgrad`` loads or compiles, a first call).  The checkout's graphgrad is put
first on the path, so the child imports the code under test."""
import os
import pathlib
import subprocess
import sys
import textwrap

import graphgrad

_ROOT = pathlib.Path(graphgrad.__file__).parent.parent


def run_fresh(code, **environ):
    """stdout of ``code`` (dedented) run by a new interpreter, with ``environ`` added to
    its environment (a None value removes the variable); fails on a non-zero exit, showing
    the child's stderr."""
    env = dict(os.environ, PYTHONPATH=str(_ROOT))
    for name, value in environ.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout
