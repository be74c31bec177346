"""Anomaly detection (seed 004): forward tracebacks on nodes, NaN checks in backward.

Off by default, and free when off: the dispatcher tests one thread-local
flag (``tls.extras_on``) per op and the engine one local boolean per node.

When on (``detect_anomaly()`` / ``set_detect_anomaly(True)``):

- every backward node created records the stack of the forward call that
  created it, as a list of formatted lines, in ``node.metadata["traceback_"]``
  (graphgrad's own frames at the end are left out).  A node created while
  backward runs with ``create_graph=True`` also records the node whose
  backward created it, in ``metadata["parent_"]``.
- an error raised while backward processes a node (its formula, its hooks, or
  the NaN check) first emits a UserWarning "Error detected in XBackward0.
  Traceback of forward call that caused the error: ..." (followed by one
  warning per ``parent_``: "Previous calculation was induced by ..."), then
  propagates unchanged -- PyTorch's behaviour.
- with ``check_nan`` (default), a node whose gradients contain NaN raises
  ``RuntimeError("Function 'DivBackward0' returned nan values in its 1th
  output.")``.
"""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from .._core.state import tls
from .grad_mode import _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_anomaly_enabled():
    """Whether anomaly detection is on (in this thread)."""
    return tls.anomaly


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection also checks backward results for NaN."""
    return tls.anomaly_check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off (PyTorch's ``torch.set_anomaly_enabled``)."""
    tls.anomaly, tls.anomaly_check_nan = bool(enabled), bool(check_nan)
    tls.refresh()


class detect_anomaly(_DecoratorContextManager):
    """Context manager (and decorator) that turns anomaly detection on inside its block.

    check_nan: raise when a backward function returns NaN (default True).
    """

    def __init__(self, check_nan=True):
        self.prev = tls.anomaly
        self.prev_check_nan = tls.anomaly_check_nan
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = tls.anomaly
        self.prev_check_nan = tls.anomaly_check_nan
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def clone(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off: as a function call (the setting stays) or as a
    context manager (restored on exit).

    mode: on (True) or off (False).  check_nan: raise when backward returns NaN.
    """

    def __init__(self, mode, check_nan=True):
        self.prev = tls.anomaly
        self.prev_check_nan = tls.anomaly_check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ------------------------------------------------------------------ forward side
def _user_stack():
    """The current stack, formatted, without graphgrad's own frames at its end."""
    import traceback  # (here, not at import: only anomaly mode's forward records stacks)
    frames = traceback.extract_stack()[:-1]
    end = len(frames)
    while end > 0 and frames[end - 1].filename.startswith(_PKG_DIR):
        end -= 1
    if end == 0:  # graphgrad calling itself (tests of graphgrad): keep everything
        end = len(frames)
    return traceback.format_list(frames[:end])


def record_traceback(node):
    """Store the forward stack (and the backward node running, if any) on ``node``.

    Called by the dispatcher for each node it creates while anomaly mode is on.
    """
    md = node.metadata
    md["traceback_"] = _user_stack()
    parent = tls.anomaly_node  # (set by the engine while it processes a node)
    if parent is not None and parent is not node:
        md["parent_"] = parent


# ------------------------------------------------------------------ backward side
def _has_nan(g):
    d = g._data if hasattr(g, "_data") else g
    if d is None:
        return False
    d = np.asarray(d)
    if d.dtype.kind not in "fc":
        try:
            d = d.astype(np.float32)  # bfloat16 / half stored as ml_dtypes
        except (TypeError, ValueError):
            return False
    return bool(np.isnan(d).any())


def check_nan(node, outs):
    """Raise if a gradient ``node`` returned contains NaN (when check_nan is on)."""
    if not tls.anomaly_check_nan:
        return
    for i, g in enumerate(outs):
        if g is not None and _has_nan(g):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


def _metadata(node):
    md = getattr(node, "_metadata", None)
    return md if md is not None else {}


def _warn(msg):
    """Warn; if the warning filters turn it into an exception (``simplefilter("error")``),
    print it to stderr instead, as PyTorch does, so that the error being reported -- not the
    warning -- is what propagates."""
    try:
        warnings.warn(msg, UserWarning, stacklevel=4)
    except Exception as exc:  # the warning raised
        sys.stderr.write(f"{type(exc).__name__}: {exc}\n")


def print_stack(node):
    """Warn with the forward traceback of ``node`` and of its ``parent_`` chain."""
    name = node.name()
    stack = _metadata(node).get("traceback_")
    if not stack:
        _warn(f"Error detected in {name}. No forward pass information available. "
              "Enable detect anomaly during forward pass for more information.")
        return
    _warn(f"Error detected in {name}. Traceback of forward call that caused the "
          f"error:\n{''.join(stack)}")
    seen = {id(node)}
    parent = _metadata(node).get("parent_")
    while parent is not None and id(parent) not in seen:
        seen.add(id(parent))
        pstack = _metadata(parent).get("traceback_")
        if not pstack:
            break
        _warn(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of "
              f"forward call that induced the previous calculation:\n{''.join(pstack)}")
        parent = _metadata(parent).get("parent_")


def report_backward_error(node):
    """Called by the engine when backward fails with anomaly mode on, with the node it was
    processing (None outside any node): print that node's forward traceback."""
    if node is not None:
        print_stack(node)
