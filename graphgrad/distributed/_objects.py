"""graphgrad.distributed's collectives on picklable objects (re-exported by
``graphgrad.distributed``)."""
from __future__ import annotations

import pickle

import numpy as np

from ._collectives import _poll
from ._groups import _MPI, _group, _peer


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

