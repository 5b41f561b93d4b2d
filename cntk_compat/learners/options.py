"""Options shared by all built-in learners: regularization, noise injection and gradient clipping."""
import numbers

from .schedules import TrainingParameterSchedule, training_parameter_schedule


def _non_negative(value, argument):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise ValueError("%s must be a non-negative number, got %r" % (argument, value))
    return float(value)


class AdditionalLearningOptions(object):
    """``l1_regularization_weight`` / ``l2_regularization_weight`` (per sample), the std-dev of the Gaussian noise
    added to parameters after each update (a number or schedule), the per-sample gradient clipping threshold and
    whether clipping truncates each value (True) or rescales the gradient's norm (False)."""

    def __init__(self, l1_regularization_weight=0.0, l2_regularization_weight=0.0,
                 gaussian_noise_injection_std_dev=0.0, gradient_clipping_threshold_per_sample=float("inf"),
                 gradient_clipping_with_truncation=True):
        self.l1_regularization_weight = _non_negative(l1_regularization_weight, "l1_regularization_weight")
        self.l2_regularization_weight = _non_negative(l2_regularization_weight, "l2_regularization_weight")
        if not isinstance(gaussian_noise_injection_std_dev, TrainingParameterSchedule):
            _non_negative(gaussian_noise_injection_std_dev, "gaussian_noise_injection_std_dev")
        self.gaussian_noise_injection_std_dev = training_parameter_schedule(gaussian_noise_injection_std_dev)
        self.gradient_clipping_threshold_per_sample = _non_negative(
            gradient_clipping_threshold_per_sample, "gradient_clipping_threshold_per_sample")
        if not isinstance(gradient_clipping_with_truncation, bool):
            raise TypeError("gradient_clipping_with_truncation must be a bool, got %r"
                            % (gradient_clipping_with_truncation,))
        self.gradient_clipping_with_truncation = gradient_clipping_with_truncation
