"""squeeze/expand_dims with deferred shapes, reshape sub-ranges with new_leading_axis, splice on new axes."""
import numpy as np
import pytest

import cntk as C
from cntk import Axis


@pytest.mark.parametrize("shape, axis", [((1, 2, 1), -1), ((1, 2, 1), (0, 2)), ((1, 3), None)])
def test_squeeze_on_placeholder(shape, axis):
    p = C.placeholder()
    f = C.squeeze(p, axis)
    x = C.input_variable(shape)
    data = np.arange(np.prod(shape), dtype=np.float32).reshape((1,) + shape)
    np.testing.assert_array_equal(f(x).eval({x: data})[0], np.squeeze(data[0], axis))


def test_reshape_with_new_leading_axis_means_the_end():
    x = C.input_variable((2, 3))
    assert C.reshape(x, (3, 2), 0, Axis.new_leading_axis()).shape == (3, 2)
    assert C.reshape(x, (1, 1), Axis.new_leading_axis(), Axis.new_leading_axis()).shape == (2, 3, 1, 1)
    assert C.reshape(x, (1,), 0, 0).shape == (1, 2, 3)


@pytest.mark.parametrize("axis", [-2, Axis.new_leading_axis()])
def test_splice_along_a_new_leading_axis(axis):
    np.testing.assert_array_equal(C.splice(C.constant([1.0]), C.constant([2.0]), axis=axis).eval(), [[1.0], [2.0]])


def test_reduce_over_all_axes_ignores_sequence_padding():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = C.sequence.input_variable((2, 3), needs_gradient=True)
    value = [np.stack([data, data - 0.5]), np.stack([data + 0.25])]
    f = C.reduce_mean(a, axis=Axis.all_axes())
    assert f.eval({a: value}).item() == pytest.approx((45 - 1.5) / 18)
    grads = f.grad({a: value})
    np.testing.assert_allclose(grads[1], np.full((1, 2, 3), 1 / 18), rtol=1e-6)


@pytest.mark.parametrize("first, second, axis, shape", [
    # CNTK 2.7's shapes: an unknown size along the splice axis leaves the sum unknown (inferred before free);
    # elsewhere an inferred size takes the known one
    ((3, -1, 3), (-1, -1, 3), 0, (-1, -1, 3)),
    ((-1, -1, 3), (3, -1, 3), 0, (-1, -1, 3)),
    ((3,), (C.FreeDimension,), 0, (C.FreeDimension,)),
    ((-1,), (C.FreeDimension,), 0, (-1,)),
    ((3, 4), (2, -1), 0, (5, 4)),
    ((3, 1), (2, -1), 0, (5, -1)),
])
def test_splice_of_unknown_sizes(first, second, axis, shape):
    a = C.input_variable(first) if min(first) < 0 else C.constant(0, shape=first)
    assert C.splice(a, C.input_variable(second), axis=axis).shape == shape


def test_slice_with_negative_strides_takes_the_range_backwards():
    # CNTK 2.7: a negative stride walks [begin, end) from its last element (values from CNTK 2.7)
    x = C.input_variable((4, 6), needs_gradient=True)
    d = np.arange(24, dtype=np.float32).reshape(1, 4, 6)
    np.testing.assert_array_equal(C.slice(x, 1, 0, 6, -2).eval({x: d})[0][0], [5, 3, 1])
    np.testing.assert_array_equal(C.slice(x, 1, 2, 4, -1).eval({x: d})[0][1], [9, 8])
    np.testing.assert_array_equal(C.slice(x, 1, -1, 0, -1).eval({x: d})[0][:, 0], [5, 11, 17, 23])
    np.testing.assert_array_equal(C.slice(x, 1, 0, 0, -1).eval({x: d})[0][3], [23, 22, 21, 20, 19, 18])
    np.testing.assert_array_equal(C.slice(x, [0, 1], [1, 0], [2, 2], [-1, 1]).eval({x: d}), [[[6, 7]]])
    assert C.slice(x, 1, 0, 6, -2).shape == (4, 3)
    np.testing.assert_array_equal(C.slice(x, 1, 0, 6, -2).grad({x: d})[0][0], [0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError):
        C.slice(x, 1, 0, 6, 0)


def test_getitem_slices_an_axis_only_when_start_or_stop_is_given():
    # CNTK 2.7 (golden values from it): x[1:, ::2] slices axis 0 from 1 and leaves axis 1 whole, the step of a
    # slice without start and stop being ignored; with a start, the step applies
    x = C.input_variable((3, 4))
    data = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    np.testing.assert_array_equal(x[1:, ::2].eval({x: data}), [[[4, 5, 6, 7], [8, 9, 10, 11]]])
    assert x[:, ::2].shape == (3, 4)
    np.testing.assert_array_equal(x[0, 1::2].eval({x: data}), [[[1, 3]]])


def test_expand_dims_of_a_known_shape_inserts_after_a_non_negative_axis_as_cntk():
    # CNTK 2.7 (shapes from it; its own docstring shows (2, 3) expanded at 0 as (2, 1, 3)); a negative axis follows
    # numpy; a placeholder bound later gets the same rule
    x = C.input_variable((2, 3, 4))
    assert [C.expand_dims(x, a).shape for a in (0, 1, 2, -1, -3)] == [
        (2, 1, 3, 4), (2, 3, 1, 4), (2, 3, 4, 1), (2, 3, 4, 1), (2, 1, 3, 4)]
    v = C.input_variable(3)
    assert C.expand_dims(v, 0).shape == (3, 1) and C.expand_dims(v, -2).shape == (1, 3)
    with pytest.raises(ValueError, match="out of bounds"):
        C.expand_dims(v, 1)
    p = C.placeholder()
    assert C.expand_dims(p, 0)(C.input_variable((2, 3))).shape == (2, 1, 3)


def test_flatten_gives_a_matrix_as_cntk():
    # CNTK 2.7: (product before axis, product from axis); 0 and None give (1, n), a negative axis counts so that
    # -1 gives (n, 1)
    x = C.input_variable((2, 3, 4))
    assert [C.flatten(x, a).shape for a in (None, 0, 1, 2, 3, -1, -2)] == [
        (1, 24), (1, 24), (2, 12), (6, 4), (24, 1), (24, 1), (6, 4)]
    data = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    np.testing.assert_array_equal(C.flatten(x, 1).eval({x: data})[0], data.reshape(2, 12))
