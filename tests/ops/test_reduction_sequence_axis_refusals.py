"""The static-axis reductions refuse a sequence axis as CNTK 2.7 does: its sanitize_multi_axis_reduction_list
ValueError for reduce_* (alone or in a list of axes, on any operand), and ReduceElements' RuntimeError for argmax and
argmin; the batch axis and all_axes still reduce."""
import pytest

import cntk as C

DYN = C.Axis.default_dynamic_axis()
MESSAGE = "Reduction operation over multiple axes can not contain sequence axis: Axis\\('defaultDynamicAxis'\\)"


@pytest.mark.parametrize("build", [
    lambda x, b: C.reduce_sum(x, axis=DYN), lambda x, b: C.reduce_mean(x, axis=DYN),
    lambda x, b: C.reduce_max(x, axis=[0, DYN]), lambda x, b: C.reduce_mean(x, axis=(DYN,)),
    lambda x, b: C.reduce_prod(x, axis=DYN), lambda x, b: C.reduce_log_sum_exp(x, axis=DYN),
    lambda x, b: C.reduce_sum(b, axis=DYN),
])
def test_reductions_refuse_a_sequence_axis(build):
    x, b = C.sequence.input_variable((2, 3), name="x"), C.input_variable((2, 3), name="b")
    with pytest.raises(ValueError, match=MESSAGE):
        build(x, b)


def test_argmax_refuses_a_sequence_axis_with_reduce_elements_error():
    x = C.sequence.input_variable((2, 3), name="x")
    for op in (C.argmax, C.argmin):
        with pytest.raises(RuntimeError, match="ReduceElements: operand Input\\('x', \\[#, \\*\\], \\[2 x 3\\]\\); "
                                               "Invalid axis argument provided"):
            op(x, axis=DYN)


def test_batch_and_all_axes_still_reduce():
    x, b = C.sequence.input_variable((2, 3), name="x"), C.input_variable((2, 3), name="b")
    assert C.reduce_sum(b, axis=C.Axis.default_batch_axis()).shape == (2, 3)
    assert C.reduce_sum(x, axis=C.Axis.all_axes()).shape == ()
