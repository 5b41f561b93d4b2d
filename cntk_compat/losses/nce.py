"""nce_loss: noise contrastive estimation as CNTK 2.7 computes it (after C. Dyer, "Notes on Noise Contrastive
Estimation and Negative Sampling").

With q the normalized noise distribution, k = num_samples and u = k*q the expected number of draws of each
class, a sample with inputs x, true class y and per-class logits s_c = W[c].x + b[c] has the loss

    softplus(log u_y - s_y)                                      (the true class told from noise)
  + k * sum_j w_j * logaddexp(s_{n_j}, log u_{n_j})  -  H        (the noise classes n_1..n_k told from data)

where n_1..n_k are drawn from q once per minibatch (shared by its samples), w_c = q_c / f_c with f the
inclusion frequency of class c among the k draws (so w = 1/k with duplicates allowed), and
H = sum_c u_c log u_c is the expectation of sum_j log u_{n_j}: the negative part replaces the noise's own
log-probability by its mean, so a single loss value may be negative. q, log u, w and H are computed once
when the loss is built, as CNTK does.
"""
import numpy as np

from ..ops import (constant, log_add_exp, random_sample, random_sample_inclusion_frequency, reduce_sum, reshape,
                   softplus, times)
from ..core.function import Function
from ..ops._common import sanitize_operands
from ..ops.sampling import SentinelValueForAutoSelectRandomSeed as auto_select

__all__ = ["nce_loss"]


def _noise_constants(q, num_samples, allow_duplicates, seed):
    """(normalized noise q, log of its expected draw counts, importance weights, the counts' entropy term),
    each in the noise distribution's precision."""
    weights = np.asarray(q.value if hasattr(q, "value") else q.eval())
    dt = weights.dtype if weights.dtype in (np.float32, np.float64) else np.float32
    weights = weights.astype(dt)
    k = dt.type(num_samples)
    noise = weights / weights.sum(dtype=dt)
    expected = k * noise
    log_expected = np.log(expected)
    entropy = (expected * log_expected).sum(dtype=dt)
    inclusion = np.asarray(random_sample_inclusion_frequency(noise, num_samples, allow_duplicates,
                                                              seed=seed).eval(), dtype=dt)
    return noise, log_expected, (noise / inclusion).astype(dt), dt.type(entropy)


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
    num_samples = int(num_samples)
    noise, log_expected, importance, entropy = _noise_constants(q, num_samples, allow_duplicates, seed)
    log_expected, importance = constant(log_expected, name="logNoisePrior"), constant(importance,
                                                                                      name="importanceWeights")
    drawn = random_sample(constant(noise, name="noise"), num_samples, allow_duplicates, seed=seed)
    bias = reshape(b, (-1,))

    def pick(selector, v):  # the entries of the vector v at the classes the one-hot rows of selector select
        return times(selector, v, output_rank=0)

    def logits(selector):
        return times(times(selector, W), x, output_rank=0) + pick(selector, bias)

    true_logit = logits(y)
    on_true = softplus(pick(y, log_expected) - true_logit)
    on_noise = num_samples * reduce_sum(pick(drawn, importance)
                                        * log_add_exp(logits(drawn), pick(drawn, log_expected))) - entropy
    loss = reshape(on_true + on_noise, (), name=name)
    # CNTK 2.7's NCE node reads its inputs before its labels: the loss lists x's arguments before y's
    first = [a for v in (x, y) for a in (Function._composite([v]).arguments if v.is_output else [v])]
    return Function._composite(loss.outputs, arg_order=first, same_as=loss)
