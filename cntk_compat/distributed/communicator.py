"""The workers of a distributed run, as CNTK's Communicator describes them.

Under ``torchrun`` (WORLD_SIZE > 1 in the environment) the default process group is created on first use:
gloo for CPU tensors and NCCL for CUDA tensors (one group serving both), or gloo for both where a machine's
workers outnumber its GPUs and share them (NCCL refuses two ranks on one GPU). Started any other way, the
process is the only worker, rank 0, and every collective is the identity, as CNTK without MPI.
"""
import contextlib
import datetime
import gc
import os
import socket
import sys
import weakref
import zlib

import torch
import torch.distributed as dist

from ..core.device import _local_gpu_id
from ..core.launcher import MPI_VARIABLES


# the MPI job's id (the same in all its processes, another in each mpiexec): Open MPI / PMIx
_MPI_JOB_VARIABLES = ("OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE")


def _default_port():
    """MASTER_PORT under mpiexec when it is not set: 29500, moved by the MPI job's id into 20000-29999 where
    the launcher names it, so that several mpiexec jobs on one machine (tests run in parallel) do not meet on
    one port."""
    for name in _MPI_JOB_VARIABLES:
        job = os.environ.get(name)
        if job:
            return str(20000 + zlib.crc32(job.encode()) % 10000)
    return "29500"


def _adopt_mpi_environment():
    """Under mpiexec (and not torchrun): torch's RANK, WORLD_SIZE and LOCAL_RANK from MPI's variables, with
    MASTER_ADDR 127.0.0.1 and MASTER_PORT :func:`_default_port` unless set (set MASTER_ADDR to rank 0's host,
    and MASTER_PORT, on several nodes)."""
    if "WORLD_SIZE" in os.environ:
        return
    for rank, size, local in MPI_VARIABLES:
        if rank in os.environ and size in os.environ:
            os.environ.update(RANK=os.environ[rank], WORLD_SIZE=os.environ[size],
                              LOCAL_RANK=os.environ.get(local, os.environ[rank]))
            os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
            os.environ.setdefault("MASTER_PORT", _default_port())
            return


# how many workers run on this machine: torchrun's variable, then Open MPI's and MPICH's
_LOCAL_SIZE_VARIABLES = ("LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")


def _local_worker_count():
    """The number of workers on this machine as the launcher tells it, else all of them (the safe guess for
    choosing a backend: it can only make GPUs look shared)."""
    for name in _LOCAL_SIZE_VARIABLES:
        if name in os.environ:
            try:
                return int(os.environ[name])
            except ValueError:
                raise ValueError("%s must be an integer, got %r" % (name, os.environ[name]))
    return _world_size_from_environment()


def _backend():
    """gloo for CPU tensors; for CUDA tensors NCCL where every worker of this machine has a GPU of its own, else
    gloo, which moves them through the host (several workers on one GPU, as CNTK allowed)."""
    if not torch.cuda.is_available():
        return "gloo"
    torch.cuda.set_device(_local_gpu_id())
    return "cpu:gloo,cuda:nccl" if _local_worker_count() <= torch.cuda.device_count() else "cpu:gloo,cuda:gloo"


def _world_size_from_environment():
    _adopt_mpi_environment()
    try:
        return int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        raise ValueError("WORLD_SIZE must be an integer, got %r" % os.environ["WORLD_SIZE"])


def _timeout_from_environment():
    """The process group's timeout: CNTK_DISTRIBUTED_TIMEOUT_S seconds, or torch's default (None)."""
    value = os.environ.get("CNTK_DISTRIBUTED_TIMEOUT_S")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError("CNTK_DISTRIBUTED_TIMEOUT_S must be a positive number of seconds, got %r" % value)
    return datetime.timedelta(seconds=seconds)


_finalized = [False]

# objects holding a reference to the process group (DistributedDataParallel modules) that finalize asks to let go
_group_holders = weakref.WeakSet()


def holds_process_group(holder):
    """Register ``holder``, an object with a ``release_process_group()`` method, which
    :meth:`Communicator.finalize` calls before it destroys the process group."""
    _group_holders.add(holder)


def _store_of_this_attempt(timeout):
    """(store, rank, world size) of the env:// rendezvous, the store's keys prefixed by torchrun's restart count.

    torchrun's agent keeps one TCPStore for all attempts (MASTER_ADDR:MASTER_PORT) and torch's env:// rendezvous
    adds no prefix per attempt, so the keys of the killed attempt are still there: a restarted worker would read
    the dead workers' gloo addresses and fail to connect ("Connection refused"), or connect to whatever socket
    took their port and wait forever."""
    store, rank, world_size = next(dist.rendezvous("env://", timeout=timeout))
    attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    return dist.PrefixStore("cntk_compat/attempt_%s/" % attempt, store), rank, world_size


_announced = [False]


def _announce_workers():
    """The lines CNTK's MPI wrapper prints on stderr when a process first uses MPI (once per process)."""
    _announced[0] = True
    n = dist.get_world_size() if dist.is_initialized() else 1
    r = dist.get_rank() if dist.is_initialized() else 0
    sys.stderr.write("ping [requestnodes (before change)]: %d nodes pinging each other\n"
                     "ping [requestnodes (after change)]: %d nodes pinging each other\n"
                     "requestnodes [MPIWrapperMpi]: using %d out of %d MPI nodes on a single host (%d requested); "
                     "we (%d) are in (participating)\n"
                     "ping [mpihelper]: %d nodes pinging each other\n" % (n, n, n, n, n, r, n))
    sys.stderr.flush()


def process_group_ready():
    """Whether a torch.distributed group is there (created here under torchrun); False for a lone worker and
    after :meth:`Communicator.finalize`. The first call prints CNTK's MPI start-up lines."""
    if not dist.is_available() or _finalized[0]:
        return False
    ready = _join_process_group()
    if not _announced[0]:
        _announce_workers()
    return ready


def _join_process_group():
    if not dist.is_initialized() and _world_size_from_environment() > 1:
        timeout = _timeout_from_environment()
        backend = _backend()
        with collective("joining the process group (%s, store at %s:%s)"
                        % (backend, os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")),
                        int(os.environ.get("RANK", "0")), _world_size_from_environment()):
            store, rank, world_size = _store_of_this_attempt(timeout or dist.constants.default_pg_timeout)
            # Measured, cause inside torch not found: unless torch._dynamo is imported before the group is made,
            # its gloo backend outlives destroy_process_group (held from C++) and finalize cannot end its threads
            # (tests/distributed/test_two_workers.py). DDP imports it anyway, so this costs nothing.
            import torch._dynamo  # noqa: F401
            dist.init_process_group(backend, store=store, rank=rank, world_size=world_size, timeout=timeout)
    return dist.is_initialized()


class DistributedError(RuntimeError):
    """A collective operation failed: another worker died, hung past the timeout, or ran a different
    collective. The message names this worker and the operation."""


@contextlib.contextmanager
def collective(operation, rank=None, world_size=None):
    """Turns a failure of the collective ``operation`` (a phrase) into a :class:`DistributedError` naming this
    worker and the operation. Only collectives may run inside."""
    try:
        yield
    except DistributedError:
        raise
    except RuntimeError as e:
        raise DistributedError(describe_failure(operation, e, rank, world_size)) from e


def describe_failure(operation, error, rank=None, world_size=None):
    if rank is None:
        rank, world_size = (dist.get_rank(), dist.get_world_size()) if dist.is_initialized() else (0, 1)
    timeout = os.environ.get("CNTK_DISTRIBUTED_TIMEOUT_S")
    return ("worker %d of %d: %s failed: %s\nAnother worker probably died, hung longer than the timeout (%s), or "
            "ran a different collective; see its own output." %
            (rank, world_size, operation, str(error).strip(),
             "CNTK_DISTRIBUTED_TIMEOUT_S=%s s" % timeout if timeout else
             "torch's default; set CNTK_DISTRIBUTED_TIMEOUT_S to shorten it"))


def all_reduce_sum(tensors, what="values"):
    """Sum each tensor over all workers, in place, in one flattened bucket per dtype and device (``what`` names
    them in errors)."""
    if not tensors or not _several_workers():
        return tensors
    buckets = {}
    for t in tensors:
        buckets.setdefault((t.dtype, t.device), []).append(t)
    for group in buckets.values():
        flat = torch.cat([t.reshape(-1) for t in group])
        with collective("the all-reduce (sum) of the %s" % what):
            dist.all_reduce(flat)
        offset = 0
        for t in group:
            t.copy_(flat[offset:offset + t.numel()].view_as(t))
            offset += t.numel()
    return tensors


def _several_workers():
    return process_group_ready() and dist.get_world_size() > 1


def all_reduce_max(tensor, what="values"):
    """The elementwise maximum of ``tensor`` over all workers, in place."""
    if _several_workers():
        with collective("the all-reduce (max) of the %s" % what):
            dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
    return tensor


def broadcast_from_main(tensors, what="parameters"):
    """Overwrite each tensor, in place, with the main worker's (rank 0) value."""
    if _several_workers():
        with collective("the broadcast of the main worker's %s" % what):
            for t in tensors:
                dist.broadcast(t, src=0)
    return tensors


def all_gather_tensor(tensor, what="values"):
    """The tensors of all workers (same shape everywhere), stacked by rank: shape (workers, *tensor.shape)."""
    if not _several_workers():
        return tensor.unsqueeze(0)
    gathered = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
    with collective("the all-gather of the %s" % what):
        dist.all_gather(gathered, tensor.contiguous())
    return torch.stack(gathered)


def all_gather_object(obj, what="objects"):
    """The (picklable) objects of all workers, as a list by rank."""
    if not _several_workers():
        return [obj]
    gathered = [None] * dist.get_world_size()
    with collective("the all-gather of the %s" % what):
        dist.all_gather_object(gathered, obj)
    return gathered


class WorkerDescriptor(object):
    """One worker: its global rank and the host it runs on."""

    def __init__(self, global_rank, host_id):
        self._global_rank = int(global_rank)
        self._host_id = str(host_id)

    @property
    def global_rank(self):
        return self._global_rank

    @property
    def host_id(self):
        return self._host_id

    def is_main(self):
        return self._global_rank == 0

    def __repr__(self):
        return "WorkerDescriptor(global_rank=%d, host_id=%r)" % (self._global_rank, self._host_id)


class Communicator(object):
    """Communication among the workers of a distributed run (torch.distributed under torchrun)."""

    def workers(self):
        """The :class:`WorkerDescriptor` of every worker, by rank."""
        hosts = [socket.gethostname()] * Communicator.num_workers()
        if Communicator.num_workers() > 1:
            with collective("the all-gather of the workers' host names"):
                dist.all_gather_object(hosts, socket.gethostname())
        return [WorkerDescriptor(rank, host) for rank, host in enumerate(hosts)]

    def current_worker(self):
        """The :class:`WorkerDescriptor` of this process."""
        return WorkerDescriptor(Communicator.rank(), socket.gethostname())

    def barrier(self):
        """Wait until every worker has reached this point."""
        if Communicator.num_workers() > 1:
            with collective("the barrier"):
                dist.barrier()

    def is_main(self):
        """Whether this is the main worker (rank 0)."""
        return Communicator.rank() == 0

    @staticmethod
    def finalize():
        """End communication: wait for every worker to get here, then destroy the process group (nothing to do
        for a lone worker). Afterwards this process is a lone worker. Collective, as CNTK's (MPI_Finalize) was."""
        if dist.is_available() and dist.is_initialized():
            # The group's threads must end here, while Python runs: a gloo worker thread that drops the last
            # reference to a finished collective's tensors takes the GIL, and at interpreter shutdown that ends
            # the thread inside a destructor (std::terminate: the process aborts, and torchrun reports a failed
            # worker). So the DDP modules let go of the group, whose destructor then joins its threads; the
            # barrier's work (which references the collectives before it) is kept until then, so that no worker
            # thread drops it last.
            barrier = None
            if dist.get_world_size() > 1:
                # without it, a worker that finished first closes its connections while a peer may still
                # exchange the last collective's messages with it ("Connection reset by peer" there)
                with collective("the barrier of finalize"):
                    barrier = dist.barrier(async_op=True)
                    barrier.wait()
            for holder in list(_group_holders):
                holder.release_process_group()
            dist.destroy_process_group()
            gc.collect()        # a DDP module in a reference cycle (a user's) holds the group until collected
            del barrier
            _finalized[0] = True

    @staticmethod
    def num_workers():
        return dist.get_world_size() if process_group_ready() else 1

    @staticmethod
    def rank():
        return dist.get_rank() if process_group_ready() else 0
