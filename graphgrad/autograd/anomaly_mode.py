"""Anomaly detection (seed 004): forward tracebacks on nodes, NaN checks in backward.

Off by default: the dispatcher reads one thread-local flag.  When on, every
node created records the stack of the forward call in
``metadata["traceback_"]``; an error raised while running a node in
backward is reported together with that traceback, and a node that returns
NaN raises ``RuntimeError("Function 'XBackward0' returned nan values in its
0th output.")`` when ``check_nan`` is on.
"""
from __future__ import annotations

import traceback
import warnings

import numpy as np

from .._state import tls
from .grad_mode import _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    return tls.anomaly


def is_anomaly_check_nan_enabled():
    return tls.anomaly_check_nan


class detect_anomaly(_DecoratorContextManager):
    """Context manager/decorator enabling anomaly detection inside the block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = (tls.anomaly, tls.anomaly_check_nan)
        tls.anomaly, tls.anomaly_check_nan = True, self.check_nan
        tls.refresh()

    def __exit__(self, *exc):
        tls.anomaly, tls.anomaly_check_nan = self.prev
        tls.refresh()

    def clone(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on/off; a function call and a context manager."""

    def __init__(self, mode, check_nan=True):
        self.prev = (tls.anomaly, tls.anomaly_check_nan)
        tls.anomaly, tls.anomaly_check_nan = bool(mode), bool(check_nan)
        tls.refresh()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        tls.anomaly, tls.anomaly_check_nan = self.prev
        tls.refresh()


def record_traceback(node):
    node.metadata["traceback_"] = traceback.format_stack()[:-3]


def _has_nan(g):
    d = g._data if hasattr(g, "_data") else g
    return d is not None and np.isnan(d).any()


def call_with_anomaly(node, grads, mask, create_graph):
    try:
        outs = node._apply(grads, mask, create_graph)
    except Exception:
        tb = node.metadata.get("traceback_") if node._metadata is not None else None
        if tb:
            warnings.warn(
                f"Error detected in {node.name()}. Traceback of forward call that caused the "
                f"error:\n{''.join(tb)}", UserWarning, stacklevel=2)
        raise
    if tls.anomaly_check_nan:
        for i, g in enumerate(outs):
            if g is not None and _has_nan(g):
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                                   "output.")
    return list(outs)
