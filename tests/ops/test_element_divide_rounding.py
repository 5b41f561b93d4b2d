"""CNTK's ElementDivide is ElementTimes(left, Reciprocal(right)): x / 255.0 is x * float32(1/255), which is not
the correctly rounded quotient for many x (3/255: CNTK 0.011764707043766975, the quotient 0.0117647061124444).
Its gradients follow the composition: g * (1/b) for the left operand and -(g * a) * ((1/b) * (1/b)) for the
right one. Values checked bit for bit against CNTK 2.7 (float32)."""
import numpy as np

import cntk as C


def test_dividing_by_a_constant_multiplies_by_its_float32_reciprocal():
    x = C.input_variable(256)
    v = np.arange(256, dtype=np.float32)[None]
    expected = v * (np.float32(1) / np.float32(255))
    for f in (x / 255.0, x / 255, C.element_divide(x, 255.0)):
        r = f.eval({x: v})
        assert np.array_equal(r, expected)
    assert (x / 255.0).eval({x: v})[0, [3, 7, 77]].tolist() == [0.011764707043766975, 0.027450982481241226,
                                                                0.3019607961177826]   # CNTK 2.7's values
    assert not np.array_equal(expected, v / np.float32(255))   # the quotient rounds otherwise


def test_the_gradients_are_those_of_times_reciprocal():
    rng = np.random.RandomState(0)
    a = rng.randn(1, 1000).astype(np.float32)
    b = ((rng.rand(1, 1000) * 3 + 0.1) * np.sign(rng.randn(1, 1000))).astype(np.float32)
    c = (rng.randn(1000) * 3).astype(np.float32)
    x = C.input_variable(1000, needs_gradient=True)
    y = C.input_variable(1000, needs_gradient=True)
    rb = np.float32(1) / b
    assert np.array_equal((x / y).eval({x: a, y: b}), a * rb)
    g = ((x / y) * C.constant(c)).grad({x: a, y: b}, wrt=[x, y])
    assert np.array_equal(np.asarray(g[x]).reshape(1, -1), c * rb)
    assert np.array_equal(np.asarray(g[y]).reshape(1, -1), -((c * a) * (rb * rb)))


def test_a_divisor_broadcast_over_the_batch_and_a_scalar_dividend():
    x = C.input_variable(3)
    d = C.constant(np.array([3.0, 7.0, 10.0], np.float32))
    v = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    assert np.array_equal((x / d).eval({x: v}), v * (np.float32(1) / np.array([3, 7, 10], np.float32)))
    assert np.array_equal((1.0 / (x + 1)).eval({x: v}), np.float32(1) * (np.float32(1) / (v + 1)))


def test_dividing_by_zero_gives_zero_with_zero_gradients():
    # CNTK 2.7: x / 0 is x * reciprocal(0) = x * 0 (its reciprocal of 0 is 0), gradients 0 for both operands
    x = C.input_variable(3, needs_gradient=True)
    y = C.input_variable(3, needs_gradient=True)
    a = np.array([[1, 0, -2]], np.float32)
    b = np.zeros((1, 3), np.float32)
    assert (x / y).eval({x: a, y: b}).tolist() == [[0.0, 0.0, 0.0]]
    g = (x / y).grad({x: a, y: b}, wrt=[x, y])
    assert np.asarray(g[x]).tolist() == [[0.0, 0.0, 0.0]] and np.asarray(g[y]).tolist() == [[0.0, 0.0, 0.0]]
