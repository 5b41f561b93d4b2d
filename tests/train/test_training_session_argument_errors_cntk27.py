"""Bad counts given to a training session, its checkpoint and its cross validation raise what CNTK 2.7 raises
(session 20 sweep, outcomes read from CNTK 2.7): a frequency other than an int or a (count, DataUnit) pair is a
TypeError, a negative one the error of CNTK's native constructor (NotImplementedError for the configs, whose
overloads do not match, OverflowError for the session's size_t), a negative max_samples an OverflowError."""
import numpy as np
import pytest

import cntk as C
from cntk.train.training_session import CheckpointConfig, CrossValidationConfig, training_session


def _session_parts():
    x = C.input_variable(3, name='x')
    y = C.input_variable(2, name='y')
    z = C.layers.Dense(2)(x)
    t = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)), [C.sgd(z.parameters, 0.1)])
    s = C.io.MinibatchSourceFromData(dict(x=np.ones((4, 3), 'f'), y=np.ones((4, 2), 'f')), max_samples=8)
    return t, s, {x: s.streams.x, y: s.streams.y}


def test_frequencies_and_counts():
    t, s, m = _session_parts()
    for bad in (-1, (-1, C.train.DataUnit.sample)):
        with pytest.raises(NotImplementedError, match="CheckpointConfig"):
            CheckpointConfig('c', frequency=bad)
        with pytest.raises(NotImplementedError, match="CrossValidationConfig"):
            CrossValidationConfig(s, frequency=bad)
    with pytest.raises(TypeError, match="CheckpointConfig"):
        CheckpointConfig('c', frequency=1.5)
    for bad in (-1, (-1, C.train.DataUnit.minibatch)):
        with pytest.raises(OverflowError, match="progress_frequency"):
            training_session(t, s, 4, m, progress_frequency=bad)
    with pytest.raises(TypeError, match="progress_frequency"):
        training_session(t, s, 4, m, progress_frequency=1.5)
    with pytest.raises(OverflowError, match="max_samples"):
        training_session(t, s, 4, m, max_samples=-1)
    assert CrossValidationConfig(s, minibatch_size=0) is not None
    assert training_session(t, s, 0, m) is not None
