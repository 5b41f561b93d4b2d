"""cntk.metrics: evaluation criteria, per sample of shape (1,)."""
from ..ops import argmax, greater, greater_equal, not_equal, reduce_sum, element_times
from ..ops._common import sanitize_operands

__all__ = ["classification_error"]


def classification_error(output_vector, target_vector, axis=-1, topN=1, name=""):
    """1 if the target class (the one-hot target's hot index) is not among the topN highest outputs, else 0."""
    if topN < 1:
        raise ValueError("classification_error: topN must be >= 1, got %r" % (topN,))
    z, y = sanitize_operands(output_vector, target_vector, names=["output_vector", "target_vector"])
    if topN == 1:
        return not_equal(argmax(z, axis=axis), argmax(y, axis=axis), name=name)
    target_score = reduce_sum(element_times(y, z), axis=axis)
    higher = reduce_sum(greater(z, target_score), axis=axis)
    return greater_equal(higher, float(topN), name=name)
