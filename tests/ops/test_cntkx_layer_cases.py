"""Ops as cntkx's layers (a library built on CNTK 2.7) use them: sequential pooling and convolution, learnt start
tokens of recurrences, padding sequences with sequence.scatter; golden values from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


def test_average_pooling_with_padding_rounds_once():
    """CNTK 2.7 divides each padded window's sum by its count of real values: 173.5, not 173.49998."""
    a = C.input_variable((3, 25, 6))
    b = C.layers.AveragePooling(filter_shape=(3, 3), strides=(2, 2), pad=True)(a)
    n = np.ascontiguousarray(np.moveaxis(np.arange(450, dtype=np.float32).reshape((1, 6, 3, 25)), 1, -1))
    result = b.eval({a: n})
    assert result.shape == (1, 3, 13, 3)
    np.testing.assert_array_equal(result[0, 0, 12], [61.0, 173.5, 323.5])
    np.testing.assert_array_equal(result[0, 1, 12], [86.0, 198.5, 348.5])
    np.testing.assert_array_equal(result[0, 0, 0], [38.0, 150.5, 300.5])
    x = C.input_variable((2, 7, 6))
    p = C.layers.AveragePooling(filter_shape=(3, 3), strides=(2, 2), pad=True)(x)
    v = (np.arange(168).reshape((2, 2, 7, 6)).astype(np.float32) * 1.37) % 101
    np.testing.assert_array_equal(p.eval({x: v}).ravel()[:8], np.float32([4.795, 6.85, 9.59, 17.125, 19.18, 21.92,
                                                                          33.565002, 35.62]))


def test_convolution_with_inferred_channels_spans_them_once():
    """A kernel whose input channels are inferred: CNTK 2.7 applies strides and padding given for fewer axes to
    the spatial axes only (stride 1, no padding on the channel axis); a known kernel takes them there too."""
    a = C.input_variable((3, 32, 32))
    for kernel, strides, pads, cntk_shape in [((1, -1, 3, 4), (2, 1), [True, False], (1, 16, 29)),
                                              ((1, -1, 3, 4), (2,), [True], (1, 16, 16)),
                                              ((1, 3, 3, 4), (2, 1), [True, False], (2, 16, 29)),
                                              ((5, 3, 3, 4), (2, 1), [True, False], (10, 16, 29))]:
        c = C.convolution(C.parameter(kernel, init=C.glorot_uniform()), a, strides=strides, auto_padding=pads)
        assert c.shape == cntk_shape
    # cntkx's Convolution2D without num_filters: a block whose kernel is inferred when it is applied (a clone
    # made afterwards infers again, from the known kernel, as in CNTK 2.7)
    kernel = C.Parameter((1, -1, 3, 4), init=C.glorot_uniform())

    @C.BlockFunction("Conv", "")
    def convolve(x):
        return C.squeeze(C.convolution(kernel, x, strides=(2, 1), auto_padding=(True, False)))
    assert convolve(a).shape == (16, 29)
    assert convolve(a).clone(C.CloneMethod.clone).shape == (2, 16, 29)
    conv = C.layers.Convolution2D(filter_shape=(3, 4), num_filters=None, reduction_rank=1, pad=(True, False),
                                  strides=(2, 1))(a)
    assert conv.shape == (16, 29)


def test_learnt_initial_state_takes_the_delayed_shape():
    a = C.sequence.input_variable(10)
    token = C.Parameter(shape=(-1,), init=C.glorot_normal(), name='tok')
    r = C.layers.Recurrence(C.layers.RNNStep(7), initial_state=token)(a)
    assert (r.shape, token.shape, r.tok.shape) == ((7,), (7,), (7,))
    token = C.Parameter(shape=(-1,), init=0.5)
    assert (C.sequence.past_value(a, initial_state=token).shape, token.shape) == ((10,), (10,))
    token = C.Parameter(shape=(-1,), init=0.5)
    q = C.sequence.future_value(C.layers.Dense(4)(a), initial_state=token)
    assert token.shape == (4,)
    assert q.eval({a: [np.ones((2, 10), np.float32)]})[0].shape == (2, 4)


def test_scatter_needs_as_many_true_steps_as_elements():
    ax1, ax2 = C.Axis.new_unique_dynamic_axis('ax1'), C.Axis.new_unique_dynamic_axis('ax2')
    a = C.sequence.input_variable(2, sequence_axis=ax1)
    b = C.sequence.input_variable(1, sequence_axis=ax2)
    c = C.sequence.scatter(a, b)
    na = [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((2, 2), np.float32)]
    result = c.eval({a: na, b: [np.float32([[1], [0], [1], [1]]), np.float32([[0], [1], [1]])]})
    np.testing.assert_array_equal(result[0], [[0, 1], [0, 0], [2, 3], [4, 5]])
    np.testing.assert_array_equal(result[1], [[0, 0], [1, 1], [1, 1]])
    for nb in ([np.float32([[1], [0], [1]]), np.float32([[1], [1]])],     # too few in the first sequence
               [np.float32([[1], [1]]), np.float32([[1], [1], [1]])]):
        with pytest.raises(ValueError, match="scatter"):
            c.eval({a: na, b: nb})
