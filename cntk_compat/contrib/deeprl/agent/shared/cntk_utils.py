"""Loss terms used by the agents, as CNTK graphs."""
import cntk_compat.ops as _ops


def huber_loss(output, target):
    """Huber loss with threshold 1, summed over the elements: 0.5 * d**2 where |d| < 1, |d| - 0.5 elsewhere,
    with d = target - output."""
    diff = target - output
    size = _ops.abs(diff)
    per_element = _ops.element_select(_ops.less(size, 1), _ops.square(diff) * 0.5, size - 0.5)
    return _ops.reduce_sum(per_element)


def negative_of_entropy_with_softmax(p):
    """sum(softmax(p) * log softmax(p)) for unnormalized log-probabilities p, written as
    sum(softmax(p) * p) - logsumexp(p) (the log-normalizer factored out of the sum)."""
    return _ops.reduce_sum(_ops.softmax(p) * p) - _ops.reduce_log_sum_exp(p)
