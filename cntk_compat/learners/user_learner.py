"""Learners written in Python: derive from UserLearner and override ``update``."""
import numpy as np
import torch

from .learner import Learner, _sample_count
from .schedules import TrainingParameterSchedule, learning_parameter_schedule

__all__ = ["UserLearner"]


def _as_numpy(value):
    if isinstance(value, np.ndarray):
        return value
    held = value if isinstance(value, torch.Tensor) else getattr(value, "tensor", None)
    if isinstance(held, torch.Tensor):
        return held.detach().cpu().numpy()
    return np.asarray(value)


class UserLearner(Learner):
    """Base class of user-defined learners. Override ``update(gradient_values, training_sample_count,
    sweep_end)``: it gets a dict Parameter -> gradient (numpy arrays when ``as_numpy``, else torch tensors)
    and returns False to signal that learning has stopped. Extra state can be allocated in the constructor.
    """

    def __init__(self, parameters, lr_schedule, as_numpy=True):
        if not isinstance(lr_schedule, TrainingParameterSchedule):
            lr_schedule = learning_parameter_schedule(lr_schedule)
        super(UserLearner, self).__init__(parameters, lr_schedule)
        self.as_numpy = as_numpy

    def _update(self, gradient_values, training_sample_count, sweep_end=False):
        """Called by the Trainer: converts the gradients, calls :meth:`update`, and counts the samples."""
        if self.as_numpy:
            gradient_values = {p: _as_numpy(g) for p, g in gradient_values.items()}
        result = self.update(gradient_values, training_sample_count, sweep_end)
        self._sample_count += _sample_count(training_sample_count)
        self._minibatch_count += 1
        if sweep_end:
            self._sweep_count += 1
        return result

    def update(self, gradient_values, training_sample_count, sweep_end):
        """Updates the parameters from ``gradient_values``; must be overridden."""
        raise NotImplementedError("UserLearner.update must be overridden")
