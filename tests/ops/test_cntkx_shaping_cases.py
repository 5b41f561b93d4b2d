"""Shaping ops as the attention and sequence ops of cntkx (a library built on CNTK 2.7) use them; golden values
from CNTK 2.7."""
import numpy as np

import cntk as C


def test_expand_dims_at_new_leading_axis():
    for shape, cntk_shape in [((3,), (1, 3)), ((2, 3), (1, 2, 3)), ((), (1,))]:
        x = C.input_variable(shape)
        y = C.expand_dims(x, axis=C.Axis.new_leading_axis())
        assert y.shape == cntk_shape
        data = np.arange(2 * int(np.prod(shape)), dtype=np.float32).reshape((2,) + shape)
        np.testing.assert_array_equal(y.eval({x: data}), data.reshape((2,) + cntk_shape))
    s = C.sequence.input_variable(4)
    assert C.expand_dims(C.sequence.first(s), axis=C.Axis.new_leading_axis()).shape == (1, 4)


def test_swapaxes_of_a_placeholder():
    @C.Function
    def swap_first(x):
        return C.swapaxes(C.reduce_sum(x, axis=0))

    @C.Function
    def swap_outer(x):
        return C.swapaxes(x, 0, -1)

    x = C.input_variable((2, 3, 4))
    y, z = swap_first(x), swap_outer(x)
    assert (y.shape, z.shape) == ((3, 1, 4), (4, 3, 2))
    v = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
    np.testing.assert_array_equal(y.eval({x: v})[0], [[[12, 14, 16, 18]], [[20, 22, 24, 26]], [[28, 30, 32, 34]]])
    np.testing.assert_array_equal(z.eval({x: v})[1, 3], [[27, 39], [31, 43], [35, 47]])
    s = C.sequence.input_variable((3, 5))
    assert (swap_outer(s).shape, swap_first(s).shape) == ((5, 3), (5, 1))


def test_crop_manual_to_a_referent_of_free_size():
    """cntkx's causal attention mask: a max_len x max_len constant cropped to the unpacked (-3, -3) scores."""
    a = C.sequence.input_variable(3)
    scores = C.times_transpose(a, C.sequence.broadcast_as(C.sequence.unpack(a, 0, no_mask_output=True), a))
    unpacked = C.sequence.unpack(scores, padding_value=0).outputs[0]
    mask = C.reconcile_dynamic_axes(C.Constant(np.tril(np.ones((6, 6)))), unpacked)
    n = [np.arange(12, dtype=np.float32).reshape(4, 3), np.ones((2, 3), np.float32)]
    np.testing.assert_array_equal(C.crop_manual(mask, unpacked, 0, 0).eval({a: n}), [np.tril(np.ones((4, 4)))] * 2)
    np.testing.assert_array_equal(C.crop_manual(mask, unpacked, 1, 2).eval({a: n}),
                                  [[[1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 1, 1]]] * 2)
    masked = C.element_select(C.crop_manual(mask, unpacked, 0, 0), unpacked, C.constant(-1e30)).eval({a: n})
    np.testing.assert_array_equal(masked[1], np.float32([[3, -1e30, -1e30, -1e30], [3, 3, -1e30, -1e30],
                                                          [0, 0, 0, -1e30], [0, 0, 0, 0]]))


def test_times_transpose_by_a_per_sequence_matrix():
    """The right operand has the batch axis only: it is broadcast along the left operand's sequence axis."""
    a = C.sequence.input_variable(3)
    u = C.sequence.unpack(a, 0, no_mask_output=True)
    n = [np.arange(12, dtype=np.float32).reshape(4, 3), np.ones((2, 3), np.float32)]
    result = C.times_transpose(a, u).eval({a: n})
    np.testing.assert_array_equal(result[0], [[5, 14, 23, 32], [14, 50, 86, 122], [23, 86, 149, 212],
                                              [32, 122, 212, 302]])
    np.testing.assert_array_equal(result[1], [[3, 3, 0, 0], [3, 3, 0, 0]])
    b = C.input_variable((2, 3))
    result = C.times_transpose(b, u).eval({a: n, b: np.arange(12, dtype=np.float32).reshape(2, 2, 3)})
    np.testing.assert_array_equal(result, [[[5, 14, 23, 32], [14, 50, 86, 122]], [[21, 21, 0, 0], [30, 30, 0, 0]]])
    result = C.times_transpose(np.ones((2, 3), np.float32), u).eval({a: n})
    np.testing.assert_array_equal(result, [[[3, 12, 21, 30]] * 2, [[3, 3, 0, 0]] * 2])
