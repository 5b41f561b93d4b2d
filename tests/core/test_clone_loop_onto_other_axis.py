"""A graph with recurrent loops built over a placeholder on the default sequence axis, cloned (or called) onto a
sequence input on another sequence axis: the copied loops take their types from their new inputs, as CNTK 2.7 types
them. The loops' stand-ins once kept the original's axes, and the clone failed with "Operation 'Plus': Operand ...
[#, dec] ... do not match the dynamic axes '[#, *]'" (akamotaco/cntk_transformer's decoder, whose attention mask
is such a loop inside a block). Values from CNTK 2.7."""
import numpy as np

import cntk as C


def _loops_over_placeholder():
    x = C.placeholder(2, (C.Axis.default_batch_axis(), C.Axis.default_dynamic_axis()), name='ph')
    forward = C.layers.Recurrence(C.plus)(x * 2)
    backward = C.layers.Recurrence(C.plus, go_backwards=True)(C.ones_like(x[0]))
    return x, C.splice(forward, backward)


def test_clone_onto_another_sequence_axis():
    x, f = _loops_over_placeholder()
    y = C.sequence.input_variable(2, sequence_axis=C.Axis('dec'))
    g = f.clone(C.CloneMethod.share, {x: y})
    assert g.output.shape == (3,)
    assert g.output.dynamic_axes == (C.Axis.default_batch_axis(), C.Axis('dec'))
    got = g.eval({y: [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((2, 2), np.float32)]})
    np.testing.assert_array_equal(got[0], [[0, 2, 3], [4, 8, 2], [12, 18, 1]])
    np.testing.assert_array_equal(got[1], [[2, 2, 2], [4, 4, 1]])


def test_call_onto_another_sequence_axis():
    _, f = _loops_over_placeholder()
    y = C.sequence.input_variable(2, sequence_axis=C.Axis('dec'))
    h = f(y)
    assert h.output.dynamic_axes == (C.Axis.default_batch_axis(), C.Axis('dec'))
    np.testing.assert_array_equal(h.eval({y: [np.ones((1, 2), np.float32)]})[0], [[2, 2, 1]])


def test_loop_inside_a_block_called_onto_another_sequence_axis():
    def positions():
        p = C.placeholder(1)
        count = C.layers.Recurrence(C.plus, return_full_state=True)(C.ones_like(p[0]))
        return C.as_block(C.sequence.unpack(count, 0, True), [(p, p)], 'positions')

    x = C.placeholder(4, (C.Axis.default_batch_axis(), C.Axis.default_dynamic_axis()), name='ph')
    m = positions()(x)
    y = C.sequence.input_variable(4, sequence_axis=C.Axis('dec'))
    g = m.clone(C.CloneMethod.share, {x: y})
    assert g.output.shape == (-3, 1)
    assert g.output.dynamic_axes == (C.Axis.default_batch_axis(),)
    np.testing.assert_array_equal(g.eval({y: np.ones((1, 3, 4), np.float32)}), [[[1], [2], [3]]])
