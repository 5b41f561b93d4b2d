"""Options shared by all built-in learners: regularization, noise injection and gradient clipping."""
import numbers

from .schedules import TrainingParameterSchedule, training_parameter_schedule


def _non_negative(value, argument):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise ValueError("%s must be a non-negative number, got %r" % (argument, value))
    return float(value)


def _typed_field(name, check, kind):
    """A field that, like the field of CNTK's native struct, takes only values of its C++ type (TypeError)."""
    slot = "_" + name

    def get(self):
        return getattr(self, slot)

    def set_(self, value):
        if not check(value):
            raise TypeError("AdditionalLearningOptions.%s must be %s, got %r" % (name, kind, value))
        setattr(self, slot, float(value) if kind == "a number" else value)
    return property(get, set_)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


class AdditionalLearningOptions(object):
    """``l1_regularization_weight`` / ``l2_regularization_weight`` (per sample), the std-dev of the Gaussian noise
    added to parameters after each update (a number or schedule), the per-sample gradient clipping threshold and
    whether clipping truncates each value (True) or rescales the gradient's norm (False).

    Constructed without arguments it is CNTK's native struct (``cntk_py.AdditionalLearningOptions()``): its fields
    are assigned one by one (the noise std-dev as a schedule), and ``dict_options`` holds further options by
    name, such as the learner's reference minibatch size under ``Learner._MINIBATCH_SIZE``."""

    l1_regularization_weight = _typed_field("l1_regularization_weight", _is_real, "a number")
    l2_regularization_weight = _typed_field("l2_regularization_weight", _is_real, "a number")
    gradient_clipping_threshold_per_sample = _typed_field("gradient_clipping_threshold_per_sample", _is_real,
                                                          "a number")
    gradient_clipping_with_truncation = _typed_field("gradient_clipping_with_truncation",
                                                     lambda v: isinstance(v, bool), "a bool")
    gaussian_noise_injection_std_dev = _typed_field("gaussian_noise_injection_std_dev",
                                                    lambda v: isinstance(v, TrainingParameterSchedule),
                                                    "a training parameter schedule")

    def __init__(self, l1_regularization_weight=0.0, l2_regularization_weight=0.0,
                 gaussian_noise_injection_std_dev=0.0, gradient_clipping_threshold_per_sample=float("inf"),
                 gradient_clipping_with_truncation=True):
        self.l1_regularization_weight = _non_negative(l1_regularization_weight, "l1_regularization_weight")
        self.l2_regularization_weight = _non_negative(l2_regularization_weight, "l2_regularization_weight")
        if _is_real(gaussian_noise_injection_std_dev):  # a list is a schedule, checked by the schedule
            _non_negative(gaussian_noise_injection_std_dev, "gaussian_noise_injection_std_dev")
        self.gaussian_noise_injection_std_dev = training_parameter_schedule(gaussian_noise_injection_std_dev)
        self.gradient_clipping_threshold_per_sample = _non_negative(
            gradient_clipping_threshold_per_sample, "gradient_clipping_threshold_per_sample")
        self.gradient_clipping_with_truncation = gradient_clipping_with_truncation
        self.dict_options = {}
