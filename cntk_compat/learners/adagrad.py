"""AdaGrad: per-value step sizes from the accumulated squared gradients."""
import torch

from ..core import rounding

from .hyperparams import check_bool, common_setup
from .learner import Learner

__all__ = ["adagrad"]

_FLOOR = 1e-16


def average_multiplier_scale(multipliers):
    """Per tensor ``1 / mean(multiplier)`` (multipliers are positive), as a list of 0-d tensors."""
    scale = torch._foreach_reciprocal(torch._foreach_norm(multipliers, 1))
    torch._foreach_mul_(scale, [float(t.numel()) for t in multipliers])
    return scale


class LearnerAdaGrad(Learner):
    """``acc += g*g; p -= lr * g / sqrt(acc)``, normalized by the mean of ``1/sqrt(acc)`` over each parameter
    when ``need_ave_multiplier``."""

    _state_names = ("accumulated",)

    def __init__(self, parameters, lr, need_ave_multiplier, minibatch_size, options):
        super(LearnerAdaGrad, self).__init__(parameters, lr, minibatch_size, options)
        self._need_ave_multiplier = check_bool(need_ave_multiplier, "need_ave_multiplier")

    def _step(self, group, grads, lr, n):
        acc = group.state["accumulated"]
        torch._foreach_addcmul_(acc, grads, grads)
        multipliers = torch._foreach_add(acc, _FLOOR)
        rounding.foreach_sqrt_(multipliers)
        torch._foreach_reciprocal_(multipliers)
        steps = torch._foreach_mul(grads, multipliers)
        if self._need_ave_multiplier:
            torch._foreach_mul_(steps, average_multiplier_scale(multipliers))
        torch._foreach_add_(group.tensors, steps, alpha=-lr)


def adagrad(parameters, lr, need_ave_multiplier=True, l1_regularization_weight=0.0, l2_regularization_weight=0.0,
            gaussian_noise_injection_std_dev=0.0, gradient_clipping_threshold_per_sample=float("inf"),
            gradient_clipping_with_truncation=True, use_mean_gradient=None, minibatch_size=None,
            epoch_size=None):
    """Creates an AdaGrad learner; other arguments as in :func:`sgd`."""
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerAdaGrad(parameters, lr, need_ave_multiplier, reference, options)
