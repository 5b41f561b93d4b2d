"""ResNetBlock and SequentialClique as CNTK 2.7 builds them: the Python function itself (a Function only when
named), with CNTK's values."""
import types

import numpy as np

import cntk as C
from cntk.layers import Dense, ResNetBlock, Sequential, SequentialClique


def test_unnamed_blocks_are_python_functions_named_ones_functions():
    assert isinstance(ResNetBlock(C.relu), types.FunctionType)
    assert isinstance(SequentialClique([C.abs, C.sqrt]), types.FunctionType)
    named = ResNetBlock(C.relu, name='rb')
    assert isinstance(named, C.Function) and named.name == 'rb'


def test_values():
    x = C.input_variable(2)
    # CNTK 2.7's docstring example: square((8 + abs(8)) + sqrt(8 + abs(8))) = 400
    np.testing.assert_array_equal(SequentialClique([C.abs, C.sqrt, C.square])(x).eval(np.array([[2, 8]], np.float32)),
                                  [[36, 400]])
    np.testing.assert_array_equal(ResNetBlock(C.relu, name='rb')(x).eval(np.array([[-1, 2]], np.float32)), [[-1, 4]])
    # CNTK 2.7's numbers for a Dense with glorot_uniform(seed=2) in a ResNet layer
    m = Sequential([ResNetBlock(Dense(2, init=C.glorot_uniform(seed=2))), C.relu])
    np.testing.assert_allclose(m(x).eval(np.array([[1., -2.]], np.float32)), [[0.5981933, 0.]], rtol=1e-6)
