"""Run every seed example with one library and print the results as JSON.

``python runner.py torch`` runs them on PyTorch; ``python runner.py graphgrad``
runs the same files with ``torch`` (and its submodules) aliased to graphgrad,
which is what "PyTorch code runs after ``import graphgrad as torch``" means.
Each example gets a fresh namespace with the imports the seed text assumes.
"""
from __future__ import annotations

import contextlib
import io
import json
import pathlib
import sys
import traceback

PRELUDE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.autograd.function import once_differentiable
import itertools, math
from typing import Any, Tuple, Optional
"""


def alias_torch_to_graphgrad():
    import graphgrad
    import graphgrad.autograd
    import graphgrad.autograd.forward_ad
    import graphgrad.autograd.function
    import graphgrad.autograd.graph
    import graphgrad.nn
    import graphgrad.nn.functional
    for name, mod in [("torch", graphgrad), ("torch.nn", graphgrad.nn),
                      ("torch.nn.functional", graphgrad.nn.functional),
                      ("torch.autograd", graphgrad.autograd),
                      ("torch.autograd.function", graphgrad.autograd.function),
                      ("torch.autograd.forward_ad", graphgrad.autograd.forward_ad),
                      ("torch.autograd.graph", graphgrad.autograd.graph)]:
        sys.modules[name] = mod


def main(lib):
    if lib == "graphgrad":
        alias_torch_to_graphgrad()
    import torch
    results = {}
    here = pathlib.Path(__file__).parent
    for path in sorted(here.glob("ex_*.py")):
        torch.manual_seed(0)
        out = io.StringIO()
        exc = None
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(PRELUDE + path.read_text(), str(path), "exec"), {"__name__": "ex"})
            except Exception as e:  # the example's own error is part of its behaviour
                exc = type(e).__name__
                print("".join(traceback.format_exception_only(type(e), e)).strip(),
                      file=sys.stderr)
        results[path.name] = {"stdout": out.getvalue(), "exc": exc}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
