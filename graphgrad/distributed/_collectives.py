"""graphgrad.distributed's collectives on tensors (in place, not recorded by autograd),
their ``Work`` handles and the polling of MPI requests (re-exported by
``graphgrad.distributed``)."""
from __future__ import annotations

import datetime
import time

import numpy as np

import graphgrad

from ._groups import DistBackendError, ReduceOp, _MPI, _group, _peer


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

