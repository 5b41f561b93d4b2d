import numpy as np

import cntk as C


def test_cross_entropy_with_softmax_is_per_sample_scalar():
    z = C.input_variable(3)
    y = C.input_variable(3)
    ce = C.cross_entropy_with_softmax(z, y)
    assert ce.shape == (1,)
    zs = np.array([[1, 2, 3]], np.float32)
    expected = np.log(np.exp(zs).sum()) - 3
    np.testing.assert_allclose(ce.eval({z: zs, y: np.array([[0, 0, 1]], np.float32)}).ravel(), [expected], rtol=1e-5)


def test_squared_error_and_binary_cross_entropy():
    o = C.input_variable(2)
    t = C.input_variable(2)
    np.testing.assert_allclose(C.squared_error(o, t).eval({o: [[1, 2]], t: [[0, 0]]}).ravel(), [5])
    bce = C.binary_cross_entropy(o, t).eval({o: [[0.5, 0.5]], t: [[1, 0]]})
    np.testing.assert_allclose(bce.ravel(), [2 * np.log(2)], rtol=1e-5)
