"""A Function's parameters come in CNTK 2.7's order: its C++ operand order, in which times(x, W) is Times(W, x)
(and times_transpose likewise), while inputs and arguments keep Python's operand order. Every list below is what
CNTK 2.7 printed for the same graph."""
import numpy as np

import cntk as C


def _names(vs):
    return [v.name for v in vs]


def test_parameters_follow_cntks_operand_order():
    x = C.input_variable(4, name='x')
    W1, W2 = C.parameter((4, 2), name='W1'), C.parameter((2, 3), name='W2')
    b = C.parameter(3, name='b')
    k = C.constant(np.ones(3, np.float32), name='k')
    f = C.times(C.times(x, W1), W2) + b + k
    assert _names(f.parameters) == ['W2', 'W1', 'b'] and _names(f.constants) == ['k']
    assert _names(f.inputs) == ['x', 'W1', 'W2', 'b', 'k']
    assert _names((C.times(x, C.times(W1, W2)) + b).parameters) == ['W2', 'W1', 'b']
    assert _names(C.plus(C.times(x, W1), C.times(x, C.parameter((4, 2), name='V'))).parameters) == ['W1', 'V']
    assert _names(C.times_transpose(C.parameter((3, 4), name='U'), C.parameter((5, 4), name='V')).parameters) == \
        ['V', 'U']
    e = C.element_times(C.parameter(4, name='E1'), C.times(x, C.parameter((4, 4), name='E2')))
    assert _names(e.parameters) == ['E1', 'E2']
    a, c = C.input_variable((2, 3), name='a'), C.input_variable((3, 4), name='c')
    assert _names(C.times(a, c).arguments) == ['a', 'c']


def test_a_block_lists_its_captured_parameters_in_that_order():
    x = C.input_variable(4, name='x')
    W1, W2 = C.parameter((4, 2), name='W1'), C.parameter((2, 3), name='W2')
    b = C.parameter(3, name='b')

    @C.BlockFunction('Blk', 'blk')
    def blk(q):
        return C.times(C.times(q, W1), W2) + b
    h = blk(x)
    assert _names(h.root_function.inputs) == ['W2', 'W1', 'b', 'x']
    assert _names(h.parameters) == ['W2', 'W1', 'b']
    d = C.layers.Dense(3)(x)
    assert _names(d.root_function.inputs) == ['W', 'b', 'x']
