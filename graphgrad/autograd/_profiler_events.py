"""The profiler's results (autograd/profiler.py, NOTE [profiler]): ``FunctionEvent``,
``FunctionEventAvg``, ``EventList`` and PyTorch's table of them."""
from __future__ import annotations

from collections import defaultdict

from ._profiler_trace import _write_trace


class DeviceType:
    """PyTorch's ``torch.autograd.DeviceType`` (only the CPU exists here)."""
    CPU = "CPU"
    CUDA = "CUDA"


# ------------------------------------------------------------------ events
def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb = 1024
    mb = kb * 1024
    gb = mb * 1024
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return f"{nbytes} B"


class Interval:
    """PyTorch's ``time_range``: start and end in microseconds."""

    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start:.3f}, end={self.end:.3f})"


class _TimesMixin:
    """The ``*_str`` properties PyTorch's table prints."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0

    cuda_time = device_time

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    device_time_total = 0.0
    self_device_time_total = 0.0
    cuda_time_total = 0.0
    self_cuda_time_total = 0.0
    device_memory_usage = 0
    self_device_memory_usage = 0
    cuda_memory_usage = 0
    self_cuda_memory_usage = 0


class FunctionEvent(_TimesMixin):
    """One recorded event: an op (``aten::mul``), a backward node (``MulBackward0`` and
    its ``autograd::engine::evaluate_function: MulBackward0``) or a ``record_function``
    range.  Times are in microseconds."""

    count = 1
    node_id = -1
    is_async = False
    is_remote = False
    is_legacy = False
    use_device = None
    device_type = DeviceType.CPU
    overload_name = ""
    flops = 0
    scope = 0
    kernels = ()
    device_index = 0
    trace_name = None
    concrete_inputs = ()

    def __init__(self, id, name, thread, start_us, end_us, fwd_thread=None,
                 input_shapes=None, stack=None, sequence_nr=-1, cpu_memory_usage=0,
                 is_user_annotation=False, category="cpu_op"):
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.fwd_thread = fwd_thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.sequence_nr = sequence_nr
        self.cpu_memory_usage = cpu_memory_usage
        self.is_user_annotation = is_user_annotation
        self.category = category
        self.cpu_children = []
        self.cpu_parent = None

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return max(0.0, self.cpu_time_total - sum(c.cpu_time_total
                                                  for c in self.cpu_children))

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"seq_nr={self.sequence_nr}>")


class FunctionEventAvg(_TimesMixin):
    """Events of one key added up (``key_averages``)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_parent = None
        self.cpu_children = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise TypeError("FunctionEventAvg.add(): expected a FunctionEvent or a "
                            f"FunctionEventAvg, got {type(other).__name__}")
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.device_type = other.device_type
            self.is_user_annotation = other.is_user_annotation
        elif other.key != self.key:
            raise ValueError(f"FunctionEventAvg.add(): keys differ ({other.key!r} vs "
                             f"{self.key!r}); add events of one key only")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        self.flops += other.flops or 0
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str}"
                f" cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events with PyTorch's summaries: ``key_averages``, ``table``,
    ``total_average``, ``self_cpu_time_total``, ``export_chrome_trace``."""

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False
        self._trace = None  # (recorder, flows) for export_chrome_trace

    def _build_tree(self):
        """Parents and children from the events' time ranges (each thread's events
        nest)."""
        by_thread = defaultdict(list)
        for e in self:
            by_thread[e.thread].append(e)
        for events in by_thread.values():
            events.sort(key=lambda e: (e.time_range.start, -e.time_range.end, e.id))
            stack = []
            for e in events:
                while stack and stack[-1].time_range.end < e.time_range.end:
                    stack.pop()
                while stack and e.time_range.start >= stack[-1].time_range.end and \
                        e.time_range.start != e.time_range.end:
                    stack.pop()
                if stack:
                    e.cpu_parent = stack[-1]
                    stack[-1].cpu_children.append(e)
                stack.append(e)
        self._tree_built = True

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False, *, group_by_input_shapes=None):
        """Events added up per name (and input shapes, and top stack frames)."""
        if group_by_input_shapes is not None:  # (PyTorch's EventList spells it so)
            group_by_input_shape = group_by_input_shapes
        if not isinstance(group_by_stack_n, int) or group_by_stack_n < 0:
            raise ValueError("key_averages(): group_by_stack_n must be a non-negative int, "
                             f"got {group_by_stack_n!r}")
        stats = {}
        for e in self:
            key = [str(e.key), str(e.node_id), str(e.device_type), str(e.is_legacy),
                   str(e.is_user_annotation)]
            if group_by_input_shape:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += list(e.stack[:group_by_stack_n])
            key = tuple(key)
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg()
            avg.add(e)
        out = EventList(stats.values(), use_device=self._use_device,
                        profile_memory=self._profile_memory, with_flops=self._with_flops)
        for avg in out:
            avg.stack = list(avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shape:
                avg.input_shapes = ""
            if not group_by_overload_name:
                avg.overload_name = ""
        return out

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.key = None
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """PyTorch's table: one row per event, sorted by the attribute ``sort_by``."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            profile_memory=self._profile_memory,
                            top_level_events_only=top_level_events_only,
                            time_unit=time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as Trace Event Format JSON (chrome://tracing, Perfetto)."""
        _write_trace(self, path)


_SORT_KEYS = ("cpu_time", "cuda_time", "xpu_time", "cpu_time_total", "cuda_time_total",
              "xpu_time_total", "cpu_memory_usage", "cuda_memory_usage",
              "xpu_memory_usage", "self_cpu_memory_usage", "self_cuda_memory_usage",
              "self_xpu_memory_usage", "count", "self_cpu_time_total",
              "self_cuda_time_total", "self_xpu_time_total", "device_time",
              "device_time_total", "self_device_time_total", "device_memory_usage",
              "self_device_memory_usage")


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device")
        if sort_by not in _SORT_KEYS or not hasattr(events[0], attr):
            raise AttributeError(f"table(): cannot sort by {sort_by!r}; use one of "
                                 + ", ".join(_SORT_KEYS))
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    if time_unit not in (None, "s", "ms", "us"):
        raise ValueError(f"table(): time_unit must be 's', 'ms' or 'us', got {time_unit!r}")

    def fmt_time(us):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return _format_time(us)

    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    src_w = None
    if stacks:
        src_w = max(len(entry) for s in stacks for entry in s) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [(name_w, ">")] + [(12, ">")] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_w, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_w, "<"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    header_sep = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]

    def trim(path):
        if len(path) > src_w:
            path = path[len(path) - src_w:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total_self),
               fmt_time(e.self_cpu_time_total),
               _format_time_share(e.cpu_time_total, total_self) if not e.is_async else 0,
               fmt_time(e.cpu_time_total), fmt_time(e.cpu_time)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage),
                    _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if stacks:
            row.append(trim(e.stack[0]) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [trim(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(header_sep)
    lines.append(f"Self CPU time total: {fmt_time(total_self)}")
    return "".join(s + "\n" for s in lines)

