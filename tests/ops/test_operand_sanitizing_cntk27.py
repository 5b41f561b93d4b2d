"""Operands that are not graph objects, as CNTK 2.7's sanitize_input and get_data_type take them: what numpy cannot
read as floats is a ValueError, and the binary ops and times refuse numpy arrays of other than float types.
Expected errors: CNTK 2.7, probed on the same calls."""
import numpy as np
import pytest

import cntk as C


def test_what_is_not_data_is_a_value_error():
    x = C.input_variable(2, name='x')
    for make in (lambda: C.sigmoid(None), lambda: C.plus(x, None), lambda: C.sigmoid({}), lambda: C.sigmoid(object()),
                 lambda: C.splice(x, None), lambda: C.element_select(x, None, x), lambda: x + None, lambda: x + 'a'):
        with pytest.raises(ValueError, match="could not convert instance of type"):
            make()
    with pytest.raises(ValueError, match="could not convert string to float: 'a'"):
        C.sigmoid(np.array(['a']))
    for make in (lambda: C.sigmoid([]), lambda: C.plus(x, [])):
        with pytest.raises(ValueError, match="input is empty"):
            make()


def test_binary_ops_refuse_integer_numpy_arrays():
    x = C.input_variable(2, name='x')
    for make in (lambda: x + np.array([1, 2]), lambda: C.minus(x, np.array([1, 2], np.int32)),
                 lambda: C.less(np.array([1]), x), lambda: C.times(x, np.eye(2, dtype=np.int32)),
                 lambda: C.times_transpose(x, np.ones((2, 2), np.int64))):
        with pytest.raises(ValueError, match='NumPy type "int(32|64)" is not supported'):
            make()
    # numpy integer scalars, lists of Python numbers, float arrays, the logical ops and single-operand ops take them
    assert C.less(np.int64(1), x).output.shape == (2,)
    for f in (x + [1, 2], x + np.array([1., 2.]), C.element_and(x, np.array([1, 2])), C.sigmoid(np.array([1, 2]))):
        assert f.output.shape == (2,)
