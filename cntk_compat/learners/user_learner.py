"""Learners written in Python: derive from UserLearner and override ``update``."""
import functools

import numpy as np
import torch

from .learner import Learner, _sample_count
from .schedules import TrainingParameterSchedule, learning_parameter_schedule

__all__ = ["UserLearner"]


def _as_view(value):
    """A gradient as CNTK 2.7 hands it to UserLearner.update: an NDArrayView (its values through
    ``asarray()``/``to_ndarray()``), whatever ``as_numpy`` says."""
    from ..core.value import NDArrayView
    if isinstance(value, NDArrayView):
        return value
    held = value if isinstance(value, torch.Tensor) else getattr(value, "tensor", None)
    if isinstance(held, torch.Tensor):
        return NDArrayView._wrap(held.detach())
    return NDArrayView.from_dense(np.asarray(value))


def _learner_update(user_update):
    """A subclass's ``update`` with the gradients handed over as NDArrayViews (CNTK 2.7 does so with and without
    ``as_numpy``; converted once, also when the override calls the ``update`` of a user learner it derives from).
    The learner counts nothing, as in CNTK 2.7, whose native learner base counts samples, minibatches and sweeps in
    its built-in learners' update only: a user learner's ``learning_rate()`` stays its schedule's value at sample 0
    and its ``total_number_of_samples_seen()`` 0 (the Trainer keeps its own count)."""
    @functools.wraps(user_update)
    def update(self, gradient_values, training_sample_count, sweep_end=False):
        if self._in_update:
            return user_update(self, gradient_values, training_sample_count, sweep_end)
        _sample_count(training_sample_count)
        gradient_values = {p: _as_view(g) for p, g in gradient_values.items()}
        self._in_update = True
        try:
            return user_update(self, gradient_values, training_sample_count, sweep_end)
        finally:
            self._in_update = False
    return update


class UserLearner(Learner):
    """Base class of user-defined learners. Override ``update(gradient_values, training_sample_count,
    sweep_end)``: it gets a dict Parameter -> gradient, an NDArrayView (``g.asarray()`` is its numpy array; as
    in CNTK 2.7, also with ``as_numpy=True``, which changes nothing there) and returns False to signal that learning has stopped. Extra state can be allocated in the constructor.
    The Trainer calls ``update`` as it calls every learner's; the override is wrapped when the subclass is
    defined, so that the gradients arrive converted and the learner's sample counts advance.
    """

    _takes_random_seed = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "update" in vars(cls):
            cls.update = _learner_update(vars(cls)["update"])

    def __init__(self, parameters, lr_schedule, as_numpy=True):
        if not isinstance(lr_schedule, TrainingParameterSchedule):
            lr_schedule = learning_parameter_schedule(lr_schedule)
        super(UserLearner, self).__init__(parameters, lr_schedule)
        self.as_numpy = as_numpy
        self._in_update = False

    def update(self, gradient_values, training_sample_count, sweep_end):
        """Updates the parameters from ``gradient_values``; must be overridden."""
        raise NotImplementedError("UserLearner.update must be overridden")
