"""A small model with fixed initial values and data, shared by the single- and multi-process tests."""
import numpy as np

import cntk as C


def regression():
    """(trainer parts: z, loss, metric, x, y) of a 3->2 tanh layer and a 2->1 linear layer, squared error."""
    x = C.input_variable(3, name="x")
    y = C.input_variable(1, name="y")
    W1 = C.parameter((3, 2), init=np.array([[0.3, -0.2], [-0.1, 0.4], [0.2, 0.1]], np.float32), name="W1")
    b1 = C.parameter(2, init=np.array([0.05, -0.05], np.float32), name="b1")
    W2 = C.parameter((2, 1), init=np.array([[0.5], [-0.3]], np.float32), name="W2")
    z = C.times(C.tanh(C.times(x, W1) + b1), W2)
    loss = C.squared_error(z, y)
    return z, loss, x, y


def data(n, seed=0):
    rng = np.random.RandomState(seed)
    features = rng.randn(n, 3).astype(np.float32)
    targets = (features @ np.array([[1.0], [-2.0], [0.5]], np.float32) * 0.3).astype(np.float32)
    return features, targets


def sgd(parameters, momentum=False):
    """A per-sample learning rate: the update of a minibatch depends on its total, not on how it is split."""
    lr = C.learning_parameter_schedule(0.05, minibatch_size=1)
    if momentum:
        return C.momentum_sgd(parameters, lr, C.momentum_schedule(0.9, minibatch_size=1))
    return C.sgd(parameters, lr)


def parameter_values(z):
    return np.concatenate([p.value.ravel() for p in sorted(z.parameters, key=lambda p: p.name)])
