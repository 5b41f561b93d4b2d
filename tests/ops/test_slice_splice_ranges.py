"""slice and splice refuse what CNTK 2.7 refuses (checked against CNTK 2.7): a slice range outside the axis, empty,
or shorter than its stride is a RuntimeError (x[5] and x[5:7] too), as is slicing a dynamic axis; splice adds new
axes only in front (a negative axis), a non-negative axis at or past the inputs' rank is a ValueError."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("begin,end,stride", [(0, 4, 1), (1, 1, 1), (2, 1, 1), (-4, 2, 1), (0, -3, 1), (3, 4, 1),
                                              (-5, 1, 1), (-1, 0, 2), (2, 0, 2), (0, 1, 2)])
def test_invalid_slice_ranges(begin, end, stride):
    x = C.input_variable((3, 4))
    with pytest.raises(RuntimeError):
        C.slice(x, 0, begin, end, stride)


@pytest.mark.parametrize("begin,end,stride,size", [(0, 3, 1, 3), (-1, 0, 1, 1), (-3, 2, 2, 1), (0, 0, 2, 2),
                                                   (2, 0, 1, 1), (-2, -1, 1, 1), (0, 2, 2, 1)])
def test_valid_slice_ranges(begin, end, stride, size):
    x = C.input_variable((3, 4))
    assert C.slice(x, 0, begin, end, stride).shape == (size, 4)


def test_getitem_out_of_range_and_dynamic_axes():
    x = C.input_variable((3, 4))
    for key in (5, -4, slice(0, 10), slice(5, 7), slice(2, 1)):
        with pytest.raises(RuntimeError):
            x[key]
    assert x[-3].shape == (1, 4) and x[1:].shape == (2, 4)
    s = C.sequence.input_variable((2,))
    for axis in (C.Axis.default_batch_axis(), C.Axis.default_dynamic_axis()):
        with pytest.raises(RuntimeError):
            C.slice(s, axis, 0, 1)


def test_splice_new_axes_only_in_front():
    a, b = C.input_variable(()), C.input_variable(())
    v, x = C.input_variable((3,)), C.input_variable((2, 3))
    for args, axis in (((a, b), 0), ((a, b), 1), ((v, v), 1), ((x, x), 2), ((x, x), 3)):
        with pytest.raises(ValueError):
            C.splice(*args, axis=axis)
    assert C.splice(a, v, axis=0).shape == (4,)
    assert C.splice(v, v, axis=-2).shape == (2, 3)
    assert C.splice(x, x, axis=-4).shape == (2, 1, 2, 3)
    data = np.ones((2,), np.float32)
    np.testing.assert_array_equal(C.splice(a, b, axis=-1).eval({a: data, b: data}), np.ones((2, 2)))


def test_a_splice_of_nothing_is_refused_by_its_axis(capsys):
    # Keras' repeat_elements splices an empty list when a dimension is unknown: CNTK 2.7 refuses it so
    with pytest.raises(ValueError, match=r"Axis 'Axis\('staticAxisIdx=-1'\)' is out of bounds for the rank '0'"):
        C.splice(axis=0)
    with pytest.raises(ValueError, match=r"staticAxisIdx=-2'\)' is out of bounds for the rank '0'"):
        C.splice(*[], axis=1)
    assert "About to throw exception 'Axis 'Axis('staticAxisIdx=-2')'" in capsys.readouterr().err
