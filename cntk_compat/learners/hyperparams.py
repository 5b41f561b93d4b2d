"""How learner factories turn their ``lr`` / ``momentum`` / ``minibatch_size`` / ``use_mean_gradient``
arguments into schedules and a reference minibatch size (CNTK 2.2+ rules, including the legacy ones)."""
import numbers
import warnings

import numpy as np

from .defaults import default_use_mean_gradient_value
from .options import AdditionalLearningOptions
from .schedules import IGNORE, ScheduleArgumentError, TrainingParameterSchedule, _is_number, learning_parameter_schedule


def reference_minibatch_size(minibatch_size, use_mean_gradient):
    """The learner's reference minibatch size: ``minibatch_size`` wins; the deprecated ``use_mean_gradient=True``
    means :data:`IGNORE`; None when neither is given."""
    if use_mean_gradient is None and default_use_mean_gradient_value():
        use_mean_gradient = True
    if minibatch_size is not None:
        if isinstance(minibatch_size, bool) or not isinstance(minibatch_size, numbers.Integral) \
                or minibatch_size < 0:
            raise ScheduleArgumentError("minibatch_size must be a non-negative integer or None, got %r"
                                        % (minibatch_size,))
        return int(minibatch_size)
    if use_mean_gradient is not None and not isinstance(use_mean_gradient, bool):
        raise TypeError("use_mean_gradient must be a bool or None, got %r" % (use_mean_gradient,))
    return IGNORE if use_mean_gradient else None


def _is_schedule_list(value):
    return isinstance(value, list) and all(_is_number(v) or isinstance(v, tuple) for v in value)


def as_schedule(value, reference, epoch_size, argument, use_mean_gradient=None):
    """A number, list or schedule -> a schedule owned by the learner (never the caller's object).

    Numbers and lists get the learner's reference minibatch size (:data:`IGNORE` when it has none); a schedule
    whose reference size was not given explicitly takes the learner's. A momentum must lie in [0, 1].
    """
    schedule = _as_schedule(value, reference, epoch_size, argument, use_mean_gradient)
    if "momentum" in argument:
        too_large = [v for v in schedule._values if v > 1]
        if too_large:
            raise ValueError("%s: a momentum must be in [0, 1] (the fraction of the previous update kept), got %r"
                             % (argument, too_large[0]))
    return schedule


def _as_schedule(value, reference, epoch_size, argument, use_mean_gradient):
    if _is_number(value) or _is_schedule_list(value):
        return learning_parameter_schedule(value, IGNORE if reference is None else reference, epoch_size)
    if isinstance(value, TrainingParameterSchedule):
        schedule = value._copy()
        if not schedule.is_minibatch_size_explicitly_specified and reference is not None:
            schedule.minibatch_size = reference
        if use_mean_gradient and schedule.minibatch_size == 1:
            # legacy combination use_mean_gradient=True + per-sample rate: the gradient is already a mean
            schedule.minibatch_size = IGNORE
            warnings.warn("use_mean_gradient=True with a per-sample learning rate is deprecated; "
                          "use the minibatch_size argument of the learner instead", DeprecationWarning,
                          stacklevel=3)
        return schedule
    raise ValueError("%s type (%s) not supported. %s must be a number, a list or a training schedule "
                     "(output of learning_parameter_schedule(), momentum_schedule() or "
                     "momentum_as_time_constant_schedule())" % (argument, type(value), argument))


def learning_rate_and_reference(lr, minibatch_size, use_mean_gradient, epoch_size):
    """(learning-rate schedule, learner reference minibatch size or None)."""
    reference = reference_minibatch_size(minibatch_size, use_mean_gradient)
    return as_schedule(lr, reference, epoch_size, "lr", use_mean_gradient), reference


def _verify_schedule(schedule, argument, made_by):
    if not isinstance(schedule, TrainingParameterSchedule):
        raise ValueError("%s type (%s) not supported. %s must be a training schedule (output of %s)"
                         % (argument, type(schedule), argument, made_by))


# CNTK 2.7's private helpers of cntk.learners, under its names and signatures: code that builds learners the way
# CNTK's own factories do (through cntk_py's native learners) calls them
def _verify_learning_rate_type(learning_rate):
    _verify_schedule(learning_rate, "learning_rate", "learning_parameter_schedule() function")


def _verify_momentum_type(momentum):
    _verify_schedule(momentum, "momentum", "momentum_schedule() or momentum_as_time_constant_schedule() function")


def _infer_ref_minibatch_size_from_legacy_use_mean_gradient(ref_minibatch_size, use_mean_gradient):
    return reference_minibatch_size(ref_minibatch_size, use_mean_gradient)


def _infer_learning_parameter_schedule(number_or_schedule, ref_minibatch_size, epoch_size, use_mean_gradient=None):
    return _as_schedule(number_or_schedule, ref_minibatch_size, epoch_size, "training parameter schedule",
                        use_mean_gradient)


def _infer_learning_rate_schedule_and_ref_minibatch_size(use_mean_gradient, ref_minibatch_size, schedule,
                                                         epoch_size):
    return learning_rate_and_reference(schedule, ref_minibatch_size, use_mean_gradient, epoch_size)


def check_bool(value, argument):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError("%s must be a bool, got %r" % (argument, value))
    return bool(value)


def check_number(value, argument, low=None, high=None):
    """A real number within [low, high] (bounds optional)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise ValueError("%s must be a number, got %r" % (argument, value))
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError("%s must be within [%s, %s], got %r" % (argument, low, high, value))
    return float(value)


def common_setup(lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight,
                 l2_regularization_weight, gaussian_noise_injection_std_dev,
                 gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation):
    """(learning-rate schedule, reference minibatch size or None, AdditionalLearningOptions)."""
    lr, reference = learning_rate_and_reference(lr, minibatch_size, use_mean_gradient, epoch_size)
    options = AdditionalLearningOptions(l1_regularization_weight, l2_regularization_weight,
                                        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample,
                                        gradient_clipping_with_truncation)
    return lr, reference, options
