"""SGD with momentum (classical and Nesterov), and the momentum bookkeeping shared with Adam and FSAdaGrad.

With ``unit_gain`` the smoothed gradient is ``m * s + (1 - m) * lr * g``, otherwise ``m * s + lr * g``.
"""
import torch

from .defaults import default_unit_gain_value
from .hyperparams import as_schedule, check_bool, common_setup
from .learner import Learner, complement, sparse_blocks

__all__ = ["momentum_sgd", "nesterov"]


class MomentumLearnerBase(Learner):
    """A learner with a momentum schedule and a unit-gain flag."""

    def __init__(self, parameters, lr, momentum, unit_gain, minibatch_size, options, epoch_size):
        super(MomentumLearnerBase, self).__init__(parameters, lr, minibatch_size, options)
        self._momentum_schedule = as_schedule(momentum, minibatch_size, epoch_size, "momentum")
        self._unit_gain = check_bool(default_unit_gain_value() if unit_gain is None else unit_gain, "unit_gain")

    def _momentum(self, n):
        return self._per_minibatch(self._momentum_schedule, n)

    def _unit_gain_factor(self, momentum, dtype):
        return complement(momentum, dtype) if self._unit_gain else 1.0


class LearnerMomentumSGD(MomentumLearnerBase):
    _state_names = ("smoothed",)

    def _on_minibatch(self, n):
        # CNTK 2.7 reports "Momentum per ..." for momentum_sgd only, not for nesterov, adam or fsadagrad.
        self._report("Momentum", self._momentum_schedule)

    def _step(self, group, grads, lr, n):
        m = self._momentum(n)
        s = group.state["smoothed"]
        sparse = self._sparse_now
        if sparse and any(p in sparse for p in group.params):
            dense = [i for i, p in enumerate(group.params) if p not in sparse]
            for i, p in enumerate(group.params):
                if p in sparse:
                    _lazy_momentum_step(group.tensors[i], s[i], grads[i], sparse[p], m,
                                        self._unit_gain_factor(m, group.dtype) * lr)
            s, grads = [s[i] for i in dense], [grads[i] for i in dense]
            tensors = [group.tensors[i] for i in dense]
            if not tensors:
                return
        else:
            tensors = group.tensors
        torch._foreach_mul_(s, m)
        torch._foreach_add_(s, grads, alpha=self._unit_gain_factor(m, group.dtype) * lr)
        torch._foreach_sub_(tensors, s)


def _lazy_momentum_step(tensor, smoothed, grad, leading, m, scale):
    """CNTK 2.7's momentum SGD on a sparse block gradient (a parameter reached only as the right operand of
    products with sparse data: an Embedding of sparse input, times(one_hot, W)): only the blocks the minibatch
    touched, the parameter's slices along the axes the sparse operand indexes, get their smoothed gradient
    decayed and added and are moved; the others keep theirs, unapplied, until a later minibatch touches them."""
    blocks = sparse_blocks([tensor, smoothed], grad, leading)
    if blocks is None:
        return
    (tensor, smoothed), grad, touched = blocks
    block = smoothed.index_select(0, touched).mul_(m).add_(grad.index_select(0, touched), alpha=scale)
    smoothed.index_copy_(0, touched, block)
    tensor.index_add_(0, touched, block, alpha=-1.0)


class LearnerNesterov(MomentumLearnerBase):
    _state_names = ("smoothed",)

    def _step(self, group, grads, lr, n):
        m = self._momentum(n)
        scaled_lr = self._unit_gain_factor(m, group.dtype) * lr
        s = group.state["smoothed"]
        torch._foreach_mul_(s, m)
        torch._foreach_add_(s, grads, alpha=scaled_lr)
        torch._foreach_add_(group.tensors, s, alpha=-m)
        torch._foreach_add_(group.tensors, grads, alpha=-scaled_lr)


def _create(cls, parameters, lr, momentum, unit_gain, l1_regularization_weight, l2_regularization_weight,
            gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample,
            gradient_clipping_with_truncation, use_mean_gradient, minibatch_size, epoch_size):
    lr, reference, options = common_setup(
        lr, minibatch_size, use_mean_gradient, epoch_size, l1_regularization_weight, l2_regularization_weight,
        gaussian_noise_injection_std_dev, gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation)
    return cls(parameters, lr, momentum, unit_gain, reference, options, epoch_size)


def momentum_sgd(parameters, lr, momentum, unit_gain=None, l1_regularization_weight=0.0,
                 l2_regularization_weight=0.0, gaussian_noise_injection_std_dev=0.0,
                 gradient_clipping_threshold_per_sample=float("inf"), gradient_clipping_with_truncation=True,
                 use_mean_gradient=None, minibatch_size=None, epoch_size=None):
    """Creates a momentum SGD learner. ``momentum``: a number, list or :func:`momentum_schedule`;
    ``unit_gain`` defaults to :func:`default_unit_gain_value`. Other arguments as in :func:`sgd`."""
    return _create(LearnerMomentumSGD, parameters, lr, momentum, unit_gain, l1_regularization_weight,
                   l2_regularization_weight, gaussian_noise_injection_std_dev,
                   gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation, use_mean_gradient,
                   minibatch_size, epoch_size)


def nesterov(parameters, lr, momentum, unit_gain=None, l1_regularization_weight=0.0,
             l2_regularization_weight=0.0, gaussian_noise_injection_std_dev=0.0,
             gradient_clipping_threshold_per_sample=float("inf"), gradient_clipping_with_truncation=True,
             use_mean_gradient=None, minibatch_size=None, epoch_size=None):
    """Creates a Nesterov accelerated momentum SGD learner; arguments as in :func:`momentum_sgd`."""
    return _create(LearnerNesterov, parameters, lr, momentum, unit_gain, l1_regularization_weight,
                   l2_regularization_weight, gaussian_noise_injection_std_dev,
                   gradient_clipping_threshold_per_sample, gradient_clipping_with_truncation, use_mean_gradient,
                   minibatch_size, epoch_size)
