"""copy and pickle of graph objects, as in CNTK 2.7: pickling (every protocol) and copy.deepcopy of a Function,
Parameter, Constant, input, output or placeholder Variable raise a TypeError; copy.copy gives a handle on the
same node (equal to it, sharing its value)."""
import copy
import pickle

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.layers import Dense


def _graph():
    x = C.input_variable(3, name='x')
    W = C.parameter((3, 2), init=1.0, name='W')
    c = C.constant(np.ones((2,), np.float32), name='c')
    f = C.times(x, W, name='t') + c
    return x, W, c, f


def _objects():
    x, W, c, f = _graph()
    dense = Dense(2, name='dense')
    return {'function': f, 'parameter': W, 'constant': c, 'input': x, 'output': f.output,
            'primitive': f.root_function.inputs[0].owner, 'placeholder': C.placeholder(name='p'),
            'layer': dense, 'applied layer': dense(x)}


@pytest.mark.parametrize('what', sorted(_objects()))
def test_pickling_and_deepcopy_raise_a_type_error(what):
    obj = _objects()[what]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match="can't pickle %s objects" % type(obj).__name__):
            pickle.dumps(obj, protocol=protocol)
    with pytest.raises(TypeError, match="Function.clone"):
        pickle.dumps(obj)
    with pytest.raises(TypeError, match="can't pickle"):
        copy.deepcopy(obj)
    with pytest.raises(TypeError, match="can't pickle"):
        copy.deepcopy([1, obj])


def test_the_message_names_the_object():
    _, W, _, _ = _graph()
    with pytest.raises(TypeError, match="'W'"):
        pickle.dumps(W)


def test_a_shallow_copy_is_the_same_node():
    x, W, c, f = _graph()
    for obj in (x, W, c, f.output):
        twin = copy.copy(obj)
        assert twin == obj and twin.uid == obj.uid and twin.shape == obj.shape and twin.name == obj.name
    twin = copy.copy(W)
    twin.value = np.full((3, 2), 2.0, np.float32)
    np.testing.assert_array_equal(W.value, np.full((3, 2), 2.0))
    g = copy.copy(f)
    assert g.output == f.output
    assert [a.name for a in g.arguments] == ['x'] and g.parameters[0] == W
    np.testing.assert_array_equal(g.eval({x: np.ones((1, 3), np.float32)}), [[7., 7.]])
