"""Adam and Adamax (Kingma & Ba 2015) with CNTK's momentum conventions."""
import math

import torch

from ..core import rounding

from .hyperparams import as_schedule, check_bool, check_number, common_setup
from .learner import complement
from .momentum import MomentumLearnerBase
from .schedules import momentum_schedule_per_sample
from .smoothed_count import SmoothedCountState

__all__ = ["adam"]


class LearnerAdam(SmoothedCountState, MomentumLearnerBase):
    """``v = b2*v + (1-b2)*g^2`` (Adamax: ``v = max(b2*v, |g|)``), ``m = b1*m + ug*g``,
    ``p -= lr * c_t * m / (sqrt(v) + eps)`` with the bias correction ``c_t = sqrt(1-b2^t) / (1-b1^t)``
    (Adamax: ``1 / (1-b1^t)``)."""

    _state_names = ("variance", "mean")

    def __init__(self, parameters, lr, momentum, unit_gain, variance_momentum, epsilon, adamax, minibatch_size,
                 options, epoch_size):
        super(LearnerAdam, self).__init__(parameters, lr, momentum, unit_gain, minibatch_size, options, epoch_size)
        self._variance_schedule = as_schedule(variance_momentum, minibatch_size, epoch_size, "variance_momentum")
        self._epsilon = check_number(epsilon, "epsilon", 0.0)
        self._adamax = check_bool(adamax, "adamax")
        self._smoothed_count = 0

    def _on_minibatch(self, n):
        super(LearnerAdam, self)._on_minibatch(n)
        self._smoothed_count += 1

    def _step(self, group, grads, lr, n):
        beta1 = self._momentum(n)
        beta2 = self._per_minibatch(self._variance_schedule, n)
        t = self._smoothed_count
        variance, mean = group.state["variance"], group.state["mean"]
        torch._foreach_mul_(variance, beta2)
        if self._adamax:
            torch._foreach_maximum_(variance, torch._foreach_abs(grads))
            correction = 1.0 / (1.0 - beta1 ** t)
            denominator = torch._foreach_add(variance, self._epsilon)
        else:
            torch._foreach_addcmul_(variance, grads, grads, value=complement(beta2, group.dtype))
            correction = math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t)
            denominator = rounding.foreach_sqrt(variance)
            torch._foreach_add_(denominator, self._epsilon)
        torch._foreach_mul_(mean, beta1)
        torch._foreach_add_(mean, grads, alpha=self._unit_gain_factor(beta1, group.dtype))
        torch._foreach_addcdiv_(group.tensors, mean, denominator, value=-lr * correction)


def adam(parameters, lr, momentum, unit_gain=None, variance_momentum=momentum_schedule_per_sample(0.9999986111120757),
         l1_regularization_weight=0.0, l2_regularization_weight=0.0, gaussian_noise_injection_std_dev=0.0,
         gradient_clipping_threshold_per_sample=float("inf"), gradient_clipping_with_truncation=True,
         use_mean_gradient=None, epsilon=1e-8, adamax=False, minibatch_size=None, epoch_size=None):
    """Creates an Adam learner (``adamax=True``: Adamax, the infinity-norm variant).

    ``momentum`` is beta1 and ``variance_momentum`` beta2 of the Adam paper (numbers, lists or schedules);
    ``epsilon`` is added to the denominator. Other arguments as in :func:`momentum_sgd`.
    """
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerAdam(parameters, lr, momentum, unit_gain, variance_momentum, epsilon, adamax, reference, options,
                       epoch_size)
