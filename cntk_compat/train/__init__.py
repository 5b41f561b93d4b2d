"""Training (``cntk.train``): the Trainer, training sessions and their configurations."""
from .trainer import Trainer
from .training_session import (CheckpointConfig, CrossValidationConfig, DataUnit, TestConfig, TrainingSession,
                               minibatch_size_schedule, training_session)

__all__ = ["Trainer", "TrainingSession", "training_session", "CheckpointConfig", "CrossValidationConfig",
           "TestConfig", "DataUnit", "minibatch_size_schedule"]
