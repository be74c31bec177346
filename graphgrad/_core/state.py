"""Thread-local autograd state, read once per op on the hot path.

Every switch PyTorch keeps per thread lives on one ``threading.local``: grad
mode, inference mode, the forward-AD level, anomaly mode, saved-tensor hooks
and the profiler.  ``tls.extras_on`` is True whenever any of the rarely-used
features is on, and ``tls.plain`` when grad mode is on and no extra is, so the
dispatcher tests one flag to stay on its fast path.

NOTE [hot flags]

Reading a ``threading.local`` attribute costs several times a plain attribute read
(measured ~650 instructions on CPython 3.11), so the hot path reads ``ALL_THREADS.plain``
instead: a process-wide flag that is True while *every* thread is in the default
state (grad mode on, nothing extra).  A thread that leaves the default state holds a
``_NotPlainToken`` in its ``tls``; while any token lives ``ALL_THREADS.plain`` is False and all
threads take the (always correct) path that reads their own ``tls``.  The token is
dropped when the thread returns to the default state, or with the thread's locals
when the thread ends.

NOTE [thread dict]

``tls.__dict__`` is the calling thread's own attribute dict (what ``threading.local``
swaps in for each access), so a function that reads and writes several flags can fetch
it once and use plain dict items: one ``tls`` access instead of one per flag (a
backward's prologue and epilogue made ~25 of them, ~16 k instructions).  A name not yet
set on the thread is absent from the dict: ``get`` it with the class attribute's value
as the default (``DEFAULTS``).  ``grad_mode_set`` is the ``grad_enabled`` setter on such a
dict.
"""
from __future__ import annotations

import threading


class _AllThreads:
    """``ALL_THREADS.plain``: every thread is plain (grad mode on, no extra): NOTE [hot flags]."""

    __slots__ = ("plain",)


ALL_THREADS = _AllThreads()
ALL_THREADS.plain = True


class _Warnings:
    """``set_warn_always``: warnings PyTorch gives once per process (TORCH_WARN_ONCE) are
    given every time while ``always`` is set (process-wide, as in PyTorch)."""

    always = False


WARNINGS = _Warnings()


def set_warn_always(b):
    """PyTorch's ``torch.set_warn_always``: warn every time, not once per process."""
    WARNINGS.always = bool(b)


def is_warn_always_enabled():
    return WARNINGS.always


_not_plain_threads = 0
_not_plain_lock = threading.Lock()


class _NotPlainToken:
    """Held in ``tls.not_plain_token`` while this thread is not plain (NOTE [hot flags])."""

    __slots__ = ()

    # (acquire/release: about half the cost of a ``with`` statement, paid twice by every
    # backward, which turns grad mode off and on again)
    def __init__(self):
        global _not_plain_threads
        _not_plain_lock.acquire()
        try:
            _not_plain_threads += 1
            ALL_THREADS.plain = False
        finally:
            _not_plain_lock.release()

    def __del__(self):
        global _not_plain_threads
        _not_plain_lock.acquire()
        try:
            _not_plain_threads -= 1
            ALL_THREADS.plain = _not_plain_threads == 0
        finally:
            _not_plain_lock.release()


class _State(threading.local):
    # class attributes are each thread's starting values
    _grad_enabled = True
    plain = True            # grad_enabled and not extras_on: the dispatcher's one-flag test
    inference = False       # inside inference_mode(True)
    fw_level = None         # the active forward_ad level object, or None
    anomaly = False
    anomaly_check_nan = True
    anomaly_node = None     # anomaly mode: the node the innermost backward is processing
    saved_hooks = ()        # stack of (pack, unpack) pairs; innermost last
    saved_hooks_disabled = None  # message when disable_saved_tensors_hooks is on
    profiler = None         # the active profiler, or None
    interposers = ()        # ops/interpose.py: active interposers (profiler, autocast...)
    interpose_skip = False  # ops/interpose.py: the next op entry is the chain's own call
    mutation_ctx = None     # the active allow_mutation_on_saved_tensors, or None
    extras_on = False       # any of: inference, fw_level, saved_hooks, profiler, anomaly,
                            # interposers
    extra_ops = False       # any of what ops/extras.py's _run_extras handles (inference,
                            # fw_level, saved_hooks, anomaly): False under a profiler alone
    engine_depth = 0        # nesting of backward calls on this thread
    not_plain_token = None  # a _NotPlainToken while ``plain`` is False (see ALL_THREADS)
    engine_task = None      # the running backward (autograd/engine/task.py), or None

    @property
    def grad_enabled(self):
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, mode):
        grad_mode_set(self.__dict__, mode)

    def refresh(self):
        self.extra_ops = bool(self.inference or self.fw_level is not None or self.saved_hooks
                              or self.anomaly)
        self.extras_on = bool(self.extra_ops or self.profiler is not None
                              or self.saved_hooks_disabled or self.mutation_ctx is not None
                              or self.interposers)
        self._set_plain(bool(self._grad_enabled) and not self.extras_on)

    def _set_plain(self, plain):
        _set_plain_in(self.__dict__, plain)


tls = _State()


# each thread's starting values, the defaults of ``tls.__dict__.get`` (NOTE [thread dict])
DEFAULTS = {k: v for k, v in vars(_State).items() if not k.startswith("__") and
            not callable(v) and not isinstance(v, property)}


def grad_mode_set(d, mode):
    """``tls.grad_enabled = mode`` on ``d = tls.__dict__`` (NOTE [thread dict]); the
    property's setter is this on its own thread's dict."""
    d["_grad_enabled"] = mode
    _set_plain_in(d, bool(mode) and not d.get("extras_on", False))


def _set_plain_in(d, plain):
    """``plain`` and its token (NOTE [hot flags]) on a thread's attribute dict ``d``."""
    d["plain"] = plain
    if plain:
        d["not_plain_token"] = None
    elif d.get("not_plain_token") is None:
        d["not_plain_token"] = _NotPlainToken()
