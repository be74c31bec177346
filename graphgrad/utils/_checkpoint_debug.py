"""``checkpoint(..., debug=True)``: the ops the original forward and the recomputation ran,
with where each was called from, put into the CheckpointError a mismatch raises.

PyTorch logs them with a LoggingTensorMode; here an interposer (NOTE [interposition],
graphgrad/ops/interpose.py) sees every table op and records its ``aten`` overload name and
the Python frames of its call (graphgrad's own frames left out).
"""
from __future__ import annotations

import contextlib
import os
import traceback

from ..ops.aten import overload_of
from ..ops.interpose import interposing
from ..ops.registry import OpDef

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint-debug mode globally.
"""

_TEMPLATE = """\
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.

+------------------------------------------------------------------------------+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+------------------------------------------------------------------------------+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+------------------------------------------------------------------------------+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}

+------------------------------------------------------------------------------+
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. This can happen if different operators were ran in the
 original forward and in the recomputation.

 Compare the operators listed above to see where the two runs differ; the stack
 trace of each (section 1 and 2) shows where it was called from.
--------------------------------------------------------------------------------
{error}"""


class _OpLog:
    """An interposer recording each table op's overload name and the user's frames."""

    def __init__(self):
        self.ops = []
        self.traces = []

    def __call__(self, op, call, args, kwargs):
        if op.__class__ is OpDef:
            self.ops.append(str(overload_of(op)))
            self.traces.append([f"{f.filename}:{f.lineno}:{f.name}"
                                for f in traceback.extract_stack()[:-1]
                                if not f.filename.startswith(_PACKAGE)])
        return call(args, kwargs)

    @contextlib.contextmanager
    def recording(self):
        self.ops, self.traces = [], []
        with interposing(self):
            yield

    def traces_text(self, label):
        n = len(self.ops)
        return "".join(f"{op}   ({i + 1} of {n} in {label})\n" + "\n".join(tb) + "\n\n\n"
                       for i, (op, tb) in enumerate(zip(self.ops, self.traces)))


def debug_contexts():
    """``(context_fn, error_cb)``: contexts logging the forward and the recomputation, and
    a function turning a CheckpointError into one carrying both logs."""
    fwd, rec = _OpLog(), _OpLog()

    def context_fn():
        return fwd.recording(), rec.recording()

    def error_cb(exc):
        return type(exc)(_TEMPLATE.format(
            forward_traces=fwd.traces_text("original"),
            recompute_traces=rec.traces_text("recompute"),
            forward_ops="\n".join(fwd.ops), recompute_ops="\n".join(rec.ops),
            error=str(exc)))
    return context_fn, error_cb
