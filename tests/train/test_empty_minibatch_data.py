"""Evaluating or testing with no data at all (an empty dict, as a reader's next_minibatch returns for another
reader's input map) fails with CNTK 2.7's message, "function expects N arguments" (CNTK's
BN_Inception_CIFAR10 example reaches it); training on an empty dict returns False as in CNTK."""
import numpy as np
import pytest

import cntk as C


def _trainer():
    x, y = C.input_variable(2), C.input_variable(2)
    z = C.layers.Dense(2)(x)
    loss = C.squared_error(z, y)
    return C.Trainer(z, (loss, loss), C.sgd(z.parameters, C.learning_rate_schedule(0.1, C.UnitType.minibatch)))


def test_eval_and_test_without_data():
    x, y = C.input_variable(2), C.input_variable(2)
    with pytest.raises(ValueError, match="^function expects 2 arguments$"):
        (x + y).eval({})
    with pytest.raises(ValueError, match="^function expects 2 arguments$"):
        _trainer().test_minibatch({})


def test_train_without_data_returns_false():
    assert _trainer().train_minibatch({}) is False


def test_partial_data_still_names_the_missing_argument():
    x, y = C.input_variable(2, name="x"), C.input_variable(2, name="y")
    with pytest.raises(ValueError, match="'y'"):
        (x + y).eval({x: np.ones((1, 2), np.float32)})
