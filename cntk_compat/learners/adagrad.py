"""AdaGrad: per-value step sizes from the accumulated squared gradients."""
import torch

from ..core import rounding

from .hyperparams import check_bool, common_setup
from .learner import Learner, sparse_blocks

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
        sparse = self._sparse_now
        if sparse and any(p in sparse for p in group.params):
            for i, p in enumerate(group.params):
                if p in sparse:
                    self._sparse_step(group.tensors[i], acc[i], grads[i], sparse[p], lr)
            dense = [i for i, p in enumerate(group.params) if p not in sparse]
            if not dense:
                return
            acc, grads = [acc[i] for i in dense], [grads[i] for i in dense]
            tensors = [group.tensors[i] for i in dense]
        else:
            tensors = group.tensors
        torch._foreach_addcmul_(acc, grads, grads)
        multipliers = torch._foreach_add(acc, _FLOOR)
        rounding.foreach_sqrt_(multipliers)
        torch._foreach_reciprocal_(multipliers)
        steps = torch._foreach_mul(grads, multipliers)
        if self._need_ave_multiplier:
            torch._foreach_mul_(steps, average_multiplier_scale(multipliers))
        torch._foreach_add_(tensors, steps, alpha=-lr)

    def _sparse_step(self, tensor, acc, grad, leading, lr):
        """CNTK 2.7's AdaGrad on a sparse block gradient (CPUSparseMatrix::Adagrad): only the touched blocks
        accumulate and move, and the average multiplier is the mean over their values only."""
        blocks = sparse_blocks([tensor, acc], grad, leading)
        if blocks is None:
            return
        (tensor, acc), grad, touched = blocks
        g = grad.index_select(0, touched)
        a = acc.index_select(0, touched).addcmul_(g, g)
        acc.index_copy_(0, touched, a)
        multipliers = rounding.sqrt(a.add(_FLOOR)).reciprocal_()
        step = g.mul(multipliers)
        if self._need_ave_multiplier:
            step.mul_(multipliers.numel() / multipliers.sum())
        tensor.index_add_(0, touched, step, alpha=-lr)


def adagrad(parameters, lr, need_ave_multiplier=True, l1_regularization_weight=0.0, l2_regularization_weight=0.0,
            gaussian_noise_injection_std_dev=0.0, gradient_clipping_threshold_per_sample=float("inf"),
            gradient_clipping_with_truncation=True, use_mean_gradient=None, minibatch_size=None,
            epoch_size=None):
    """Creates an AdaGrad learner; other arguments as in :func:`sgd`."""
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return LearnerAdaGrad(parameters, lr, need_ave_multiplier, reference, options)
