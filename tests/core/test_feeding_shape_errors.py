"""Data that does not fit an input is refused with CNTK 2.7's messages (its native Value code raises them and
announces them on stderr): a list entry of another shape, trailing dimensions that are not the input's shape,
a leading axis of more than one entry where the input has no dynamic axis (numbered as CNTK numbers the Value's
axes, innermost first), fewer axes than the input. The expected texts are what CNTK 2.7 printed for the same
calls."""
import re

import numpy as np
import pytest

import cntk as C


def _raises(fn, data, message, capfd):
    with pytest.raises(ValueError) as info:
        (fn * 1).eval({fn: data})
    assert str(info.value).split("\n\n[CALL STACK]")[0] == message
    assert "About to throw exception '%s'" % message in capfd.readouterr().err


def test_a_list_entry_of_another_shape(capfd):
    x = C.input_variable((3, 8, 8), name='x')
    _raises(x, [np.zeros((3, 8, 8), np.float32), np.zeros((3, 16, 16), np.float32)],
            "Value::Create: The shape '[3 x 16 x 16]' of sequence #1 is not compatible with the sample shape "
            "'[3 x 8 x 8]'.", capfd)
    s = C.sequence.input_variable(3, name='s')
    _raises(s, [np.zeros((2, 3), np.float32), np.zeros((5, 2), np.float32)],
            "Value::Create: The shape '[5 x 2]' of sequence #1 is not compatible with the sample shape '[3]'.", capfd)
    f = C.input_variable((C.FreeDimension, 3), name='f')
    _raises(f, [np.zeros((2, 4), np.float32)],
            "Value::Create: The shape '[2 x 4]' of sequence #0 is not compatible with the sample shape '[* x 3]'.",
            capfd)


def test_trailing_dimensions_that_are_not_the_inputs_shape(capfd):
    x = C.input_variable((3, 8, 8), name='x')
    _raises(x, np.zeros((1, 3, 16, 16), np.float32),
            "The trailing dimensions of the Value shape '[1 x 3 x 16 x 16]' do not match the Variable "
            "'Input('x', [#], [3 x 8 x 8])' shape '[3 x 8 x 8]'.", capfd)
    s = C.sequence.input_variable((2, 3), name='s')
    _raises(s, np.zeros((3, 2), np.float32),
            "The trailing dimensions of the Value shape '[3 x 2]' do not match the Variable "
            "'Input('s', [#, *], [2 x 3])' shape '[2 x 3]'.", capfd)
    st = C.input_variable(3, dynamic_axes=[], name='st')
    _raises(st, [np.zeros(4, np.float32)],
            "The trailing dimensions of the Value shape '[1 x 4]' do not match the Variable "
            "'Input('st', [], [3])' shape '[3]'.", capfd)


def test_a_leading_axis_the_input_has_no_dynamic_axis_for(capfd):
    x = C.input_variable((2, 3), name='x')
    _raises(x, np.zeros((2, 4, 2, 3), np.float32),
            "The dimension size (4) of the axis (2) of the Value ('[2 x 4 x 2 x 3]') must be 1, because this axis is "
            "not specified as a dynamic axis of the Variable ('Input('x', [#], [2 x 3])').", capfd)
    st = C.input_variable((2, 3), dynamic_axes=[], name='st')
    _raises(st, np.zeros((1, 5, 2, 3), np.float32),
            "The dimension size (5) of the axis (2) of the Value ('[1 x 5 x 2 x 3]') must be 1, because this axis is "
            "not specified as a dynamic axis of the Variable ('Input('st', [], [2 x 3])').", capfd)


def test_fewer_axes_than_the_input(capfd):
    x = C.input_variable((1, 2, 3), name='x')
    _raises(x, np.zeros((2, 6), np.float32),
            "Value's rank (2) should be >= the Variable's rank (3); Variable = 'Input('x', [#], [1 x 2 x 3])', "
            "Value shape = '[2 x 6]'.", capfd)


def test_list_entries_of_several_steps_for_an_input_without_a_sequence_axis(capfd):
    """CNTK makes a Value of the list's entries as sequences, padded to the longest, then refuses its sequence axis
    (dense arrays and CSR matrices alike)."""
    from scipy import sparse
    x = C.input_variable(5, name='x')
    _raises(x, [np.ones((2, 5), np.float32)],
            "The dimension size (2) of the axis (1) of the Value ('[1 x 2 x 5]') must be 1, because this axis is not "
            "specified as a dynamic axis of the Variable ('Input('x', [#], [5])').", capfd)
    _raises(x, [np.ones((1, 5), np.float32), np.ones((3, 5), np.float32)],
            "The dimension size (3) of the axis (1) of the Value ('[2 x 3 x 5]') must be 1, because this axis is not "
            "specified as a dynamic axis of the Variable ('Input('x', [#], [5])').", capfd)
    xs = C.input_variable(5, is_sparse=True, name='xs')
    _raises(xs, [sparse.csr_matrix(np.ones((1, 5), np.float32)), sparse.csr_matrix(np.ones((3, 5), np.float32))],
            "The dimension size (3) of the axis (1) of the Value ('[2 x 3 x 5]') must be 1, because this axis is not "
            "specified as a dynamic axis of the Variable ('Input('xs', [#], [5])').", capfd)
