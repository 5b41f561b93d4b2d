"""cntk.metrics: evaluation criteria (classification_error per sample of shape (1,), with topN > 1 the number of
misses in the minibatch; ndcg_at_1 and edit_distance_error one scalar for the minibatch)."""
from ..ops import (Axis, element_times, equal, greater_equal, minus, not_equal, reduce_max, reduce_mean, reduce_sum,
                   times_transpose)
from ..ops._common import block_of, has_matrix_operand, require_matching_dynamic_axes, sanitize_operands
from ..ops.softmax import _with_axis
from ..ops.top_n_error import top_n_error

from ..ops.edit_distance import edit_distance_error
from ..ops.ranking import ndcg_at_1

__all__ = ["ndcg_at_1", "classification_error", "edit_distance_error"]


def _hardmax(x, axis):
    """1 at the largest element along axis, 0 elsewhere."""
    return _with_axis("Hardmax", x, axis, "")


def classification_error(output_vector, target_vector, axis=-1, topN=1, name=""):
    """1 if the target class (the one-hot target's hot index) is not among the topN highest outputs, else 0."""
    if topN < 1:
        raise ValueError("classification_error: topN must be >= 1, got %r" % (topN,))
    z, y = sanitize_operands(output_vector, target_vector, names=["output_vector", "target_vector"])
    if topN == 1:  # CNTK's block compares them in a primitive that refuses different dynamic axes
        require_matching_dynamic_axes("TransposeTimes" if axis == -1 else "NotEqual", (y, z))
    if topN == 1 and axis != -1:
        # CNTK 2.7 with an axis named (even the last axis of a vector): a sample errs where the target differs from
        # the indicator of the output's maxima (all of them, equal ones included) anywhere along the axis; the
        # result is the error rate over the other static axes (a scalar without gradient)
        def body(z, y):
            wrong = not_equal(y, equal(z, reduce_max(z, axis=axis)))
            return reduce_mean(greater_equal(reduce_sum(wrong, axis=axis), 1.0), axis=Axis.all_static_axes())
        return block_of("ClassificationError", body, [z, y], name)
    if topN == 1 and axis == -1 and has_matrix_operand(z, y):
        # CNTK 2.7: 1 - TransposeTimes(hardmax of the whole sample, target), a matrix for matrix samples
        return block_of("ClassificationError", lambda z, y: minus(1, times_transpose(_hardmax(z, None), y)),
                        [z, y], name)
    if topN == 1:  # as CNTK computes it: its gradient with respect to the target is -hardmax(output)
        return block_of("ClassificationError", lambda z, y: minus(
            1, reduce_sum(element_times(_hardmax(z, axis), y), axis=axis)), [z, y], name)
    if axis != -1:
        raise RuntimeError("ClassificationError: The topN feature is not supported along a specific axis.")
    return top_n_error(z, y, topN, name)
