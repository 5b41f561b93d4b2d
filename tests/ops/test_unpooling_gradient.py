"""Max unpooling's gradient as CNTK 2.7 computes it: the pooled operand's gradient is the maximum of the output
gradient over each window (CNTK max-pools the incoming gradient instead of reading it where each value went), and
the pooling input, which only places the values, gets none. CNTK's 07_Deconvolution_PY example (and its end-to-end
test) trains through it. Expected values: CNTK 2.7 on the same inputs (windows with ties, overlapping, padded)."""
import numpy as np
import pytest

import cntk as C

A = np.array([[[0, 0, 2, 0, 1, 1], [1, 0, 0, 3, 1, 0], [0, 2, 2, 0, 0, 0], [1, 0, 0, 1, 2, 2],
               [0, 3, 0, 0, 2, 0]]], np.float32)
R = (np.arange(30, dtype=np.float32).reshape(1, 5, 6) * 7 % 11 - 5) / 4

CASES = [
    (((2, 2), (2, 2), False),
     [[0, 0, 0, 0, .25, 0], [1, 0, 0, 1.25, 0, 0], [0, .5, 1.25, 0, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0]],
     5.25),
    (((3, 3), (2, 2), True),
     [[0, 0, 0, 0, 0, 0], [1, 0, 0, 4.75, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0], [0, 2.5, 0, 0, 0, 0]],
     10.25),
    (((2, 3), (1, 2), True),
     [[0, 0, 0, 0, 0, 0], [1, 0, 0, 4.75, 0, 0], [0, 2.75, 0, 0, 0, 0], [0, 0, 0, 0, 2, 0], [0, 5, 0, 0, 1, 0]],
     16.5),
]


@pytest.mark.parametrize("geometry,expected_x,expected_b", CASES)
def test_unpooling_gradient_is_cntks(geometry, expected_x, expected_b):
    window, strides, pad = geometry
    x = C.input_variable((1, 5, 6), needs_gradient=True)
    b = C.parameter((1, 1, 1), init=0.0)
    c = C.relu(x + b)
    u = C.layers.MaxUnpooling(window, strides, pad=pad)(C.layers.MaxPooling(window, strides, pad=pad)(c), c)
    g = C.reduce_sum(u * R).grad({x: A[None]}, wrt=[x, b])
    np.testing.assert_array_equal(g[x][0, 0], np.array(expected_x, np.float32))
    np.testing.assert_array_equal(g[b].ravel(), [expected_b])


def test_the_pooling_input_gets_no_gradient_through_unpooling():
    # only the values flow back: with the pooled operand's gradient stopped, the pooling input's is zero (CNTK 2.7)
    x = C.input_variable((1, 4, 4), needs_gradient=True)
    pooled = C.stop_gradient(C.pooling(x, C.MAX_POOLING, (2, 2), (2, 2)))
    u = C.unpooling(pooled, x, C.MAX_UNPOOLING, (2, 2), (2, 2))
    g = C.reduce_sum(u).grad({x: np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)})
    np.testing.assert_array_equal(g, np.zeros((1, 1, 4, 4), np.float32))
