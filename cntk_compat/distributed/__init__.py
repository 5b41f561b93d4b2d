"""Distributed training (``cntk.distributed``, also ``cntk.train.distributed``): the workers of a run under
``torchrun`` and the learners that coordinate their updates."""
from .block_momentum import block_momentum_distributed_learner
from .communicator import Communicator, WorkerDescriptor
from .data_parallel import data_parallel_distributed_learner
from .learner import DistributedLearner

__all__ = ["WorkerDescriptor", "Communicator", "DistributedLearner", "data_parallel_distributed_learner",
           "block_momentum_distributed_learner", "mpi_communicator"]


def mpi_communicator():
    """The communicator of all workers (torch.distributed plays MPI's part)."""
    return Communicator()
