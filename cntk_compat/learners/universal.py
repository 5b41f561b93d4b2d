"""A learner whose update rule is a CNTK graph built from ``assign`` operations."""
import inspect

import torch

from .learner import Learner, MissingGradientError, _check_parameters
from .schedules import learning_parameter_schedule

__all__ = ["universal"]


def _positional_arity(func):
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        raise ValueError("update_func must be a Python function, got %r" % (func,)) from None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in signature.parameters.values() if p.kind in kinds)


class LearnerUniversal(Learner):
    """Copies the gradients into the gradient constants handed to ``update_func`` and evaluates the graph it
    returned (whose ``assign`` operations write the new parameter values)."""

    def __init__(self, parameters, gradients, update_function):
        super(LearnerUniversal, self).__init__(parameters, learning_parameter_schedule(1.0))
        self._gradient_constants = list(gradients)
        self._update_function = update_function

    def _apply(self, gradient_values, lr, n):
        from ..core.engine import evaluate_tensors
        from .tensors import as_gradient_tensor
        targets = [c.tensor for c in self._gradient_constants]
        grads = []
        for p, target in zip(self._parameters, targets):
            if p not in gradient_values:
                raise MissingGradientError("gradient_values has no gradient for parameter %r" % (p,))
            grads.append(as_gradient_tensor(gradient_values[p], target, p))
        torch._foreach_copy_(targets, grads)
        evaluate_tensors(self._update_function.outputs, {})


def universal(update_func, parameters):
    """Creates a learner from ``update_func(parameters, gradients)``, which must return a Function whose
    :func:`~cntk.ops.assign` operations compute the new parameter values (``gradients`` are constants that hold
    the current gradients during each update)."""
    from ..ops import constant
    if _positional_arity(update_func) != 2:
        raise ValueError("update_func must be a function that accepts two arguments (parameters, gradients)")
    params = _check_parameters(parameters)
    gradients = []
    for p in params:
        if any(dim < 0 for dim in p.shape):
            raise ValueError("parameter %s has inferred dimensions. Please create the learner after all "
                             "parameter shapes have been determined" % (p,))
        gradients.append(constant(0, shape=p.shape, dtype=p.dtype, name="grad"))
    update_function = update_func(params, gradients)
    if not hasattr(update_function, "outputs"):
        raise TypeError("update_func must return a Function (e.g. combine() of assign() operations), got %r"
                        % (update_function,))
    return LearnerUniversal(params, gradients, update_function)
