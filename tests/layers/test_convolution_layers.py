"""Convolution layers: num_filters=None, SequentialConvolution along the sequence axis, and the module layout."""
import numpy as np
import pytest

import cntk as C
from cntk.layers import Convolution, For, SequentialConvolution
from cntk.layers.typing import Sequence, Tensor


def test_num_filters_none_drops_the_channel_axis():
    f = Convolution((3, 3), pad=True, bias=False, init=1.0)
    x = C.input_variable((2, 5, 5))
    y = f(x)
    assert f.W.shape == (1, 2, 3, 3)
    assert y.shape == (5, 5)
    out = y.eval({x: np.ones((1, 2, 5, 5), np.float32)})
    assert out[0, 2, 2] == 18 and out[0, 0, 0] == 8


def test_sequential_convolution_valid_scalar_items():
    c = SequentialConvolution(3, init=np.array([4., 2., 1.], np.float32), pad=False, reduction_rank=0, bias=False)
    c.update_signature(Sequence[Tensor[()]])
    out = c([np.array([2., 6., 4., 8., 6.], np.float32), np.array([1., 1., 1., 1.], np.float32)])
    np.testing.assert_allclose(out[0], [24., 40., 38.])
    np.testing.assert_allclose(out[1], [7., 7.])


def test_sequential_convolution_padded_strided_vectors():
    x = C.sequence.input_variable(1)
    c = SequentialConvolution(2, pad=True, strides=2, bias=False)(x)
    data = np.array([0.4, 0.6, 0.8, 1.0, 1.2], np.float32).reshape(5, 1)
    w = c.W.value[0, 0]
    out = c.eval({x: [data]})
    np.testing.assert_allclose(np.ravel(out[0]), [w @ data[0:2, 0], w @ data[2:4, 0], w[0] * data[4, 0]], rtol=1e-5)


def test_sequential_convolution_2d_with_filters_and_bias():
    x = C.sequence.input_variable((1, 5))
    c = SequentialConvolution((3, 2), num_filters=4, pad=True, strides=(2, 2))(x)
    assert c.b.shape == (4, 1)
    out = c.eval({x: [np.ones((3, 1, 5), np.float32)]})
    assert np.asarray(out[0]).shape == (2, 4, 3)


def test_sequential_convolution_keeps_length_with_padding():
    x = C.sequence.input_variable(2)
    c = SequentialConvolution(3, num_filters=4, pad=True)(x)
    assert c.shape == (4,)
    out = c.eval({x: [np.ones((5, 2), np.float32), np.ones((2, 2), np.float32)]})
    assert [np.asarray(s).shape for s in out] == [(5, 4), (2, 4)]


def test_for_wants_a_function():
    with pytest.raises(TypeError, match="Python function"):
        For(range(3), C.layers.Dense(5))


def test_cntk_module_layout():
    import cntk.layers.layers as L
    import cntk.layers.blocks as B
    assert L.Dense is C.layers.Dense and L.SequentialConvolution is SequentialConvolution
    assert B.LSTM is C.layers.LSTM and B.BlockFunction is C.BlockFunction
    with pytest.raises(NotImplementedError, match="Untested code branch"):
        B.UntestedBranchError("x")


def test_a_scalar_filter_shape_covers_every_spatial_axis():
    # CNTK_206C: ConvolutionTranspose2D(5, ...) is a 5x5 filter
    x = C.input_variable((3, 8, 8))
    up = C.layers.ConvolutionTranspose2D(5, 4, strides=2, pad=True, output_shape=(16, 16))(x)
    assert up.shape == (4, 16, 16)
    assert [p.shape for p in up.parameters if p.name == "W"] == [(3, 4, 5, 5)]
    assert C.layers.Convolution2D(3, 2)(x).shape == (2, 6, 6)
    assert C.layers.Convolution3D(2, 2)(C.input_variable((3, 4, 4, 4))).shape == (2, 3, 3, 3)
    # CNTK 2.7's messages
    with pytest.raises(ValueError, match=r"^Convolution2D: filter_shape must be a scalar or a 2D tuple, e\.g\. 3 or "
                                         r"\(3,3\)$"):
        C.layers.Convolution2D((3, 3, 3), 2)
    with pytest.raises(ValueError, match=r"^Convolution1D: filter_shape must be a scalar$"):
        C.layers.Convolution1D((3, 3), 2)
    with pytest.raises(ValueError, match=r"^ConvolutionTranspose3D: filter_shape must be a scalar or a 3D tuple, "
                                         r"e\.g\. 3 or \(3,3,3\)$"):
        C.layers.ConvolutionTranspose3D((3, 3), 2)


def test_block_op_names_are_cntk27s_whatever_the_variant():
    # CNTK 2.7 names every convolution layer's block "Convolution" and every transposed one's
    # "ConvolutionTranspose" (graph rewriters such as cntk.contrib.netopt select blocks by these names)
    L = C.layers
    x1, x2, x3 = C.input_variable((2, 8)), C.input_variable((2, 8, 8)), C.input_variable((2, 4, 4, 4))
    made = [L.Convolution((3, 3), 4)(x2), L.Convolution1D(3, 4)(x1), L.Convolution2D(3, 4)(x2),
            L.Convolution3D(3, 4)(x3), L.ConvolutionTranspose((3, 3), 4)(x2), L.ConvolutionTranspose1D(3, 4)(x1),
            L.ConvolutionTranspose2D(3, 4)(x2), L.ConvolutionTranspose3D(3, 4)(x3)]
    assert [f.root_function.op_name for f in made] == ["Convolution"] * 4 + ["ConvolutionTranspose"] * 4
    assert all(f.root_function.is_block for f in made)


def test_convolution_sequential_windows_the_sequence(capfd):
    # CNTK 2.7's Convolution(sequential=True) convolves a window of steps: no asymmetric-padding warning for the
    # sequence axis (SequentialConvolution, the sequential op, warns), and its own refusals
    warning = "WARNING: Detected asymmetric padding issue"
    x = C.sequence.input_variable((1, 6))
    d = [np.ones((3, 1, 6), np.float32), np.ones((2, 1, 6), np.float32)]
    capfd.readouterr()
    C.layers.Convolution((2, 3), 2, sequential=True, pad=True)(x).eval({x: d})
    assert warning not in capfd.readouterr().err
    C.layers.SequentialConvolution((2, 3), 2, pad=True)(x).eval({x: d})
    assert warning in capfd.readouterr().err
    with pytest.raises(RuntimeError, match="AddSequence: Sequences must be a least one frame long."):
        C.layers.Convolution((3, 3), 2, sequential=True)(x).eval({x: d})
    with pytest.raises(NotImplementedError, match="^windowed convolution with stride not yet implemented"):
        C.layers.Convolution((2, 3), 2, sequential=True, strides=(2, 1))


@pytest.mark.parametrize("make, error, message", [
    (lambda: C.layers.Convolution((3, 3), 4, groups=2), ValueError,
     "Convolution: groups > 1, is not currently supported by Convolution layer. For group convolution with groups > 1, "
     "use CNTK's low-level convolution node (cntk.convolution)."),
    (lambda: C.layers.Convolution2D((3, 3), 4, groups=2), ValueError, "Convolution: groups > 1, is not currently"),
    (lambda: C.layers.Convolution((3, 3), 4, groups=0), ValueError,
     "Convolution: groups must be strictly positive, i.e. groups > 0."),
    (lambda: C.layers.Convolution((3, 3), 2, reduction_rank=2), NotImplementedError,
     "Convolution: reduction_rank must be 0 or 1"),
])
def test_layer_option_refusals_cntk27_messages(make, error, message):
    with pytest.raises(error) as e:
        make()
    assert str(e.value).startswith(message)
