"""Plain stochastic gradient descent."""
import torch

from .hyperparams import common_setup
from .learner import Learner, ScratchGradients, scalar_operand

__all__ = ["sgd"]


class LearnerSGD(Learner):
    """``parameter -= lr * gradient``, rounded as CNTK 2.7 rounds it: the scaled gradient first (in the
    parameter's dtype), then the difference. (``add_(g, alpha=-lr)`` fuses both into one rounding, so its
    parameters drift an ulp away from CNTK's and from the same rule written as a graph for ``universal``.)"""

    def _step(self, group, grads, lr, n):
        lr = scalar_operand(lr, group)
        if type(grads) is ScratchGradients:  # the same roundings, without allocating the scaled gradients
            torch._foreach_mul_(grads, lr)
            torch._foreach_sub_(group.tensors, grads)
        else:
            torch._foreach_sub_(group.tensors, torch._foreach_mul(grads, lr))


def sgd(parameters, lr, l1_regularization_weight=0.0, l2_regularization_weight=0.0,
        gaussian_noise_injection_std_dev=0.0, gradient_clipping_threshold_per_sample=float("inf"),
        gradient_clipping_with_truncation=True, use_mean_gradient=None, minibatch_size=None, epoch_size=None):
    """Creates an SGD learner.

    Args:
        parameters (list of Parameter): the parameters to learn (e.g. ``model.parameters``).
        lr (float, list or schedule): learning rate (see :func:`learning_parameter_schedule`).
        l1_regularization_weight, l2_regularization_weight (float): per-sample regularization weights.
        gaussian_noise_injection_std_dev (float): std-dev of noise added to the parameters after each update.
        gradient_clipping_threshold_per_sample (float): clipping threshold per sample (default: no clipping).
        gradient_clipping_with_truncation (bool): clip by truncating values (True) or by rescaling the norm.
        use_mean_gradient (bool): deprecated; use ``minibatch_size=IGNORE``.
        minibatch_size (int): reference minibatch size of the hyper-parameters (:data:`IGNORE`: apply as given).
        epoch_size (int): number of samples per schedule unit (None: one sweep over the data).
    """
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerSGD(parameters, lr, reference, options)
