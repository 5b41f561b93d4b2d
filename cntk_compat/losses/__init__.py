"""cntk.losses: training criteria. Each reduces a sample to shape (1,) (the per-sample loss)."""
import numpy as np

from ..ops import (Axis, element_divide, element_times, greater, log, minus, plus, reduce_log_sum_exp, reduce_sum,
                   sqrt, square)
from ..ops._common import sanitize_operands

__all__ = ["cross_entropy_with_softmax", "binary_cross_entropy", "weighted_binary_cross_entropy", "squared_error",
           "cosine_distance", "fmeasure"]


def _all_axes():
    return Axis.all_static_axes()


def cross_entropy_with_softmax(output_vector, target_vector, axis=-1, name=""):
    """-sum(target * log_softmax(output)) along axis: log_sum_exp(output) - sum(target * output)."""
    z, y = sanitize_operands(output_vector, target_vector, names=["output_vector", "target_vector"])
    return minus(reduce_log_sum_exp(z, axis=axis), reduce_sum(element_times(y, z), axis=axis), name=name)


def binary_cross_entropy(output, target, name=""):
    """-sum(target * log(output) + (1 - target) * log(1 - output)); output holds probabilities."""
    p, y = sanitize_operands(output, target, names=["output", "target"])
    per_element = plus(element_times(y, log(p)), element_times(1 - y, log(1 - p)))
    return reduce_sum(-per_element, axis=_all_axes(), name=name)


def weighted_binary_cross_entropy(output, target, weight, name=""):
    """binary_cross_entropy with every element's term multiplied by weight."""
    p, y, w = sanitize_operands(output, target, weight, names=["output", "target", "weight"])
    per_element = plus(element_times(y, log(p)), element_times(1 - y, log(1 - p)))
    return reduce_sum(-element_times(w, per_element), axis=_all_axes(), name=name)


def squared_error(output, target, name=""):
    """sum((output - target)^2)."""
    o, t = sanitize_operands(output, target, names=["output", "target"])
    return reduce_sum(square(minus(o, t)), axis=_all_axes(), name=name)


def cosine_distance(x, y, name=""):
    """The cosine of the angle between x and y (along all their axes)."""
    x, y = sanitize_operands(x, y, names=["x", "y"])
    dot = reduce_sum(element_times(x, y), axis=_all_axes())
    norms = element_times(sqrt(reduce_sum(square(x), axis=_all_axes())),
                          sqrt(reduce_sum(square(y), axis=_all_axes())))
    return element_divide(dot, norms, name=name)


def fmeasure(output, target, beta=1):
    """1 - F-beta score of the predictions output (probabilities, thresholded at 0.5) against target."""
    o, t = sanitize_operands(output, target, names=["output", "target"])
    predicted = greater(o, np.float32(0.5))
    correct = reduce_sum(element_times(predicted, t), axis=_all_axes())
    b2 = float(beta) ** 2
    score = element_divide((1 + b2) * correct,
                           plus(b2 * reduce_sum(t, axis=_all_axes()), reduce_sum(predicted, axis=_all_axes())))
    return 1 - score
