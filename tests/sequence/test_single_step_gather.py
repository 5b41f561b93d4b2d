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


def test_sequence_slice_axes_as_cntk_names_them():
    # CNTK 2.7: a slice of one step has the batch axis only; slices of a fixed length n share the axis
    # <seq>_fixedSliceOf_n; begin >= 0 and end <= 0 give <seq>_times_1_minus_(begin - end)
    a = C.sequence.input_variable((2,), sequence_axis=C.Axis("myseq"))
    names = {}
    for b, e in [(1, 2), (0, 1), (-1, 0), (-2, -1), (1, 0), (0, -1), (2, 0), (0, 3), (-3, 0), (-3, -1)]:
        names[(b, e)] = [x.name for x in C.sequence.slice(a, b, e).dynamic_axes]
    assert all(names[k] == ["defaultBatchAxis"] for k in [(1, 2), (0, 1), (-1, 0), (-2, -1)])
    assert names[(1, 0)] == names[(0, -1)] == ["defaultBatchAxis", "myseq_times_1_minus_1"]
    assert names[(2, 0)] == ["defaultBatchAxis", "myseq_times_1_minus_2"]
    assert names[(0, 3)] == names[(-3, 0)] == ["defaultBatchAxis", "myseq_fixedSliceOf_3"]
    assert names[(-3, -1)] == ["defaultBatchAxis", "myseq_fixedSliceOf_2"]
    data = [np.arange(8, dtype=np.float32).reshape(4, 2)]
    assert np.array_equal((C.sequence.slice(a, 0, 2) + C.sequence.slice(a, 1, 3)).eval({a: data}),
                          [[[2., 4.], [6., 8.]]])
    assert np.array_equal(C.sequence.slice(a, 1, 2).eval({a: data}), [[2., 3.]])
