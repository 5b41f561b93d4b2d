"""top_k returns equal values in the order of CNTK 2.7's CPU kernel (std::partial_sort over the indices); the
expected indices were printed by CNTK 2.7."""
import numpy as np
import pytest

import cntk as C
from cntk_compat.ops._partial_sort import top_k_indices


def _top_k(data, k, shape=None, axis=-1):
    x = C.input_variable(shape or data.shape[1:])
    t = C.top_k(x, k, axis=axis)
    out = t.eval({x: data})
    return out[t.outputs[0]], out[t.outputs[1]]


@pytest.mark.parametrize("row, k, expected", [
    ([1, 3, 3, 2, 3], 3, [4, 1, 2]),
    ([0, 0, 0, 0, 0, 0], 4, [1, 3, 0, 2]),
    ([2, 1, 2, 1, 2, 1], 4, [4, 0, 2, 1]),
    ([2, 0, 2, 2], 1, [0]),                 # the first of the largest
])
def test_ties_come_out_in_cntks_order(row, k, expected):
    values, indices = _top_k(np.array([row], np.float32), k)
    np.testing.assert_array_equal(indices[0], expected)
    np.testing.assert_array_equal(values[0], np.array(row, np.float32)[expected])


def test_rows_without_ties_and_other_axes():
    data = np.array([[[0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1]]], np.float32)     # (1, 4, 3), ties on axis 0
    values, indices = _top_k(data, 2, axis=0)
    for column in range(3):
        np.testing.assert_array_equal(indices[0][:, column], top_k_indices(data[0][:, column].tolist(), 2))
    values, indices = _top_k(np.array([[5, 1, 4, 2]], np.float32), 3)
    np.testing.assert_array_equal(indices, [[0, 2, 3]])
    np.testing.assert_array_equal(values, [[5, 4, 2]])


def test_gradient_reaches_the_chosen_ties():
    x = C.input_variable(5, needs_gradient=True)
    t = C.top_k(x, 3)
    g = C.combine([t.outputs[0]]).grad({x: np.array([[1, 3, 3, 2, 3], [0, 0, 1, 0, 0]], np.float32)}, [x])
    np.testing.assert_array_equal(g, [[0, 1, 1, 0, 1], [1, 1, 1, 0, 0]])     # as CNTK 2.7
