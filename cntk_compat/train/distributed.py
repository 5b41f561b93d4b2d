"""``cntk.train.distributed``: the distributed-training API of :mod:`cntk_compat.distributed`."""
from ..distributed import (Communicator, DistributedLearner, WorkerDescriptor, block_momentum_distributed_learner,
                           data_parallel_distributed_learner, mpi_communicator)

__all__ = ["WorkerDescriptor", "Communicator", "DistributedLearner", "data_parallel_distributed_learner",
           "block_momentum_distributed_learner", "mpi_communicator"]
