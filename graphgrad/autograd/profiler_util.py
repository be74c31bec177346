"""PyTorch's ``torch.autograd.profiler_util``: the event classes and formatters, defined in
``graphgrad.autograd.profiler``."""
from __future__ import annotations

from .profiler import (DeviceType, EventList, FunctionEvent, FunctionEventAvg,  # noqa: F401
                       Interval, _format_memory, _format_time, _format_time_share,
                       _build_table)

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "DeviceType"]
