"""parameters, constants and arguments of a primitive or block Function (an output's owner, a root_function)
are its own inputs', not those of the whole graph below it, as in CNTK 2.7 (found with CNTK's
ClassActivationMaps example, which takes the Dense head's 'W' from ``model.outputs[0].owner.parameters``).
The expected values are CNTK 2.7's (a probe of the same graphs)."""
import numpy as np

import cntk as C


def test_a_blocks_parameters_are_its_own():
    x = C.input_variable(3, name='x')
    h = C.layers.Dense(4, name='d1')(x)
    z = C.layers.Dense(2, name='d2')(h)
    owner = z.outputs[0].owner
    assert owner.is_block
    assert [(p.name, p.shape) for p in owner.parameters] == [('W', (4, 2)), ('b', (2,))]
    assert [a.name for a in owner.arguments] == ['d1'] and owner.constants == ()
    assert [p.name for p in z.parameters] == ['W', 'b', 'W', 'b']      # the composite: the whole graph


def test_a_primitives_parameters_constants_and_arguments_are_its_inputs():
    x = C.input_variable(3, name='x')
    q = C.plus(C.times(x, C.parameter((3, 2), name='W2')), C.constant(np.ones(2, np.float32), name='c2'), name='pl')
    owner = q.owner
    assert owner.parameters == () and [c.name for c in owner.constants] == ['c2']
    assert [(a.name, a.is_output) for a in owner.arguments] == [('', True)]   # the times output
    assert q.root_function.parameters == ()
    assert [p.name for p in q.parameters] == ['W2']
    assert [(a.name, a.is_output) for a in C.abs(x).owner.arguments] == [('x', False)]


def test_a_past_values_initial_state_is_not_an_argument():
    s = C.sequence.input_variable(2, name='s')
    pv = C.sequence.past_value(s)
    assert [(a.name, a.is_output) for a in pv.owner.arguments] == [('s', False)]
