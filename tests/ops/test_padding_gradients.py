"""Gradients over sequences of unequal length: the padding after a short sequence's end gets no gradient, even
where an op's derivative is infinite at the padding's zeros (as CNTK, which masks gradients there)."""
import numpy as np
import pytest

import cntk as C

DATA = [np.array([[1, 2], [3, 4], [1, 1]], np.float32), np.array([[2, 1]], np.float32)]
W0 = np.array([[1., 0.5], [0.25, 1.]], np.float32)
# CNTK 2.7's gradients for W of sequence.reduce_sum(reduce_sum(op(times(x, W)))) on DATA
SQRT = [[2.2721, 2.0712], [2.5970, 2.2471]]
COS = [[-0.3352, 0.3157], [-0.2954, 0.2512]]


def _grad(op):
    x = C.sequence.input_variable(2)
    W = C.parameter((2, 2), init=W0)
    h = C.times(x, W)
    loss = C.sequence.reduce_sum(C.reduce_sum(op(h)))
    return loss.grad({x: DATA}, wrt=[W])


@pytest.mark.parametrize("op, expected", [
    (C.sqrt, SQRT),
    (lambda h: C.pow(h, 0.5), SQRT),   # the true derivative (CNTK 2.7's Pow reads a reused buffer here)
    (lambda h: C.cosine_distance(h, C.sequence.broadcast_as(C.constant([1., 2.]), h)), COS),
])
def test_parameter_gradient_is_finite_across_the_padding(op, expected):
    g = _grad(op)
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g, expected, atol=1e-4)


def test_sqrt_gradient_at_a_real_zero_is_still_infinite():
    x = C.input_variable(2, needs_gradient=True)
    g = C.sqrt(x).grad({x: np.array([[0., 4.]], np.float32)})
    assert np.isinf(g[0, 0]) and g[0, 1] == pytest.approx(0.25)
