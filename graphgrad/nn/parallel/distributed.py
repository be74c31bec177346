"""``nn.parallel.DistributedDataParallel`` over ``graphgrad.distributed`` (MPI).

As PyTorch's DDP: every process holds a replica; at construction rank 0's parameters and
buffers are broadcast; parameters are grouped into buckets in reverse order (the order their
gradients become ready in backward; the first bucket is capped at 1 MiB when
``bucket_cap_mb`` is left at its default, the others at ``bucket_cap_mb``), and a bucket's
non-blocking all-reduce (MPI ``Iallreduce``) is launched from the parameters'
post-accumulate-grad hooks as soon as its last gradient is ready (buckets launch in order),
so communication overlaps the rest of backward.  A final callback of the backward waits for
every bucket and writes the averaged gradients into ``.grad`` before ``backward()`` returns.

(PyTorch starts with one bucket and rebuilds the buckets after the first iteration from the
order the gradients arrived in; graphgrad builds them in reverse parameter order at once,
which is what the rebuild gives for a module whose forward uses its parameters in
definition order -- see docs/differences.md.)
"""
from __future__ import annotations

import contextlib
import time

import numpy as np

import graphgrad
from graphgrad import distributed as dist
from graphgrad.autograd.variable import Variable

from ..modules.module import Module

__all__ = ["DistributedDataParallel", "compute_bucket_assignment_by_size"]

_MB = 1024 * 1024
_FIRST_BUCKET_BYTES = 1024 * 1024   # PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES


def compute_bucket_assignment_by_size(tensors, size_limits):
    """PyTorch's ``dist._compute_bucket_assignment_by_size``: walk ``tensors`` in order,
    one open bucket per dtype; a bucket closes once it holds at least its limit in bytes
    (the first limit for a dtype's first bucket, then the next, the last one repeated).
    Returns (bucket index lists sorted by their first index, each bucket's limit)."""
    open_b, limit_i, done = {}, {}, []
    for i, t in enumerate(tensors):
        key = t.dtype
        b = open_b.setdefault(key, [[], 0])
        li = limit_i.setdefault(key, 0)
        b[0].append(i)
        b[1] += t.numel() * t.element_size()
        lim = size_limits[min(li, len(size_limits) - 1)]
        if b[1] >= lim:
            done.append((b[0], lim))
            del open_b[key]
            limit_i[key] = li + 1
    for key, b in open_b.items():
        done.append((b[0], size_limits[min(limit_i[key], len(size_limits) - 1)]))
    done.sort(key=lambda x: x[0][0])
    return [d[0] for d in done], [d[1] for d in done]


class _Bucket:
    __slots__ = ("index", "params", "pending", "flat", "req", "t_launch", "t_done", "offsets")

    def __init__(self, index, params):
        self.index = index
        self.params = params            # indices into DDP's parameter list
        self.pending = len(params)
        self.flat = None
        self.req = None
        self.t_launch = self.t_done = None
        self.offsets = None


class DistributedDataParallel(Module):
    """Wraps ``module``; gradients are averaged over the process group during backward."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        pg = dist._group(process_group)       # ValueError when not initialised, as PyTorch
        if pg is None:
            raise ValueError("DistributedDataParallel: this process is not a member of "
                             "process_group")
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.process_group = pg
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore",
                                                ()))
        cap = 25 if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap * _MB)
        first = _FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap

        # parameters as PyTorch lists them: per module, its own parameters, deduplicated
        params, names, seen = [], [], set()
        for mname, m in module.named_modules():
            for pname, p in m.named_parameters(recurse=False):
                full = f"{mname}.{pname}" if mname else pname
                if p.requires_grad and full not in self.parameters_to_ignore and \
                        id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
                    names.append(full)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self._params, self._param_names = params, names
        self._verify_shapes()
        self._sync_module_states()

        order = list(range(len(params)))[::-1]
        limits = [first, self.bucket_bytes_cap] if first < self.bucket_bytes_cap else \
            [self.bucket_bytes_cap]
        idx, _ = compute_bucket_assignment_by_size([params[i] for i in order], limits)
        # (the bucket holding the last parameters comes first: it is ready first)
        self._bucket_indices = [[order[j] for j in b] for b in idx]
        self._buckets = [_Bucket(k, b) for k, b in enumerate(self._bucket_indices)]
        self._bucket_of = {}
        for b in self._buckets:
            for i in b.params:
                self._bucket_of[i] = b
        self._reset_step()
        self._error = None
        self._launch_log = []
        self._stats = []
        self._hook_handles = [p.register_post_accumulate_grad_hook(self._make_hook(i))
                              for i, p in enumerate(params)]

    # ------------------------------------------------------------ construction helpers
    def _verify_shapes(self):
        pg = self.process_group
        if pg.size() == 1:
            return
        mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in zip(self._param_names,
                                                                  self._params)]
        allr = [None] * pg.size()
        dist.all_gather_object(allr, mine, group=pg)
        for r, theirs in enumerate(allr):
            if theirs != mine:
                raise RuntimeError(
                    f"DistributedDataParallel: the parameters of rank {pg._ranks[r]} differ "
                    f"from this rank's ({pg._ranks[pg.rank()]}): every process must build the "
                    f"same model. This rank: {mine}; rank {pg._ranks[r]}: {theirs}")

    def _ddp_buffers(self):
        return [b for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore]

    def _sync_module_states(self):
        """Broadcast rank 0's parameters and buffers (one message per tensor dtype)."""
        if self.process_group.size() == 1:
            return
        tensors = list(self._params) + self._ddp_buffers()
        with graphgrad.no_grad():
            _broadcast_coalesced(tensors, self.process_group)

    def _sync_buffers(self):
        bufs = self._ddp_buffers()
        if bufs and self.process_group.size() > 1:
            with graphgrad.no_grad():
                _broadcast_coalesced(bufs, self.process_group)

    # ------------------------------------------------------------ forward
    def forward(self, *inputs, **kwargs):
        if self._error is not None:
            raise RuntimeError(self._error)
        if graphgrad.is_grad_enabled() and self.require_backward_grad_sync:
            self._reset_step()
        if self.broadcast_buffers and self.require_forward_param_sync:
            self._sync_buffers()
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate gradients locally, without communication; the
        first backward after the block averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ------------------------------------------------------------ the reducer
    def _reset_step(self):
        for b in self._buckets:
            b.pending = len(b.params)
            b.flat = b.req = b.t_launch = b.t_done = None
        self._ready = [False] * len(self._params)
        self._next_bucket = 0
        self._queued = False
        self._t_last_ready = None

    def _make_hook(self, i):
        def hook(p):
            if not self.require_backward_grad_sync:
                return
            if not self._queued:
                self._queued = True
                Variable._execution_engine.queue_callback(self._finalize)
            if self._ready[i]:
                raise RuntimeError(
                    f"DistributedDataParallel: parameter {self._param_names[i]} got its "
                    "gradient twice in one backward (a reentrant backward or a parameter "
                    "reached twice); this is not supported")
            self._ready[i] = True
            self._t_last_ready = time.perf_counter()
            b = self._bucket_of[i]
            b.pending -= 1
            if b.pending == 0:
                self._launch_ready()
            self._progress()
        return hook

    def _launch_ready(self):
        while self._next_bucket < len(self._buckets) and \
                self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1

    def _launch(self, b):
        parts, offsets, off = [], [], 0
        for i in b.params:
            p = self._params[i]
            g = p._grad
            a = np.zeros(p.shape, _wire_dtype(p._data.dtype)) if g is None else g._data
            parts.append(np.asarray(a, _wire_dtype(p._data.dtype)).reshape(-1))
            offsets.append((off, off + parts[-1].size))
            off += parts[-1].size
        b.flat = np.concatenate(parts) if len(parts) > 1 else parts[0].copy()
        b.offsets = offsets
        b.t_launch = time.perf_counter()
        b.req = self.process_group._comm.Iallreduce(dist._MPI().IN_PLACE, b.flat,
                                                    dist._MPI().SUM)
        self._launch_log.append(b.index)

    def _progress(self):
        # drive MPI's progress engine (Open MPI advances non-blocking collectives only
        # inside MPI calls) and note when each launched bucket finished
        for b in self._buckets[:self._next_bucket]:
            if b.t_done is None and b.req.Test():
                b.t_done = time.perf_counter()

    def _finalize(self):
        if not self.require_backward_grad_sync:
            return
        unready = [k for k in range(self._next_bucket, len(self._buckets))]
        unused = [i for i, r in enumerate(self._ready) if not r]
        if unready and not self.find_unused_parameters:
            # wait for what was launched (the other ranks do the same), then refuse the next
            # forward, as PyTorch does
            for b in self._buckets[:self._next_bucket]:
                dist._poll([b.req], "DistributedDataParallel all_reduce",
                           self.process_group._timeout)
            names = [self._param_names[i] for i in unused]
            self._error = (
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one. This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing "
                "the keyword argument `find_unused_parameters=True` to "
                "`graphgrad.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss.\n"
                f"Parameter indices which did not receive grad for rank "
                f"{self.process_group.rank()}: {' '.join(map(str, unused))}\n"
                f"Parameters which did not receive grad for rank "
                f"{self.process_group.rank()}: {', '.join(names)}")
            return
        used_map = None
        if self.find_unused_parameters:
            # which parameters some rank used (PyTorch's local_used_map, all-reduced)
            used_map = np.array(self._ready, np.int32)
            req = self.process_group._comm.Iallreduce(dist._MPI().IN_PLACE, used_map,
                                                      dist._MPI().MAX)
            for b in self._buckets[self._next_bucket:]:
                self._launch(b)
            self._next_bucket = len(self._buckets)
            dist._poll([req], "DistributedDataParallel (unused parameters)",
                       self.process_group._timeout)
        n = self.process_group.size()
        for b in self._buckets:
            dist._poll([b.req], "DistributedDataParallel all_reduce",
                       self.process_group._timeout)
            if b.t_done is None:
                b.t_done = time.perf_counter()
            b.flat /= n
            for i, (lo, hi) in zip(b.params, b.offsets):
                p = self._params[i]
                if used_map is not None and not used_map[i]:
                    continue                # no rank used it: its grad stays as it was
                avg = b.flat[lo:hi].reshape(p.shape)
                g = p._grad
                if self.gradient_as_bucket_view and avg.dtype == p._data.dtype:
                    p._grad = graphgrad.Tensor._wrap(avg)
                elif g is None or not g._data.flags.writeable:
                    p._grad = graphgrad.Tensor._wrap(avg.astype(p._data.dtype))
                else:
                    g._data[...] = avg
                    g._bump_version()
        t_end = time.perf_counter()
        self._stats.append({"buckets": [(b.t_launch, b.t_done) for b in self._buckets],
                            "last_ready": self._t_last_ready, "end": t_end})
        del self._stats[:-16]
        self._reset_step()

    # ------------------------------------------------------------ PyTorch's extras
    def _get_ddp_logging_data(self):
        return {"world_size": self.process_group.size(), "backend_name": "mpi",
                "bucket_cap_bytes": self.bucket_bytes_cap,
                "find_unused_parameters": self.find_unused_parameters,
                "gradient_as_bucket_view": self.gradient_as_bucket_view,
                "bucket_sizes": ", ".join(str(sum(self._params[i].numel() *
                                                  self._params[i].element_size()
                                                  for i in b)) for b in self._bucket_indices)}

    def __getstate__(self):
        raise TypeError("DistributedDataParallel cannot be pickled: save "
                        "ddp.module.state_dict() (or ddp.state_dict()) instead")


def _wire_dtype(dt):
    return dt if dt in dist._NATIVE else np.dtype(np.float32)


def _broadcast_coalesced(tensors, pg):
    groups = {}
    for t in tensors:
        groups.setdefault(_wire_dtype(t._data.dtype), []).append(t)
    for dt, ts in groups.items():
        flat = np.concatenate([np.asarray(t._data, dt).reshape(-1) for t in ts]) \
            if ts else np.empty(0, dt)
        dist._poll([pg._comm.Ibcast(flat, 0)], "DistributedDataParallel broadcast",
                   pg._timeout)
        if pg.rank() != 0:
            off = 0
            for t in ts:
                k = t._data.size
                dist._write(t, flat[off:off + k])
                off += k
