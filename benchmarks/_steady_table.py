"""What ``python -m benchmarks.steady`` prints and writes: the per-workload summary of its
rounds and the markdown table (pure functions -- no timing, no processes -- so that
``tests/benchmarks`` can check them cheaply).

A round is ``{lib: result}`` with ``lib`` one of ``graphgrad``, ``torch``, ``numpy``,
``blas`` (the BLAS floor, ``benchmarks/_blas_floor.py``) or a ``peer:NAME``, and ``result``
what a child printed: ``median``, ``min`` and ``cpu_median`` seconds per unit, ``maxrss`` and ``traced`` bytes (``traced`` is None where the library's
allocations are invisible to tracemalloc, i.e. PyTorch).
"""
import statistics

from benchmarks._steady_workloads import (INSTRUCTION_TARGETS, LABELS, MEMORY_TARGETS,
                                          TARGETS, UNITS)

LIBS = ("graphgrad", "torch", "numpy")
MIB = 2.0 ** 20
DASH = "—"


def spread(values):
    """``(median, min, max)`` of a non-empty sequence."""
    return statistics.median(values), min(values), max(values)


def fmt_spread(values):
    """``"0.53 [0.50-0.57]"``: median [min-max] of per-round ratios, two decimals (one
    from 10 on: ``"61.3 [58.0-64.1]"``)."""
    med, lo, hi = spread(values)
    digits = 1 if med >= 10 else 2
    return f"{med:.{digits}f} [{lo:.{digits}f}-{hi:.{digits}f}]"


def fmt_bytes(n):
    """``"4.1 MiB"``, or ``"787 KiB"`` below 1 MiB."""
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n / 1024:.0f} KiB"


def verdict(value, target):
    """``"ok"`` if ``value <= target`` else ``"MISS"``."""
    return "ok" if value <= target else "MISS"


def fmt_time(seconds, name):
    """One unit's time in the workload's unit (``UNITS``; ms by default), 3 digits."""
    unit, factor = UNITS.get(name, ("ms", 1e3))
    value = seconds * factor
    text = f"{value:.3g}" if value < 1000 else f"{value:.0f}"
    return f"{text} {unit}"


def summarize(name, rounds, instructions=None):
    """The row of workload ``name`` from its rounds (list of ``{lib: result}``).

    ``time``/``cpu``/``maxrss``/``traced``: per library, the median over the rounds;
    ``ratio``/``cpu_ratio``: per peer library (``torch``, ``numpy``, ``peer:...``), the
    per-round ratios graphgrad / peer (wall and CPU time); ``floor``: the per-round ratios
    blas / PyTorch (the BLAS floor of graphgrad / PyTorch); ``instructions``: an optional
    ``(graphgrad count, NumPy count)`` of ``benchmarks.instructions``."""
    libs = [lib for lib in rounds[0] if all(lib in r for r in rounds)]
    row = {"name": name, "rounds": len(rounds), "time": {}, "cpu": {}, "maxrss": {},
           "traced": {}, "ratio": {}, "cpu_ratio": {}, "floor": None,
           "instructions": instructions}
    for lib in libs:
        row["time"][lib] = statistics.median(r[lib]["median"] for r in rounds)
        row["cpu"][lib] = statistics.median(r[lib]["cpu_median"] for r in rounds)
        row["maxrss"][lib] = statistics.median(r[lib]["maxrss"] for r in rounds)
        traced = [r[lib].get("traced") for r in rounds]
        if all(t is not None for t in traced):
            row["traced"][lib] = statistics.median(traced)
    if "graphgrad" in libs:
        for peer in libs:
            if peer in ("graphgrad", "blas"):
                continue
            row["ratio"][peer] = [r["graphgrad"]["median"] / r[peer]["median"] for r in rounds]
            row["cpu_ratio"][peer] = [r["graphgrad"]["cpu_median"] / r[peer]["cpu_median"]
                                      for r in rounds]
    if "blas" in libs and "torch" in libs:
        row["floor"] = [r["blas"]["median"] / r["torch"]["median"] for r in rounds]
    return row


def targets_cell(row):
    """The row's targets and whether the median meets them: vs PyTorch (``TARGETS``), the
    tracemalloc peak vs NumPy's (``MEMORY_TARGETS``), the instruction count vs NumPy's
    (``INSTRUCTION_TARGETS``, when measured)."""
    name, parts = row["name"], []
    if name in TARGETS:
        target = TARGETS[name]
        ratios = row["ratio"].get("torch")
        parts.append(f"≤ {target}" + (f" {verdict(statistics.median(ratios), target)}"
                                         if ratios else ""))
    if name in MEMORY_TARGETS:
        target = MEMORY_TARGETS[name]
        peak = memory_ratio(row)
        parts.append(f"peak ≤ {target}x NumPy" +
                     (f" {verdict(peak, target)}" if peak is not None else ""))
    if name in INSTRUCTION_TARGETS:
        target = INSTRUCTION_TARGETS[name][2]
        counts = row.get("instructions")
        if counts:
            ratio = counts[0] / counts[1]
            parts.append(f"instructions {ratio:.3f}x NumPy ≤ {target} {verdict(ratio, target)}")
        else:
            parts.append(f"instructions ≤ {target}x NumPy")
    return "; ".join(parts)


def memory_ratio(row):
    """graphgrad's tracemalloc peak of one step / NumPy's, or None."""
    traced = row["traced"]
    if "graphgrad" in traced and traced.get("numpy"):
        return traced["graphgrad"] / traced["numpy"]
    return None


def peak_cell(row):
    """``"30.1 MiB / 28.0 MiB (1.07x)"`` (graphgrad / NumPy tracemalloc peaks), or
    graphgrad's alone."""
    traced = row["traced"]
    if "graphgrad" not in traced:
        return DASH
    if "numpy" not in traced:
        return fmt_bytes(traced["graphgrad"])
    return (f"{fmt_bytes(traced['graphgrad'])} / {fmt_bytes(traced['numpy'])} "
            f"({memory_ratio(row):.2f}x)")


def rss_cell(row):
    """``"78 / 289 / 60"``: max RSS in MiB of graphgrad / PyTorch / NumPy (— if absent)."""
    rss = row["maxrss"]
    return " / ".join(f"{rss[lib] / MIB:.0f}" if lib in rss else DASH for lib in LIBS)


HEADER = ("| workload | graphgrad | PyTorch | NumPy | graphgrad / PyTorch | target "
          "| graphgrad / NumPy | peak memory graphgrad / NumPy | max RSS MiB g / t / n |")


def table_row(row):
    """One markdown row (an ``error`` row says what failed)."""
    label = LABELS.get(row["name"], row["name"])
    if row.get("error"):
        return f"| {label} | {row['error']} |" + " |" * (HEADER.count("|") - 3)
    times = [fmt_time(row["time"][lib], row["name"]) if lib in row["time"] else DASH
             for lib in LIBS]
    ratios = [fmt_spread(row["ratio"][p]) if p in row["ratio"] else DASH
              for p in ("torch", "numpy")]
    cells = [label, *times, ratios[0], targets_cell(row), ratios[1], peak_cell(row),
             rss_cell(row)]
    return "| " + " | ".join(cells) + " |"


def markdown_table(rows):
    """The table: one row per workload."""
    lines = [HEADER, "|" + "---|" * (HEADER.count("|") - 1)]
    lines.extend(table_row(row) for row in rows)
    return "\n".join(lines)


def cpu_lines(row):
    """The CPU-time (``process_time``) medians and ratios of a row, one line per peer."""
    name, cpu, lines = row["name"], row["cpu"], []
    for peer, ratios in row["cpu_ratio"].items():
        other = peer.removeprefix("peer:")
        lines.append(f"{name} CPU time: graphgrad {fmt_time(cpu['graphgrad'], name)}, "
                     f"{other} {fmt_time(cpu[peer], name)}, graphgrad / {other} "
                     f"{fmt_spread(ratios)}")
    return lines


def peer_lines(row):
    """The NumPy-based W7 peers (``--peers``): their times and graphgrad / peer."""
    return [f"{row['name']} {peer[5:]}: {fmt_time(row['time'][peer], row['name'])}, "
            f"graphgrad / {peer[5:]} {fmt_spread(ratios)}"
            for peer, ratios in row["ratio"].items() if peer.startswith("peer:")]


def floor_lines(row):
    """The BLAS floor of a row: NumPy's matrix products of graphgrad's step alone, their
    time and its ratio to PyTorch's whole step."""
    if not row.get("floor"):
        return []
    name = row["name"]
    return [f"{name} BLAS floor (graphgrad's matrix products alone, in NumPy): "
            f"{fmt_time(row['time']['blas'], name)}, blas / PyTorch {fmt_spread(row['floor'])}"
            f" (graphgrad / PyTorch cannot go below this with NumPy's BLAS)"]


def facts_table(facts):
    """``[(key, value)]`` as a two-column markdown table."""
    return "\n".join(["| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in facts)])
