"""Learners (``cntk.learners``): parameter update rules and their hyper-parameter schedules.

Built-in learners: :func:`sgd`, :func:`momentum_sgd`, :func:`nesterov`, :func:`adagrad`, :func:`fsadagrad`,
:func:`adam` (and Adamax), :func:`rmsprop`, :func:`adadelta`; :func:`universal` builds a learner from a graph of
``assign`` operations, and :class:`UserLearner` is the base of learners written in Python.
"""
from .adadelta import adadelta
from .adagrad import adagrad
from .adam import adam
from .defaults import (default_unit_gain_value, default_use_mean_gradient_value, set_default_unit_gain_value,
                       set_default_use_mean_gradient_value)
from .fsadagrad import fsadagrad
from .hyperparams import (_infer_learning_parameter_schedule,  # noqa: F401 (CNTK's private helpers)
                          _infer_learning_rate_schedule_and_ref_minibatch_size,
                          _infer_ref_minibatch_size_from_legacy_use_mean_gradient, _verify_learning_rate_type,
                          _verify_momentum_type)
from .learner import Learner
from .momentum import momentum_sgd, nesterov
from .rmsprop import rmsprop
from .schedules import (IGNORE, UnitType, learning_parameter_schedule, learning_parameter_schedule_per_sample,
                        learning_rate_schedule, momentum_as_time_constant_schedule, momentum_schedule,
                        momentum_schedule_per_sample, training_parameter_schedule)
from .sgd import sgd
from .universal import universal
from .user_learner import UserLearner

# names CNTK's cntk.learners also exposes
from ..core import asarray  # noqa: F401,E402
from ..core.value import NDArrayView  # noqa: F401,E402

__all__ = [
    "UnitType", "IGNORE", "Learner", "UserLearner", "default_unit_gain_value", "set_default_unit_gain_value",
    "training_parameter_schedule", "learning_parameter_schedule", "learning_parameter_schedule_per_sample",
    "learning_rate_schedule", "momentum_schedule", "momentum_schedule_per_sample",
    "momentum_as_time_constant_schedule", "sgd", "momentum_sgd", "nesterov", "adagrad", "fsadagrad", "adam",
    "rmsprop", "adadelta", "universal", "NDArrayView", "asarray"
]
