"""Convolution and pooling layers take a one-element list or tuple for pad, strides and dilation as CNTK 2.7
does (CNTK_302B_BEGAN writes ``Convolution2D(3, 128, pad=[True])``): it stands for every filter axis; any other
length than the filter's is refused with CNTK's message. Shapes and sums are CNTK 2.7's for the same layers."""
import re

import numpy as np
import pytest

import cntk as C

X = np.arange(72, dtype=np.float32).reshape(1, 2, 6, 6) / 72.0


def _conv(**kw):
    x = C.input_variable((2, 6, 6))
    c = C.layers.Convolution2D(3, 4, init=C.glorot_uniform(seed=1), **kw)(x)
    return c.shape, c.eval({x: X})


@pytest.mark.parametrize("pad", [[True], (True,)])
def test_a_one_element_pad_list_pads_every_axis(pad):
    shape, out = _conv(pad=pad)
    assert shape == (4, 6, 6)                       # CNTK 2.7: (4, 6, 6), sum -3.4416
    assert abs(float(out.sum()) - -3.4416) < 1e-3
    np.testing.assert_array_equal(out, _conv(pad=True)[1])


@pytest.mark.parametrize("strides", [[2], (2,)])
def test_a_one_element_strides_list_strides_every_axis(strides):
    shape, out = _conv(strides=strides)
    assert shape == (4, 2, 2)                       # CNTK 2.7: (4, 2, 2), sum 0.7815
    np.testing.assert_array_equal(out, _conv(strides=2)[1])
    x = C.input_variable((2, 6, 6))
    assert C.layers.MaxPooling((3, 3), strides=strides)(x).shape == (2, 2, 2)
    assert C.layers.MaxPooling((3, 3), pad=[True])(x).shape == (2, 6, 6)
    assert C.layers.ConvolutionTranspose((3, 3), 4, strides=strides, pad=[True])(C.input_variable((2, 5, 5))).shape \
        == (4, 9, 9)


def test_other_lengths_are_refused_with_cntks_message():
    with pytest.raises(ValueError, match=re.escape(
            "pad parameter ((False, True, True)) must be a scalar or have same number of elements as the "
            "filter_shape parameter ((3, 3))")):
        C.layers.Convolution((3, 3), 4, pad=[False, True, True])
    with pytest.raises(ValueError, match=re.escape(
            "strides parameter ((1, 2, 2)) must be a scalar or have same number of elements as the filter_shape "
            "parameter ((3, 3))")):
        C.layers.MaxPooling((3, 3), strides=(1, 2, 2))


def test_numpy_arrays_and_ranges_as_per_axis_options_and_shapes():
    # CNTK 2.7 reads any sequence as a tuple (its _as_tuple / sanitize_shape); frankibem/cntk-issue's ResNet passes
    # strides=np.ones_like(strides). Shapes from CNTK 2.7.
    from cntk.layers import AveragePooling, Convolution, Convolution2D, MaxPooling
    x = C.input_variable((3, 9, 9))
    assert Convolution((3, 3), 4, strides=np.ones_like((2, 2)), pad=True)(x).shape == (4, 9, 9)
    assert Convolution((3, 3), 4, strides=np.array([2, 2]), pad=True)(x).shape == (4, 5, 5)
    assert Convolution(np.array([3, 3]), 4)(x).shape == (4, 7, 7)
    assert Convolution((3, 3), 4, strides=range(1, 3))(x).shape == (4, 7, 4)
    assert Convolution2D(np.array([3, 3]), 4, strides=np.array([2, 2]))(x).shape == (4, 4, 4)
    assert MaxPooling(np.array([3, 3]), strides=np.array([2, 2]))(x).shape == (3, 4, 4)
    assert AveragePooling((3, 3), strides=np.array([2, 2]), pad=True)(x).shape == (3, 5, 5)
    assert C.convolution(C.parameter((4, 3, 3, 3)), x, strides=np.array([1, 2, 2])).shape == (12, 5, 5)
    assert C.pooling(x, C.MAX_POOLING, np.array([2, 2]), strides=np.array([2, 2])).shape == (3, 4, 4)
