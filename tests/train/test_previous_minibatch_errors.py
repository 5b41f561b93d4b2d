"""What CNTK 2.7's Trainer says about the previous minibatch when there is none (before the first one, after an
empty one, which it forgets) and about a metric it was not given (checked with CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C

NONE_YET = r"^There was no preceding call to TrainMinibatch or the minibatch was empty\.$"


def _trainer(metric=True):
    x, y = C.input_variable(3), C.input_variable(2)
    z = C.layers.Dense(2)(x)
    loss = C.cross_entropy_with_softmax(z, y)
    criterion = (loss, C.classification_error(z, y)) if metric else loss
    return x, y, C.Trainer(z, criterion, [C.sgd(z.parameters, C.learning_parameter_schedule(0.05))])


def _data():
    return np.ones((4, 3), np.float32), np.eye(2, dtype=np.float32)[[0, 1, 0, 0]]


def test_no_previous_minibatch_before_the_first_and_after_an_empty_one():
    x, y, t = _trainer()
    for _ in range(2):
        with pytest.raises(RuntimeError, match=NONE_YET):
            t.previous_minibatch_loss_average
        with pytest.raises(RuntimeError, match=NONE_YET):
            t.previous_minibatch_evaluation_average
        assert t.previous_minibatch_sample_count == 0
        assert t.train_minibatch({}) is False
    X, Y = _data()
    t.train_minibatch({x: X, y: Y})
    assert t.previous_minibatch_sample_count == 4 and 0 <= t.previous_minibatch_evaluation_average <= 1
    assert t.train_minibatch({}) is False          # forgets the minibatch before
    with pytest.raises(RuntimeError, match=NONE_YET):
        t.previous_minibatch_loss_average
    assert t.previous_minibatch_sample_count == 0


def test_without_a_metric():
    x, y, t = _trainer(metric=False)
    X, Y = _data()
    t.train_minibatch({x: X, y: Y})
    with pytest.raises(ValueError, match=r"^Trainer::PreviousMinibatchEvaluationAverage: Cannot get evaluation "
                                         r"criterion value when no evaluation function was specified during 'this' "
                                         r"trainer's construction$"):
        t.previous_minibatch_evaluation_average
    with pytest.raises(ValueError, match=r"^Evaluator::TestMinibatch: Cannot test when no evaluation function was "
                                         r"specified during construction\.$"):
        t.test_minibatch({x: X, y: Y})
