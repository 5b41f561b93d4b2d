"""Gradients of maxima and minima at ties, as CNTK 2.7 gives them (values from CNTK 2.7): element_max/element_min
send a tie's gradient to their right operand, reduce_max/reduce_min give it whole to every tied element."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("op, left, right", [(C.element_max, [0, 1, 0], [1, 0, 1]),
                                             (C.element_min, [0, 0, 1], [1, 1, 0])])
def test_element_extremes_send_a_tie_to_the_right_operand(op, left, right):
    x = C.input_variable(3, needs_gradient=True)
    y = C.input_variable(3, needs_gradient=True)
    g = C.reduce_sum(op(x, y)).grad({x: np.array([[2, 3, 1]], np.float32), y: np.array([[2, 1, 3]], np.float32)},
                                    wrt=[x, y])
    np.testing.assert_array_equal(g[x], [left])
    np.testing.assert_array_equal(g[y], [right])


@pytest.mark.parametrize("op, data", [(C.reduce_max, [2, 2, 1]), (C.reduce_min, [1, 1, 2])])
def test_reduced_extremes_give_every_tie_the_whole_gradient(op, data):
    x = C.input_variable(3, needs_gradient=True)
    g = C.reduce_sum(op(x)).grad({x: np.array([data], np.float32)})
    np.testing.assert_array_equal(g, [[1, 1, 0]])
    v = C.input_variable((2, 2), needs_gradient=True)
    g = C.reduce_sum(op(v, axis=1, keepdims=False)).grad({v: np.array([[[3, 3], [0, 1]]], np.float32)})
    np.testing.assert_array_equal(g, [[[1, 1], [0, 1]] if op is C.reduce_max else [[1, 1], [1, 0]]])
