"""AdaDelta (Zeiler 2012), scaled by a learning rate."""
import torch

from ..core import rounding

from .hyperparams import check_number, common_setup
from .learner import Learner, complement
from .schedules import learning_parameter_schedule_per_sample

__all__ = ["adadelta"]


class LearnerAdaDelta(Learner):
    """``a = rho*a + (1-rho)*g^2; d = sqrt(x + eps)/sqrt(a + eps) * g; x = rho*x + (1-rho)*d^2; p -= lr*d``."""

    _state_names = ("squared_gradient", "squared_delta")

    def __init__(self, parameters, lr, rho, epsilon, minibatch_size, options):
        super(LearnerAdaDelta, self).__init__(parameters, lr, minibatch_size, options)
        self._rho = check_number(rho, "rho", 0.0, 1.0)
        self._epsilon = check_number(epsilon, "epsilon", 0.0)

    def _state_dtype(self, dtype):
        # CNTK 2.7 updates float16 parameters with float32 accumulators (LearnerAdaDelta::Update<half, float>):
        # in float16 the default epsilon (1e-8) is 0, and a gradient of 0 made 0/0 = NaN of the first step
        return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype

    def _step(self, group, grads, lr, n):
        rho, eps = self._rho, self._epsilon
        state_dtype = self._state_dtype(group.dtype)
        one_minus_rho = complement(rho, state_dtype)
        sq_grad, sq_delta = group.state["squared_gradient"], group.state["squared_delta"]
        if state_dtype != group.dtype:
            grads = [g.to(state_dtype) for g in grads]
        torch._foreach_mul_(sq_grad, rho)
        torch._foreach_addcmul_(sq_grad, grads, grads, value=one_minus_rho)
        delta = torch._foreach_add(sq_delta, eps)
        rounding.foreach_sqrt_(delta)
        denominator = torch._foreach_add(sq_grad, eps)
        rounding.foreach_sqrt_(denominator)
        torch._foreach_div_(delta, denominator)
        torch._foreach_mul_(delta, grads)
        torch._foreach_mul_(sq_delta, rho)
        torch._foreach_addcmul_(sq_delta, delta, delta, value=one_minus_rho)
        if state_dtype != group.dtype:      # the step computed in float32, rounded once to the parameter
            for t, d in zip(group.tensors, delta):
                t.copy_(t.to(state_dtype).add_(d, alpha=-lr))
        else:
            torch._foreach_add_(group.tensors, delta, alpha=-lr)


def adadelta(parameters, lr=learning_parameter_schedule_per_sample(1), rho=0.95, epsilon=1e-8,
             l1_regularization_weight=0.0, l2_regularization_weight=0.0, gaussian_noise_injection_std_dev=0.0,
             gradient_clipping_threshold_per_sample=float("inf"), gradient_clipping_with_truncation=True,
             use_mean_gradient=None, minibatch_size=None, epoch_size=None):
    """Creates an AdaDelta learner: ``rho`` is the smoothing factor, ``epsilon`` the constant inside the square
    roots; other arguments as in :func:`sgd`."""
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerAdaDelta(parameters, lr, rho, epsilon, reference, options)
