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


def test_data_objects_are_operands():
    # CNTK 2.7 reads an NDArrayView or a Value operand as the array it holds (a user learner's update writes
    # `beta * g * g` with the gradient views it is handed); values and dtypes from CNTK 2.7
    g32 = C.NDArrayView.from_dense(np.arange(6, dtype=np.float32).reshape(2, 3))
    g64 = C.NDArrayView.from_dense(np.arange(6, dtype=np.float64).reshape(2, 3))
    x = C.input_variable((2, 3))
    c = C.Constant(0.5)
    cases = [(c * g32, np.float32, [0, 0.5, 1, 1.5]), (x * g32, np.float32, [0, 1, 2, 3]),
             (C.square(g64), np.float32, [0, 1, 4, 9]), (C.plus(g32, g64), np.float64, [0, 2, 4, 6]),
             (C.splice(g32, g32), np.float32, [0, 1, 2, 0]), (C.reshape(g32, (3, 2)), np.float32, [0, 1, 2, 3]),
             (c + C.Value(np.ones((1, 2, 3), np.float32)), np.float32, [1.5, 1.5, 1.5, 1.5])]
    for f, dtype, expected in cases:
        out = f.eval({x: np.ones((1, 2, 3), np.float32)}) if f.arguments else f.eval()
        assert f.dtype == dtype
        np.testing.assert_allclose(np.asarray(out).ravel()[:4], expected)
    assert C.times(g32, C.Constant(np.ones((3, 1), np.float32))).eval().ravel().tolist() == [3, 12]
    assert (c + C.Value(np.ones((1, 2, 3), np.float32))).shape == (1, 2, 3)
