"""Small models from core ops (no layers/losses needed) and data for the training tests."""
import numpy as np

import cntk as C


def logistic_regression(seed=1):
    """(criterion Function with outputs (loss, metric), model, x, y) for a 2-class logistic regression."""
    C.cntk_py.set_fixed_random_seed(seed)
    x = C.input_variable(2, name="features")
    y = C.input_variable(2, name="labels")
    W = C.parameter((2, 2), init=np.array([[0.3, -0.2], [-0.1, 0.4]], np.float32), name="W")
    b = C.parameter(2, init=0, name="b")
    z = C.times(x, W) + b
    loss = C.negate(C.reduce_sum(C.log_softmax(z) * y, axis=0))
    metric = C.not_equal(C.argmax(z, axis=0), C.argmax(y, axis=0))
    return C.combine([loss, metric]), z, x, y


def data(n=1000, seed=0):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 2, n)
    features = ((rng.randn(n, 2) + 3) * (labels[:, None] + 1)).astype(np.float32)
    return features, np.eye(2, dtype=np.float32)[labels]
