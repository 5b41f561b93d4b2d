"""An empty minibatch, as CNTK 2.7 refuses it (session 20 sweep, outcomes read from CNTK 2.7): an array without
rows for an input without a sequence axis is the RuntimeError of CNTK's input node (in eval, grad and
train_minibatch alike), an empty list the ValueError of Value creation."""
import numpy as np
import pytest

import cntk as C


def test_an_array_without_rows_is_cntks_runtime_error():
    x = C.input_variable(3, name='x')
    y = C.input_variable(2, name='y')
    z = C.layers.Dense(2)(x)
    empty = np.zeros((0, 3), np.float32)
    message = r"^Node '%s' \(InputValue operation\): NarrowTo: Invalid bounds parameter" % x.uid
    with pytest.raises(RuntimeError, match=message):
        z.eval({x: empty})
    with pytest.raises(RuntimeError, match=message):
        z.grad({x: empty}, wrt=z.parameters)
    t = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)), [C.sgd(z.parameters, 0.1)])
    with pytest.raises(RuntimeError, match=message):
        t.train_minibatch({x: empty, y: np.zeros((0, 2), np.float32)})


def test_an_empty_list_is_a_value_error():
    x = C.input_variable(3, name='x')
    with pytest.raises(ValueError, match="number of sequences must be > 0"):
        (x + 1).eval({x: []})
    s = C.sequence.input_variable(3, name='s')
    with pytest.raises(ValueError, match="number of sequences must be > 0"):
        (s + 1).eval({s: []})
