"""Facts about the machine a benchmark ran on (shared by ``run.py`` and ``steady.py``).

Other processes on the 2-core machine move the timings, so every results file records
the CPU, the BLAS, the versions, the thread variables and the load average.
"""

import datetime
import os
import platform

import numpy as np

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# the order of run.py's results.md
ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS")


def machine_facts():
    """``[(key, value)]``: date, Python, platform, CPU, CPU counts, NumPy and its BLAS."""
    info = [
        ("date", datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")),
        ("python", platform.python_version()),
        ("platform", platform.platform()),
        ("cpu", cpu_model()),
        ("os.cpu_count()", str(os.cpu_count())),
    ]
    if hasattr(os, "sched_getaffinity"):
        info.append(("usable cpus (affinity)", str(len(os.sched_getaffinity(0)))))
    info.append(("numpy", np.__version__))
    info.append(("numpy BLAS", numpy_blas()))
    return info


def env_facts(environ=os.environ):
    """``[(variable, value or "(unset)")]`` for the BLAS/OpenMP variables."""
    return [(var, environ.get(var, "(unset)")) for var in ENV_VARS]


def load_avg():
    """The 1-minute load average as text (``"?"`` where there is none)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def busy_warning():
    """A warning if other processes already keep the CPUs busy, else ``""``."""
    try:
        load, ncpu = os.getloadavg()[0], os.cpu_count() or 1
    except OSError:
        return ""
    if load <= 0.5 * ncpu:
        return ""
    return (
        f"warning: load average {load:.2f} on {ncpu} cpus: other processes are "
        "running, timings (medians especially) will be disturbed"
    )


def cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numpy_blas():
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')}"
    except Exception:
        return "unknown"


def package_version(name):
    """The installed version of ``name`` without importing it (``"not installed"``)."""
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"
