"""nce_loss: noise contrastive estimation (C. Dyer, "Notes on Noise Contrastive Estimation and Negative
Sampling"). num_samples noise classes are drawn from noise_distribution once per minibatch and shared by all its
samples; each sample's loss is the logistic loss of telling its true class from the noise classes, with every
logit corrected by log(expected number of draws of that class)."""
import numpy as np

from ..ops import (log, random_sample, random_sample_inclusion_frequency, reduce_sum, reshape, softplus, times)
from ..ops._common import sanitize_operands
from ..ops.sampling import SentinelValueForAutoSelectRandomSeed as auto_select

__all__ = ["nce_loss"]


def nce_loss(weights, biases, inputs, labels, noise_distribution, num_samples=32, allow_duplicates=True,
             seed=auto_select, name=""):
    """weights (classes, input dim), biases (classes, 1), inputs (input dim,), labels one-hot (classes,),
    noise_distribution (classes,) positive weights; the result is the per-sample loss (a scalar)."""
    if int(num_samples) < 1:
        raise ValueError("nce_loss: num_samples must be a positive integer, got %r" % (num_samples,))
    W, b, x, y, q = sanitize_operands(weights, biases, inputs, labels, noise_distribution,
                                      names=["weights", "biases", "inputs", "labels", "noise_distribution"])
    if q._shape is None or len(q._shape) != 1:
        raise ValueError("nce_loss: noise_distribution must be a vector, got shape %s" % (q._shape,))
    if W._shape is None or len(W._shape) != 2 or x._shape is None or len(x._shape) != 1:
        raise ValueError("nce_loss: weights must be (classes, input dim) and inputs a vector, got %s and %s"
                         % (W._shape, x._shape))
    if W._shape[1] == -1 and (W.is_parameter or W.is_constant):  # the input dimension comes from inputs
        W._resolve_inferred_shape((W._shape[0], x._shape[0]))
    noise = random_sample(q, num_samples, allow_duplicates, seed=seed)  # (num_samples, classes) one-hot
    log_expected = log(random_sample_inclusion_frequency(q, num_samples, allow_duplicates, seed=seed))
    bias = reshape(b, (-1,))

    def logits(selector):  # selector (..., classes) one-hot rows: the corrected logits of the selected classes
        def pick(v):
            return times(selector, v, output_rank=0)
        return times(times(selector, W), x, output_rank=0) + pick(bias) - pick(log_expected)

    true_logit = logits(y)
    noise_logits = logits(noise)
    loss = softplus(-true_logit) + reduce_sum(softplus(noise_logits))
    return reshape(loss, (), name=name)
