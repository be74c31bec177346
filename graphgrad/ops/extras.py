"""Extras: the slow path of dispatch (``tls.extras_on``): inference mode, saved-tensor hooks, anomaly
mode and forward AD's tangents.
"""
from __future__ import annotations

from .._core.state import tls
from ..autograd.graph import Node
from .._core.version import INFERENCE
from ..autograd.saved import SavedVariable
from .node import FormulaNode
from ..autograd.anomaly_mode import record_traceback

# ====================================================================== extras
def _run_extras(op, args, outs):
    """Inference mode, saved-tensor hooks, anomaly mode, forward AD: only reached when one
    of them is on (``tls.extras_on``), so the fast path pays a single flag test."""
    if not tls.extra_ops:  # (e.g. only a profiler or autocast is on)
        return
    if tls.inference:
        for o in outs:
            if o._vc is None:
                o._vc = INFERENCE
    node = outs[0]._grad_fn if outs else None
    if node is not None and node.__class__ is not Node and isinstance(node, FormulaNode):
        if tls.saved_hooks:
            for s in node._saved:
                if s.__class__ is SavedVariable and s.packed is None:
                    s.pack_with_hooks()
            node._has_hooks = node._runs_user_code = True  # (its unpack hooks)
        if tls.anomaly:
            record_traceback(node)
    if tls.fw_level is not None:
        from .forward_mode import push_tangents
        push_tangents(op, args, outs)
