"""sequence.gather/where with new_sequence_axis_typeinfo=(0, 1) (one step per new sequence): CNTK 2.7 gives a
result with the batch axis only (its sequence_test.py::test_op_gather_derived_dynamic_axes_equivalence)."""
import numpy as np

import cntk as C


def test_gather_of_the_last_step_has_no_sequence_axis():
    a = C.sequence.input_variable((1,), name="a")
    b = C.sequence.input_variable((1,), name="b")
    a_last = C.sequence.gather(a, C.sequence.is_last(a), new_sequence_axis_typeinfo=(0, 1))
    b_last = C.sequence.gather(b, C.sequence.is_last(b), new_sequence_axis_typeinfo=(0, 1))
    z = a_last + b_last
    assert a_last.shape == (1,)
    assert a_last.dynamic_axes == (C.Axis.default_batch_axis(),) and z.dynamic_axes == a_last.dynamic_axes
    assert np.array_equal(z.eval({a: np.ones((1, 1, 1), np.float32), b: 2 * np.ones((1, 1, 1), np.float32)}),
                          [[3.]])
    data = [np.array([[1.], [2.], [5.]], np.float32), np.array([[7.]], np.float32)]
    assert np.array_equal(a_last.eval({a: data}), [[5.], [7.]])
    assert np.array_equal(a_last.eval({a: data}), C.sequence.last(a).eval({a: data}))


def test_single_step_gather_passes_gradients_to_the_picked_steps():
    a = C.sequence.input_variable((2,), needs_gradient=True)
    first = C.sequence.gather(a, C.sequence.is_first(a), new_sequence_axis_typeinfo=(0, 1))
    data = [np.arange(6, dtype=np.float32).reshape(3, 2), np.arange(2, dtype=np.float32).reshape(1, 2)]
    g = C.reduce_sum(first).grad({a: data}, wrt=[a])
    assert np.array_equal(g[0], [[1, 1], [0, 0], [0, 0]]) and np.array_equal(g[1], [[1, 1]])


def test_single_step_where_gives_the_step_index():
    a = C.sequence.input_variable(())
    w = C.sequence.where(C.sequence.is_last(a), new_sequence_axis_typeinfo=(0, 1))
    assert w.shape == () and w.dynamic_axes == (C.Axis.default_batch_axis(),)
    assert np.array_equal(w.eval({a: [np.zeros(4, np.float32), np.zeros(2, np.float32)]}), [3., 1.])
