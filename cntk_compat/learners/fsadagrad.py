"""FSAdaGrad: AdaGrad-style normalization by a smoothed mean square, with momentum."""
import math

import torch

from ..core import rounding

from .hyperparams import as_schedule, common_setup
from .learner import complement
from .momentum import MomentumLearnerBase
from .schedules import momentum_schedule_per_sample
from .smoothed_count import SmoothedCountState

__all__ = ["fsadagrad"]

_MAX_MULTIPLIER = 10.0


class LearnerFSAdaGrad(SmoothedCountState, MomentumLearnerBase):
    """``v = b2*v + (1-b2)*g^2``; ``g *= min(sqrt(c) / sqrt(v), 10)`` where ``c`` is the smoothed number of
    samples seen (``c = b2*c + (1-b2)*n``); then momentum as in momentum SGD: ``m = b1*m + ug*g; p -= lr*m``."""

    _count_type = float
    _state_names = ("variance", "smoothed")

    def __init__(self, parameters, lr, momentum, unit_gain, variance_momentum, minibatch_size, options, epoch_size):
        super(LearnerFSAdaGrad, self).__init__(parameters, lr, momentum, unit_gain, minibatch_size, options,
                                               epoch_size)
        self._variance_schedule = as_schedule(variance_momentum, minibatch_size, epoch_size, "variance_momentum")
        self._smoothed_count = 0.0

    def _on_minibatch(self, n):
        super(LearnerFSAdaGrad, self)._on_minibatch(n)
        beta2 = self._per_minibatch(self._variance_schedule, n)
        self._smoothed_count = beta2 * self._smoothed_count + (1.0 - beta2) * n

    def _step(self, group, grads, lr, n):
        beta1 = self._momentum(n)
        beta2 = self._per_minibatch(self._variance_schedule, n)
        variance, smoothed = group.state["variance"], group.state["smoothed"]
        torch._foreach_mul_(variance, beta2)
        torch._foreach_addcmul_(variance, grads, grads, value=complement(beta2, group.dtype))
        multipliers = rounding.foreach_sqrt(variance)
        torch._foreach_reciprocal_(multipliers)
        torch._foreach_mul_(multipliers, math.sqrt(self._smoothed_count))
        torch._foreach_clamp_max_(multipliers, _MAX_MULTIPLIER)
        scaled = torch._foreach_mul(grads, multipliers)
        if beta1 > 0:
            torch._foreach_mul_(smoothed, beta1)
            torch._foreach_add_(smoothed, scaled, alpha=self._unit_gain_factor(beta1, group.dtype))
            scaled = smoothed
        torch._foreach_add_(group.tensors, scaled, alpha=-lr)


def fsadagrad(parameters, lr, momentum, unit_gain=None,
              variance_momentum=momentum_schedule_per_sample(0.9999986111120757), l1_regularization_weight=0.0,
              l2_regularization_weight=0.0, gaussian_noise_injection_std_dev=0.0,
              gradient_clipping_threshold_per_sample=float("inf"), gradient_clipping_with_truncation=True,
              use_mean_gradient=None, minibatch_size=None, epoch_size=None):
    """Creates an FSAdaGrad learner; arguments as in :func:`adam`."""
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerFSAdaGrad(parameters, lr, momentum, unit_gain, variance_momentum, reference, options, epoch_size)
