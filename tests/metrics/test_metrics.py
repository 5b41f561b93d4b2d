import numpy as np

import cntk as C


def test_classification_error_top1_and_topn():
    z = C.input_variable(4)
    y = C.input_variable(4)
    zs = np.array([[1, 4, 3, 2], [1, 4, 3, 2]], np.float32)
    ys = np.array([[0, 1, 0, 0], [0, 0, 1, 0]], np.float32)
    assert C.classification_error(z, y).shape == (1,)
    np.testing.assert_allclose(C.classification_error(z, y).eval({z: zs, y: ys}).ravel(), [0, 1])
    np.testing.assert_allclose(C.classification_error(z, y, topN=2).eval({z: zs, y: ys}).ravel(), [0, 0])
