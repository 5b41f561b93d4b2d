"""RMSProp with CNTK's adaptive per-value step sizes: a value's step grows by ``inc`` (up to ``max``) while its
gradient keeps its sign and shrinks by ``dec`` (down to ``min``) otherwise.

As in CNTK, the first minibatch (and the first after ``reset_smoothed_gradients``) initializes the state from
its gradient: the mean square becomes ``g*g``, every step size 0.02 and the previous sign 0 (so that first
step is ``max(0.02 * dec, min)``).
"""
import torch

from ..core import rounding

from .adagrad import average_multiplier_scale
from .hyperparams import check_bool, check_number, common_setup
from .learner import Learner, complement
from .smoothed_count import SmoothedCountState

__all__ = ["rmsprop"]

_FLOOR = 1e-6
_INITIAL_STEP = 0.02


class LearnerRMSProp(SmoothedCountState, Learner):
    _state_names = ("mean_square", "sign", "step")

    def __init__(self, parameters, lr, gamma, inc, dec, max, min, need_ave_multiplier, minibatch_size, options):
        super(LearnerRMSProp, self).__init__(parameters, lr, minibatch_size, options)
        self._gamma = check_number(gamma, "gamma", 0.0, 1.0)
        self._inc = check_number(inc, "inc", 0.0)
        self._dec = check_number(dec, "dec", 0.0)
        self._max = check_number(max, "max", 0.0)
        self._min = check_number(min, "min", 0.0)
        self._need_ave_multiplier = check_bool(need_ave_multiplier, "need_ave_multiplier")
        self._smoothed_count = 0

    def _on_minibatch(self, n):
        self._smoothed_count += 1

    def _step(self, group, grads, lr, n):
        mean_square, signs, steps = group.state["mean_square"], group.state["sign"], group.state["step"]
        if self._smoothed_count == 1:
            torch._foreach_copy_(mean_square, torch._foreach_mul(grads, grads))
            torch._foreach_zero_(steps)
            torch._foreach_add_(steps, _INITIAL_STEP)
            torch._foreach_zero_(signs)
        torch._foreach_mul_(mean_square, self._gamma)
        torch._foreach_addcmul_(mean_square, grads, grads, value=complement(self._gamma, group.dtype))
        grad_signs = torch._foreach_sign(grads)
        keeps_sign = torch._foreach_mul(signs, grad_signs)
        torch._foreach_clamp_min_(keeps_sign, 0.0)                # 1 where the sign is unchanged, else 0
        changes_sign = torch._foreach_sub(keeps_sign, 1.0)
        torch._foreach_neg_(changes_sign)
        # both candidates stay finite (max=inf is clamped to the dtype's largest value) so the blend
        # grown * keeps + shrunk * changes never multiplies 0 by inf, and is exact: one of its terms is 0
        grown = torch._foreach_mul(steps, self._inc)
        torch._foreach_clamp_max_(grown, min(self._max, torch.finfo(group.dtype).max))
        shrunk = torch._foreach_mul(steps, self._dec)
        torch._foreach_clamp_min_(shrunk, self._min)
        torch._foreach_mul_(grown, keeps_sign)
        torch._foreach_addcmul_(grown, shrunk, changes_sign)
        torch._foreach_copy_(steps, grown)
        torch._foreach_copy_(signs, grad_signs)
        multipliers = torch._foreach_add(mean_square, _FLOOR)
        rounding.foreach_sqrt_(multipliers)
        torch._foreach_reciprocal_(multipliers)
        torch._foreach_mul_(multipliers, steps)
        if self._need_ave_multiplier:
            # CNTK divides the learning rate by the mean multiplier; when that mean overflows the rate becomes 0
            # and the parameter is left unchanged. Finite multipliers and scaling them before the gradient keep
            # that case at 0 instead of inf * 0 = NaN.
            torch._foreach_clamp_max_(multipliers, torch.finfo(group.dtype).max)
            torch._foreach_mul_(multipliers, average_multiplier_scale(multipliers))
        updates = torch._foreach_mul(grads, multipliers)
        torch._foreach_add_(group.tensors, updates, alpha=-lr)


def rmsprop(parameters, lr, gamma, inc, dec, max, min, need_ave_multiplier=True, l1_regularization_weight=0.0,
            l2_regularization_weight=0.0, gaussian_noise_injection_std_dev=0.0,
            gradient_clipping_threshold_per_sample=float("inf"), gradient_clipping_with_truncation=True,
            use_mean_gradient=None, minibatch_size=None, epoch_size=None):
    """Creates an RMSProp learner.

    ``gamma``: smoothing factor of the mean square (e.g. 0.95); ``inc`` (> 1) / ``dec`` (< 1): factors that
    grow / shrink each value's step size; ``max`` / ``min``: bounds of the step size. Other arguments as in
    :func:`sgd`.
    """
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerRMSProp(parameters, lr, gamma, inc, dec, max, min, need_ave_multiplier, reference, options)
