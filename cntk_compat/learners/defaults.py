"""Process-wide defaults of learner options."""

__all__ = ["default_unit_gain_value", "set_default_unit_gain_value",
           "default_use_mean_gradient_value", "set_default_use_mean_gradient_value"]

_defaults = {"unit_gain": True, "use_mean_gradient": False}


def _set(key, value, argument):
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %r" % (argument, value))
    _defaults[key] = value


def default_unit_gain_value():
    """True when momentum is applied as a unit-gain filter by default (``(1 - momentum) * gradient``)."""
    return _defaults["unit_gain"]


def set_default_unit_gain_value(value):
    """Sets the default unit-gain flag of momentum learners created afterwards without ``unit_gain``."""
    _set("unit_gain", value, "value")


def default_use_mean_gradient_value():
    """True when learners created without ``use_mean_gradient``/``minibatch_size`` average the gradient."""
    return _defaults["use_mean_gradient"]


def set_default_use_mean_gradient_value(value):
    """Sets the default of ``use_mean_gradient`` for learners created afterwards."""
    _set("use_mean_gradient", value, "value")
