"""Trainer.train_minibatch(..., outputs=[...]) returns the values keyed by the objects asked for (a Function
given is its value's key, and its output Variable is not one), as CNTK 2.7 does; golden values from CNTK 2.7.
akamotaco/normalizing_flow_cntk reads ``train_minibatch(..., outputs=[loss])[1][loss]``."""
import numpy as np
import pytest

import cntk as C


def test_train_minibatch_outputs_are_keyed_as_requested():
    x = C.input_variable(2, name='x')
    y = C.input_variable(1, name='y')
    W = C.parameter((2, 1), init=np.array([[0.5], [-0.25]], np.float32))
    b = C.parameter(1, init=0.1)
    z = C.times(x, W) + b
    ce = C.squared_error(z, y, name='ce')
    pe = C.abs(z - y, name='pe')
    trainer = C.Trainer(z, (ce, pe), [C.sgd([W, b], 0.1)])
    X = np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32)
    Y = np.array([[1], [0], [2]], np.float32)
    updated, d = trainer.train_minibatch({x: X, y: Y}, outputs=[ce, pe.output, z])
    assert updated
    assert sorted(type(k).__name__ for k in d) == ['Function', 'Function', 'Variable']
    np.testing.assert_allclose(d[ce], [0.81, 3.4225001335144043, 3.150624990463257], rtol=1e-6)
    np.testing.assert_allclose(d[pe.output], [[0.9], [1.85], [1.774999976158142]], rtol=1e-6)
    np.testing.assert_allclose(d[z], [[0.1], [1.85], [0.22499999403953552]], rtol=1e-6)
    with pytest.raises(KeyError):
        d[ce.output]
    np.testing.assert_allclose(W.value, [[0.24916663765907288], [0.052500009536743164]], rtol=1e-6)
    np.testing.assert_allclose(b.value, [0.1550000011920929], rtol=1e-6)
