"""Training (``cntk.train``): the Trainer, training sessions and their configurations."""
from . import function_training  # noqa: F401 (provides Function.train and Function.test)
from .trainer import Trainer
from .training_session import (CheckpointConfig, CrossValidationConfig, DataUnit, TestConfig, TrainingSession,
                               minibatch_size_schedule, training_session)
from . import distributed
from .distributed import *  # noqa: F401,F403 (CNTK's cntk.train star-imports its distributed module)

# names CNTK's cntk.train also exposes
from ..core.device import use_default_device  # noqa: F401,E402
from ..io.minibatch_data import MinibatchData  # noqa: F401,E402

# CNTK binds its sub-module `distributed` here too; it stays out of `import *` because cntk_compat's own
# `distributed` package (which cntk.train.distributed re-exports) is what `cntk.distributed` names
__all__ = [
    "Trainer", "TrainingSession", "training_session", "CheckpointConfig", "CrossValidationConfig", "TestConfig",
    "DataUnit", "minibatch_size_schedule", "Communicator", "DistributedLearner", "MinibatchData",
    "WorkerDescriptor", "block_momentum_distributed_learner", "data_parallel_distributed_learner",
    "mpi_communicator", "trainer", "use_default_device"
]
