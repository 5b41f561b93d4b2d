"""Operands an op refuses as CNTK 2.7 refuses them: different precisions (Constants aside), and dynamic axes that
do not match. Every outcome and message below was observed under CNTK 2.7."""
import re

import numpy as np
import pytest

import cntk as C


def _seq_inputs():
    batch = C.input_variable(2)
    seq = C.sequence.input_variable(2)
    other = C.sequence.input_variable(2, sequence_axis=C.Axis("other"))
    return batch, seq, other


def test_operands_of_different_precision_are_refused_when_the_op_is_made():
    a = C.input_variable(2, dtype=np.float32)
    b = C.input_variable(2, dtype=np.float64)
    with pytest.raises(ValueError, match=re.escape(
            "Primitive op 'Plus' passed operands '%r, %r' with different DataTypes 'Float' and 'Double'." % (a, b))):
        C.plus(a, b)
    w = C.parameter((2, 3), dtype=np.float64, init=1.0)
    # times(x, W) is CNTK's Times(W, x): the operands are listed in that order
    with pytest.raises(ValueError, match=re.escape(
            "Primitive op 'Times' passed operands '%r, %r' with different DataTypes 'Double' and 'Float'." % (w, a))):
        C.times(a, w)
    with pytest.raises(ValueError, match="'Float' and 'Float16'"):
        C.plus(a, C.input_variable(2, dtype=np.float16))
    with pytest.raises(ValueError, match="Primitive op 'Splice'"):
        C.splice(a, b)


def test_a_constant_of_another_precision_is_not_refused_when_the_op_is_made():
    a = C.input_variable(2, dtype=np.float32)
    assert C.plus(a, C.constant(np.ones(2), dtype=np.float64)).output.dtype == np.float32
    assert C.plus(a, 1.0).output.dtype == np.float32


def test_placeholders_replaced_by_operands_of_different_precision_are_refused():
    p, q = C.placeholder(), C.placeholder()
    f = C.plus(p, q)
    with pytest.raises(ValueError, match="with different DataTypes 'Float' and 'Double'"):
        f.replace_placeholders({p: C.input_variable(2), q: C.input_variable(2, dtype=np.float64)})


def test_binary_ops_broadcast_an_operand_without_a_sequence_axis():
    batch, seq, other = _seq_inputs()
    for f in (C.plus, C.minus, C.element_times, C.pow, C.log_add_exp, C.equal, C.less, C.greater_equal,
              C.times_transpose, C.cosine_distance):
        assert f(seq, batch).output.dynamic_axes == seq.dynamic_axes, f
        assert f(batch, seq).output.dynamic_axes == seq.dynamic_axes, f
        assert f(batch, other).output.dynamic_axes == other.dynamic_axes, f
    w = C.parameter((2, 1))
    assert C.times(C.reshape(batch, (1, 2)), w).output.dynamic_axes == batch.dynamic_axes
    only_seq = C.input_variable(2, dynamic_axes=[C.Axis.default_dynamic_axis()])
    assert C.plus(batch, only_seq).output.dynamic_axes == (C.Axis.default_dynamic_axis(),)


def test_binary_ops_refuse_operands_on_different_sequence_axes():
    batch, seq, other = _seq_inputs()
    with pytest.raises(RuntimeError, match=re.escape(
            "Operation 'Plus': Operand '%r' has dynamic axes, that do not match the dynamic axes '[#, *]' of the "
            "other operands." % other)):
        C.plus(seq, other)
    # times_transpose(a, b) is CNTK's TransposeTimes(b, a): b's axes are the ones a must match
    with pytest.raises(RuntimeError, match=re.escape(
            "Operation 'TransposeTimes': Operand '%r' has dynamic axes, that do not match the dynamic axes "
            "'[#, other]'" % seq)):
        C.times_transpose(seq, other)
    only_seq = C.input_variable(2, dynamic_axes=[C.Axis.default_dynamic_axis()])
    with pytest.raises(RuntimeError, match=re.escape("the dynamic axes '[*]' of the other operands")):
        C.plus(only_seq, seq)


@pytest.mark.parametrize("make, op_name", [
    (lambda x, y: C.splice(x, y), "Splice"),
    (lambda x, y: C.element_select(x, y, y), "Select"),
    (lambda x, y: C.clip(x, y, y), "Clip"),
    (C.element_divide, "ElementTimes"),
    (C.element_max, "Greater"),
    (C.element_min, "Less"),
    (C.element_and, "ElementTimes"),
    (C.element_or, "Plus"),
    (C.element_xor, "NotEqual"),
    (C.squared_error, "Minus"),
    (C.cross_entropy_with_softmax, "TransposeTimes"),
    (C.classification_error, "TransposeTimes"),
    (C.binary_cross_entropy, "ElementTimes"),
    (lambda x, y: C.ops.sum([x, y]), "Plus"),
    (lambda x, y: C.ops.mean([x, y, y]), "Plus"),
])
def test_ops_made_as_blocks_or_of_more_operands_do_not_broadcast(make, op_name):
    batch, seq, other = _seq_inputs()
    for x, y in ((seq, batch), (batch, seq), (seq, other)):
        with pytest.raises(RuntimeError, match=re.escape("Operation '%s': Operand '" % op_name)):
            make(x, y)
    assert make(seq, seq).output.dynamic_axes == seq.dynamic_axes or make(seq, seq).output.dynamic_axes == ()


def test_splice_names_the_first_operand_that_differs():
    batch, seq, other = _seq_inputs()
    with pytest.raises(RuntimeError, match=re.escape(
            "Operation 'Splice': Operand '%r' has dynamic axes, that do not match the dynamic axes '[#]'" % seq)):
        C.splice(batch, seq, other)


def test_placeholders_replaced_by_operands_on_different_axes_are_refused():
    batch, seq, other = _seq_inputs()
    p, q = C.placeholder(), C.placeholder()
    with pytest.raises(RuntimeError, match="Operation 'Plus'"):
        C.plus(p, q).replace_placeholders({p: seq, q: other})
    p, q = C.placeholder(), C.placeholder()
    with pytest.raises(RuntimeError, match=re.escape("Operation 'Splice': Operand '%r'" % batch)):
        C.splice(p, q).replace_placeholders({p: seq, q: batch})


def test_broadcast_operand_evaluates_along_the_sequence():
    batch, seq, _ = _seq_inputs()
    r = C.plus(seq, batch).eval({seq: [np.ones((3, 2), np.float32)], batch: np.array([[1, 2]], np.float32)})
    np.testing.assert_array_equal(r[0], [[2, 3]] * 3)


def test_times_reports_mismatched_dimensions_as_cntk():
    with pytest.raises(ValueError, match=re.escape(
            "Times: The 2 leading dimensions of the right operand with shape '[2 x 5]' do not match the left "
            "operand's trailing dimensions with shape '[4 x 3]'")):
        C.times(C.input_variable((4, 3)), C.parameter((2, 5, 3)))
    x = C.input_variable(2)
    with pytest.raises(RuntimeError, match=re.escape(
            "Times: The left operand '%r' rank (1) must be >= #axes (2) being reduced over." % x)):
        C.times(x, C.parameter((2, 3, 4)))


def test_a_recurrence_cloned_onto_another_sequence_axis_takes_it():
    question = C.sequence.input_variable(10, is_sparse=True, sequence_axis=C.Axis("q"))
    answer = C.sequence.input_variable(10, is_sparse=True, sequence_axis=C.Axis("a"))
    rnn = C.layers.Recurrence(C.layers.LSTM(5))(question)
    assert rnn.clone(C.CloneMethod.share, {question: answer}).output.dynamic_axes == answer.dynamic_axes
    # once the loop is closed the clone is checked as a whole: a mismatch after it is refused as CNTK refuses it
    x = C.sequence.input_variable(10, is_sparse=True)
    z = C.plus(C.layers.Recurrence(C.layers.LSTM(5))(x), C.sequence.input_variable(5))
    with pytest.raises(RuntimeError, match=re.escape("Operation 'Plus': Operand '")):
        z.clone(C.CloneMethod.share, {x: answer})


def test_batch_normalization_takes_float32_parameters_for_float16_data_only():
    def bn(data_dtype, parameter_dtype):
        return C.batch_normalization(
            C.input_variable(3, dtype=data_dtype), C.parameter(3, init=1.0, dtype=parameter_dtype),
            C.parameter(3, init=0.0, dtype=parameter_dtype), C.constant(np.zeros(3, np.float32)),
            C.constant(np.ones(3, np.float32)), running_count=C.constant(0, dtype=np.float32), spatial=False)
    assert bn(np.float16, np.float32).output.dtype == np.float16
    for data_dtype, parameter_dtype in ((np.float64, np.float32), (np.float32, np.float16), (np.float16, np.float64)):
        with pytest.raises(ValueError, match="Primitive op 'BatchNormalization' passed operands"):
            bn(data_dtype, parameter_dtype)
