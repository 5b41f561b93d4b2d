"""depth_to_space, multi-argument ops, getitem, times with a static left operand, top_k, mvn, clip."""
import numpy as np
import pytest

import cntk as C


def test_depth_to_space_docstring_example_and_round_trip():
    x = np.tile(np.arange(8, dtype=np.float32).reshape(8, 1, 1), (1, 2, 3))
    a = C.input_variable((8, 2, 3))
    y = C.depth_to_space(a, block_size=2).eval({a: x})
    np.testing.assert_array_equal(y[0, 0, :2], [[0, 2, 0, 2, 0, 2], [4, 6, 4, 6, 4, 6]])
    np.testing.assert_array_equal(y[0, 1, :2], [[1, 3, 1, 3, 1, 3], [5, 7, 5, 7, 5, 7]])
    b = C.input_variable((2, 4, 6))
    np.testing.assert_array_equal(C.space_to_depth(b, 2).eval({b: y}), x[None])


def test_multi_argument_plus_and_element_times():
    r = C.plus([-5, -4, -3, -2, -1], [10], [3, 2, 3, 2, 3], [-13], [+42], 'multi_arg_example')
    assert r.name == 'multi_arg_example'
    np.testing.assert_array_equal(r.eval(), [37, 37, 39, 39, 41])
    np.testing.assert_array_equal(C.element_times([5., 10., 15., 30.], [2.], [1., 2., 1., 2.]).eval(),
                                  [10, 40, 30, 120])


def test_image_scaler_adds_one_bias_per_channel():
    x = C.input_variable((2, 1, 2))
    y = C.image_scaler(x, 2.0, [1.0, 10.0]).eval({x: np.ones((1, 2, 1, 2), np.float32)})
    np.testing.assert_array_equal(y, [[[[3, 3]], [[12, 12]]]])


def test_getitem_forms():
    x = C.constant(np.arange(12.).reshape(3, 4))
    np.testing.assert_array_equal(x[1].eval(), [[4, 5, 6, 7]])
    np.testing.assert_array_equal(x[:, [1, 2]].eval(), [[1, 2], [5, 6], [9, 10]])
    assert x[..., 1:3].shape == (3, 2)
    f = C.combine(x * 1, x * 2)
    assert f[1] is f.outputs[1]


@pytest.mark.parametrize("op", [C.times, C.times_transpose])
def test_static_left_operand_keeps_the_batch_axis(op):
    a = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    b = np.array([[1, 3], [2, 4]], np.float32)
    y = C.input_variable((2, 2), needs_gradient=True)
    f = op(C.constant(a), y)
    expected = np.tensordot(a, b if op is C.times else b.T, axes=1)
    np.testing.assert_allclose(f.eval({y: b[None]}), expected[None])
    assert f.grad({y: b[None]}).shape == (1, 2, 2)


def test_top_k_on_a_placeholder_along_an_inner_axis():
    q = C.sequence.input_variable((5, 6))
    y = C.top_k(C.placeholder(), 3, axis=0)(q)
    data = [np.random.randn(4, 5, 6).astype(np.float32)]
    values = y.eval({q: data})[y.outputs[0]]
    np.testing.assert_allclose(values[0], -np.sort(-data[0], axis=1)[:, :3], rtol=1e-6)


def test_mean_variance_normalization_adds_epsilon_to_the_deviation():
    x = np.array([[[0., 2.], [4., 6.]], [[0., 4.], [8., 12.]]], np.float32)
    a = C.input_variable((2, 2, 2))
    y = C.mean_variance_normalization(a, epsilon=0.01, do_variance_scaling=True).eval({a: x})
    np.testing.assert_allclose(y[0, 0], [[-1.33566761, -0.44522253], [0.44522253, 1.33566761]], rtol=1e-5)


def test_clip_gradient_includes_the_bounds():
    x = C.input_variable(3, needs_gradient=True)
    g = C.clip(x, 1.0, 2.0).grad({x: np.array([[1.0, 2.0, 2.5]], np.float32)})
    np.testing.assert_array_equal(g, [[1, 1, 0]])


def test_combine_keeps_its_name():
    import cntk as C
    x, y = C.input_variable(2, name='x'), C.input_variable(2)
    both = C.combine([x + 1, y * 2], name='both')
    assert both.name == 'both' and str(both).startswith('both: Composite(')
    assert C.combine([x + 1], name='one').name == 'one'
    assert len(both.outputs) == 2


def _cntk_gather(ref, idx, axis):
    """CNTK 2.7's GatherOp block: swap the axis with the first, gather along the first, swap the result's first
    axis with the user's axis counted from the end in CNTK's order (so a negative axis counts in the result)."""
    r, k = ref.ndim, idx.ndim
    g = np.swapaxes(ref, 0, axis % r)[idx.astype(int)]
    return np.swapaxes(g, 0, axis if axis >= 0 else r - 1 + k + axis)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("idx_shape", [(4,), (2, 3), (2, 2, 2)])
def test_gather_along_an_axis_is_cntk27s_block_not_numpy_take(axis, idx_shape):
    # shapes CNTK 2.7 gives for data (2, 3, 2) (checked against it): (2, 3) indices along axis 1 -> (3, 2, 2, 2),
    # along -1 -> (2, 3, 3, 2); numpy's take would give (2, 2, 3, 2) and (2, 3, 2, 3)
    data = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    idx = (np.arange(int(np.prod(idx_shape))) * 7 % 11 % data.shape[axis]).reshape(idx_shape).astype(np.float32)
    y = C.input_variable(idx_shape)
    f = C.gather(data, y, axis)
    want = _cntk_gather(data, idx, axis)
    assert f.shape == want.shape
    got = f.eval({y: np.stack([idx, idx[::-1] if idx.ndim == 1 else idx])})
    np.testing.assert_array_equal(got[0], want)
    if idx.ndim == 1:  # a vector of indices: numpy's take, whatever the axis' sign
        np.testing.assert_array_equal(got[1], np.take(data, idx[::-1].astype(int), axis=axis))
    if (idx_shape, axis) == ((2, 3), 1):
        assert f.shape == (3, 2, 2, 2)
    if (idx_shape, axis) == ((2, 3), -1):
        assert f.shape == (2, 3, 3, 2)


def test_splice_broadcasts_axes_of_size_one_like_cntk27():
    # CNTK 2.7: splice((2,3,1,1,3), (1,3,4,1), (2,4,1), axis=2) has shape (2, 3, 6, 4, 3)
    x = C.input_variable((2, 3, 1, 1, 3))
    b = np.random.RandomState(0).rand(1, 3, 4, 1).astype(np.float32)
    c = np.random.RandomState(1).rand(2, 4, 1).astype(np.float32)
    f = C.splice(x, b, c, axis=2)
    assert f.shape == (2, 3, 6, 4, 3)
    data = np.random.RandomState(2).rand(2, 2, 3, 1, 1, 3).astype(np.float32)
    want = np.concatenate([np.broadcast_to(data, (2, 2, 3, 1, 4, 3)), np.broadcast_to(b, (2, 2, 3, 3, 4, 3)),
                           np.broadcast_to(c, (2, 2, 3, 2, 4, 3))], axis=3)
    np.testing.assert_array_equal(f.eval({x: data}), want)
    with pytest.raises(ValueError, match=r"Splice: Conflicting dimensionality of axis 1 between operand #1 \(3\) and "
                                         r"other\(s\) \(2\)\."):
        C.splice(C.input_variable((2, 3)), C.input_variable((3, 3)), axis=1)


def test_splice_of_free_dimensions_takes_the_tensors_sizes():
    a = C.input_variable((C.FreeDimension, 1, 3), dynamic_axes=[])
    b = C.input_variable((C.FreeDimension, 1, 2), dynamic_axes=[])
    f = C.splice(a, b, axis=2)
    got = f.eval({a: np.ones((5, 1, 3), np.float32), b: np.zeros((5, 1, 2), np.float32)})
    assert np.asarray(got).shape == (5, 1, 5)


def test_local_response_normalization_scales_the_window_mean():
    # CNTK 2.7 (values from it): x / (bias + alpha / (2 r + 1) * sum of x^2 over the 2 r + 1 channels around) ** beta
    np.random.seed(0)
    img = np.asarray(np.random.uniform(-1, 1, (8, 2, 2)), dtype=np.float32)
    x = C.input_variable((8, 2, 2))
    got = C.local_response_normalization(x, 2, 1.0, 0.5, 0.75).eval({x: img})[0, :, 0, 0]
    assert np.allclose(got, [0.09156215, -0.14302252, 0.81740445, 0.11349487, -0.7748625, 0.81263375,
                             -0.64884657, 0.03934544], rtol=1e-6)
    squares = img.astype(np.float64) ** 2
    den = np.stack([(1 + 0.5 / 5 * squares[max(0, c - 2):c + 3].sum(axis=0)) ** 0.75 for c in range(8)])
    assert np.allclose(C.local_response_normalization(x, 2, 1.0, 0.5, 0.75).eval({x: img})[0], img / den, rtol=1e-6)


def test_times_reducing_the_sequence_axis():
    # CNTK 2.7's linear_test.py::test_op_times_reduce_sequence_axis: the product summed over each sequence
    seq = [[0, 1, 2], [3], [4, 5, 6, 7, 8, 9]]
    right_var = C.sequence.input_variable(10, is_sparse=True)
    left_var = C.sequence.input_variable(1)
    func = C.times(left_var, right_var, infer_input_rank_to_map=C.TIMES_REDUCE_SEQUENCE_AXIS_WITHOUT_INFERRED_INPUT_RANK)
    assert func.dynamic_axes == C.sequence.reduce_sum(C.times(left_var, right_var)).dynamic_axes == \
        (C.Axis.default_batch_axis(),)
    assert func.shape == (1, 10)
    left = [np.ones(3, np.float32), np.ones(1, np.float32), np.ones(6, np.float32)]
    got = func.eval({left_var: left, right_var: C.Value.one_hot(seq, 10, dtype=np.float32)})
    expected = np.zeros((3, 1, 10), np.float32)
    for i, s in enumerate(seq):
        expected[i, 0, s] = 1
    assert np.array_equal(got, expected)


def test_times_transpose_with_a_vector_keeps_a_last_axis_of_one():
    # CNTK 2.7: a vector right operand is a one-row matrix, np.dot(left, np.reshape(right, (1, -1)).T), for a left
    # operand of any rank (CNTK_207's sampled softmax relies on (50, 10) x (10,) -> (50, 1))
    import cntk as C
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([2, -1], np.float32)
    d = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    np.testing.assert_array_equal(C.times_transpose(a, b).eval(), [[0.], [2.]])
    np.testing.assert_array_equal(C.times_transpose(b, b).eval(), [5.])
    np.testing.assert_array_equal(C.times_transpose(b, a).eval(), [0., 2.])
    assert C.times_transpose(d, b).eval().shape == (4, 3, 1)
    W = C.parameter((50, 10), init=C.glorot_uniform())
    h = C.input_variable(10)
    z = C.times_transpose(W, h) + C.parameter((50, 1), init=0)
    assert z.shape == (50, 1)
    x = np.random.rand(3, 10).astype(np.float32)
    np.testing.assert_allclose(z.eval({h: x}), (x @ W.value.T)[:, :, None], rtol=1e-5, atol=1e-6)
