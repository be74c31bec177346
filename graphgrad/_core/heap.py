"""glibc's heap kept for the next step's arrays: NOTE [kept heap].

NOTE [kept heap]

A training step makes and frees the same multi-MB arrays every time (activations,
gradients, log-probabilities).  NumPy takes them from malloc.  glibc's default is to hand
the free top of its heap back to the system once it exceeds twice the largest block freed
so far (the "trim threshold"), which a step's end always does: the next step then takes
a page fault for every 4 KiB page it writes again (~6,900 faults and ~9 ms of system time
per step of W8, a third of its time; docs/performance.md).  PyTorch's allocator makes the
same malloc calls but frees in an order that rarely leaves that much at the top.

So, at import, on glibc only, graphgrad asks malloc (``mallopt``) to serve blocks up to
32 MiB from the heap (glibc's own ceiling for its adaptive threshold) and to trim the heap
only when more than 64 MiB is free at its top.  A process then keeps up to 64 MiB of
freed memory for its next arrays: what any caching allocator keeps, and what PyTorch's
CUDA allocator keeps without limit.  The settings are the process's, not graphgrad's
(docs/differences.md).  They are left alone when the user chose:

* ``GRAPHGRAD_KEEP_HEAP=0`` in the environment: nothing is changed;
* any of glibc's own ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``,
  ``MALLOC_TOP_PAD_`` or ``GLIBC_TUNABLES``: those win.
"""
from __future__ import annotations

import os
import sys

M_TRIM_THRESHOLD = -1   # mallopt's parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20   # glibc refuses more than HEAP_MAX_SIZE / 2 (32 MiB on 64-bit)
TRIM_THRESHOLD = 64 << 20

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                  "GLIBC_TUNABLES")


def _glibc():
    """The process's C library if it is glibc, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return None
        import ctypes   # already imported by NumPy
        return ctypes.CDLL(None)
    except (ValueError, OSError, AttributeError):   # musl has no CS_GNU_LIBC_VERSION
        return None


def keep_freed_memory(environ=os.environ):
    """Apply NOTE [kept heap]; return True when malloc took both settings."""
    if environ.get("GRAPHGRAD_KEEP_HEAP", "1") == "0":
        return False
    if any(name in environ for name in _USER_SETTINGS):
        return False
    libc = _glibc()
    if libc is None:
        return False
    # the mmap threshold first: setting either one stops glibc's adaptive thresholds
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
