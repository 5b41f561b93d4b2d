"""convolution_transpose refuses what CNTK 2.7 refuses. An output_shape is accepted only if the convolution it
transposes maps it (channel axis included, under the first per-axis option) back to the operand's shape: else a
RuntimeError naming both shapes while building, or CNTK's ValueErrors for a rank that differs from the kernel's or a
kernel larger than the output. Without an output_shape, CNTK checks the kernel against the output when the graph is
evaluated (a padded axis keeps the operand's size, so a kernel larger than the operand fails there)."""
import re

import numpy as np
import pytest

import cntk as C


def _feed(f):
    return {f.arguments[0]: np.ones((1,) + f.arguments[0].shape, np.float32)}


# (kernel, operand, options, output_shape, the shape CNTK 2.7 reports convolving output_shape to)
REFUSED = [
    ((3, 2, 3, 3), (3, 4, 4), {}, (2, 6, 6), "[6 x 6 x 6]"),                    # padded channel axis
    ((3, 2, 3, 3), (3, 4, 4), {}, (5, 6, 6), "[15 x 6 x 6]"),
    ((3, 2, 3, 3), (3, 4, 4), {}, (2, 9, 9), "[6 x 9 x 9]"),
    ((3, 2, 3, 3), (3, 4, 4), {"strides": 2}, (2, 9, 9), "[3 x 5 x 5]"),
    ((3, 2, 3, 3), (3, 4, 4), {"auto_padding": [False, True, True]}, (2, 5, 5), "[3 x 5 x 5]"),
    ((5, 2, 3, 3), (3, 4, 4), {}, (2, 6, 6), "[10 x 6 x 6]"),                   # the kernel's 5 input maps
    ((3, 2, 5, 5), (3, 4, 4), {"auto_padding": [False], "dilation": 2}, (2, 12, 12), "[0 x 4 x 4]"),
    ((3, 2, 5, 5), (3, 4, 4), {"auto_padding": [False]}, (2, C.FreeDimension, 8), "[3 x * x 4]"),
    ((4, 5, 5), (4, 4), {"reduction_rank": 0}, (4, 8, 8), "[4 x 8 x 8]"),
]


@pytest.mark.parametrize("kernel, operand, options, output_shape, convolved", REFUSED)
def test_an_output_shape_the_convolution_does_not_map_back_is_refused(kernel, operand, options, output_shape,
                                                                      convolved):
    x = C.input_variable(operand, name="x")
    w = C.parameter(kernel, init=C.glorot_uniform())
    operand_text = " x ".join(map(str, ((1,) if len(operand) == 2 else ()) + operand))
    with pytest.raises(RuntimeError, match="Convolution transpose: The shape '\\[%s\\]' of the convolution transpose "
                       "operand 'Input\\('x'.* is different than the resulting shape '%s' from convolving the "
                       "specified output shape" % (operand_text, re.escape(convolved))):
        C.convolution_transpose(w, x, output_shape=output_shape, **options)


@pytest.mark.parametrize("output_shape, error", [
    ((6, 6), "Convolution input and kernel tensors must have the same rank"),
    (6, "Convolution input and kernel tensors must have the same rank"),
    ((1, 2, 6, 6), "Convolution map tensor must have rank 1 or the same as the input tensor"),
    ((1, 6, 6), "Convolution operation requires that kernel dim 2 <= input dim 1"),
])
def test_output_shapes_of_another_rank_or_smaller_than_the_kernel_are_value_errors(output_shape, error):
    x = C.input_variable((3, 4, 4))
    with pytest.raises(ValueError, match=error):
        C.convolution_transpose(C.parameter((3, 2, 3, 3), init=C.glorot_uniform()), x, output_shape=output_shape)


def test_the_kernel_is_checked_against_the_output_axes_last_axis_first():
    x = C.input_variable((3, 4, 4))
    w = C.parameter((3, 2, 5, 5), init=C.glorot_uniform())
    for output_shape, culprit in [((2, 4, 3), 3), ((2, 4, 8), 4), ((1, 4, 8), 4), ((0, 8, 8), 0)]:
        with pytest.raises(ValueError, match="kernel dim \\d <= input dim %d\\." % culprit):
            C.convolution_transpose(w, x, auto_padding=[False], output_shape=output_shape)


def test_accepted_output_shapes_are_the_output():
    x = C.input_variable((3, 4, 4))
    w = C.parameter((3, 2, 3, 3), init=C.glorot_uniform())
    f = C.convolution_transpose(w, x, auto_padding=[False, True, True], output_shape=(2, 4, 4))
    assert f.shape == (2, 4, 4) and f.eval(_feed(f)).shape == (1, 2, 4, 4)
    x8 = C.input_variable((8, 4, 4))
    w8 = C.parameter((8, 4, 5, 5), init=C.glorot_uniform())
    f = C.convolution_transpose(w8, x8, auto_padding=[False], strides=(1, 2, 2), output_shape=(4, 11, 11))
    assert f.shape == (4, 11, 11) and f.eval(_feed(f)).shape == (1, 4, 11, 11)
    x0 = C.input_variable((4, 4))
    f = C.convolution_transpose(C.parameter((4, 5, 5), init=C.glorot_uniform()), x0, auto_padding=[False],
                                reduction_rank=0, output_shape=(4, 8, 8))
    assert f.shape == (4, 8, 8) and f.eval(_feed(f)).shape == (1, 4, 8, 8)


@pytest.mark.parametrize("pad, accepted", [(True, [7, 8]), (False, [11, 12])])
def test_the_layer_passes_the_full_output_shape(pad, accepted):
    # CNTK 2.7: a stride-2 5x5 transposed convolution of a 4x4 operand accepts these output sizes among 7..12
    x = C.input_variable((8, 4, 4))
    for n in range(7, 13):
        layer = C.layers.ConvolutionTranspose2D((5, 5), 4, strides=2, pad=pad, output_shape=(n, n))
        if n in accepted:
            assert layer(x).shape == (4, n, n)
        else:
            with pytest.raises(RuntimeError, match="from convolving the specified output shape '\\[4 x %d x %d\\]'"
                               % (n, n)):
                layer(x)


def test_a_sequence_operand_and_a_later_bound_placeholder_are_checked_too():
    w = C.parameter((3, 2, 5, 5), init=C.glorot_uniform())
    with pytest.raises(RuntimeError, match="resulting shape '\\[3 x 5 x 4\\]'"):
        C.convolution_transpose(w, C.sequence.input_variable((3, 4, 4)), auto_padding=[False], output_shape=(2, 9, 8))
    ph = C.placeholder()
    f = C.convolution_transpose(w, ph, auto_padding=[False], output_shape=(2, 9, 8))
    with pytest.raises(RuntimeError, match="resulting shape '\\[3 x 5 x 4\\]'"):
        f.replace_placeholders({ph: C.input_variable((3, 4, 4))})


@pytest.mark.parametrize("operand, options, culprit", [
    ((3, 4, 4), {}, 4),
    ((3, 4, 6), {"auto_padding": [False, True, False]}, 4),
    ((3, 6, 4), {"auto_padding": [False, False, True]}, 4),
    ((3, 3, 2), {}, 2),
])
def test_a_kernel_larger_than_a_padded_output_is_refused_at_evaluation(operand, options, culprit):
    w = C.parameter((3, 2, 5, 5), init=C.glorot_uniform())
    f = C.convolution_transpose(w, C.input_variable(operand), **options)
    with pytest.raises(ValueError, match="Convolution operation requires that kernel dim 5 <= input dim %d\\."
                       % culprit):
        f.eval(_feed(f))


@pytest.mark.parametrize("operand, options, shape", [
    ((3, 4, 6), {"auto_padding": [False, False, True]}, (2, 8, 6)),
    ((3, 6, 4), {"auto_padding": [False, False, True], "strides": 2}, (2, 15, 7)),
    ((3, 4, 4), {"auto_padding": [False]}, (2, 8, 8)),
])
def test_kernels_within_the_output_evaluate(operand, options, shape):
    w = C.parameter((3, 2, 5, 5), init=C.glorot_uniform())
    f = C.convolution_transpose(w, C.input_variable(operand), **options)
    assert f.shape == shape and f.eval(_feed(f)).shape == (1,) + shape


def test_kernel_input_maps_other_than_the_operand_channels_fail_at_evaluation():
    f = C.convolution_transpose(C.parameter((5, 2, 3, 3), init=C.glorot_uniform()), C.input_variable((3, 4, 4)))
    with pytest.raises(RuntimeError, match="kernel's 5 input channels do not match the 3 channels of the operand"):
        f.eval(_feed(f))
