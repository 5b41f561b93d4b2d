"""one_hot and top_k at the edges of their ranges, as CNTK 2.7 (golden values from it): an index outside
[0, num_classes) gives a row of zeros; k larger than the axis is a RuntimeError."""
import numpy as np
import pytest

import cntk as C


def test_one_hot_of_indices_out_of_range_is_zero():
    x = C.input_variable((3,))
    X = np.array([[0, 2, 1], [2, 2, 0]], dtype=np.float32)
    np.testing.assert_array_equal(C.one_hot(x, 2).eval({x: X}),
                                  [[[1, 0], [0, 0], [0, 1]], [[0, 0], [0, 0], [1, 0]]])
    np.testing.assert_array_equal(C.one_hot(x, 3).eval({x: -X}),
                                  [[[1, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [1, 0, 0]]])
    np.testing.assert_array_equal(C.one_hot(x, 3).eval({x: X + 0.5}),
                                  [[[1, 0, 0], [0, 0, 1], [0, 1, 0]], [[0, 0, 1], [0, 0, 1], [1, 0, 0]]])


def test_top_k_larger_than_the_axis():
    x = C.input_variable((5,))
    with pytest.raises(RuntimeError, match="exceeds"):
        C.top_k(x, 6)
    assert C.top_k(x, 5).outputs[0].shape == (5,)
