"""Errors of shaping, cropping, region pooling and convolution options as CNTK 2.7 raises them (types and messages
from CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("shape, begin, end, part, new", [
    ((6,), 0, 1, "[2]", "[6]"), ((2, 3), 1, 2, "[3]", "[2 x 3]"), ((4, 3), 0, None, "[2 x 3 x 4]", "[4 x 3]"),
    ((2, 2), -2, None, "[3 x 4]", "[2 x 2]")])
def test_reshape_of_another_number_of_elements(shape, begin, end, part, new, capfd):
    message = ("Reshape: Operand (sub-)dimensions '%s' incompatible with desired replacement (sub-)dimensions '%s'. "
               "Number of elements must be the same.." % (part, new))
    with pytest.raises(ValueError) as e:
        C.reshape(C.input_variable((2, 3, 4)), shape, begin_axis=begin, end_axis=end)
    assert str(e.value).startswith(message)
    assert "About to throw exception '%s'" % message in capfd.readouterr().err


@pytest.mark.parametrize("operands, message", [
    ([(2, 3), (2, 4)], "Splice: Conflicting dimensionality of axis 0 between operand #1 (4) and other(s) (3)."),
    ([(2, 3), (2, 3), (5, 3)], "Splice: Conflicting dimensionality of axis 1 between operand #2 (5) and other(s) (2)."),
])
def test_splice_of_mismatching_shapes(operands, message):
    x = C.input_variable(operands[0])
    others = [C.constant(np.ones(s, np.float32)) for s in operands[1:]]
    axis = 0 if operands[1][1] != operands[0][1] else 1
    with pytest.raises(ValueError) as e:
        C.splice(x, *others, axis=axis)
    assert str(e.value).startswith(message)


def test_an_empty_slice_with_a_negative_stride_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        C.slice(C.input_variable((4, 5)), 0, -1, -5, -2)


def test_crop_automatic_at_another_scale_is_refused_when_evaluated():
    x = C.input_variable((2, 6, 6))
    f = C.crop_automatic(C.pooling(x, C.MAX_POOLING, (2, 2), strides=(2, 2)),
                         C.layers.Convolution((3, 3), 2, pad=True, init=0.1)(x))
    assert f.shape == (2, 6, 6)
    with pytest.raises(RuntimeError, match="Composite transform has non 1 scale in crop node."):
        f.eval({x: np.ones((1, 2, 6, 6), np.float32)})


def test_roipooling_regions_without_the_batch_axis_are_refused_when_evaluated():
    x = C.input_variable((2, 7, 7))
    f = C.roipooling(x, C.constant(np.array([[0, 0, 3, 3], [1, 1, 5, 4]], np.float32)), C.MAX_POOLING, (2, 2), 1.0)
    assert f.shape == (2, 2, 2, 2)
    with pytest.raises(RuntimeError, match="ColumnRangeWithMBLayoutFor: FrameRange's dynamic axis is inconsistent"):
        f.eval({x: np.ones((1, 2, 7, 7), np.float32)})


@pytest.mark.parametrize("op", [C.convolution, C.convolution_transpose])
def test_a_reduction_rank_other_than_0_or_1(op):
    with pytest.raises(RuntimeError, match=r"reductionRank: must be 1 or 0\."):
        op(C.constant(np.ones((3, 3), np.float32)), C.input_variable((5, 6)), reduction_rank=2)


@pytest.mark.parametrize("kernel, auto_padding, lengths, outputs", [
    # the kernel along the sequence longer than the longest sequence: CNTK's ValueError, padded or not
    ((2, 1, 2, 3), [False, True, False], (1, 1), "Convolution operation requires that kernel dim 2 <= input dim 1."),
    ((2, 1, 3, 3), [True], (1, 1), "Convolution operation requires that kernel dim 3 <= input dim 1."),
    # a sequence left without outputs: CNTK's minibatch layout has no empty sequence
    ((2, 1, 3, 2), [False, False, True], (3, 2), "The first entry of a Value mask must be Valid or SequenceBegin"),
    ((2, 1, 2, 3), [False, False, True], (3, 2), [(2, 2, 5), (1, 2, 5)]),
    ((2, 1, 3, 3), [True], (3, 2), [(3, 2, 5), (2, 2, 5)]),
])
def test_sequential_convolution_over_short_sequences(kernel, auto_padding, lengths, outputs):
    x = C.sequence.input_variable((1, 5))
    f = C.convolution(C.parameter(kernel, init=0.1), x, sequential=True, auto_padding=auto_padding)
    d = [np.ones((n, 1, 5), np.float32) for n in lengths]
    if isinstance(outputs, str):
        with pytest.raises(ValueError if "kernel dim" in outputs else RuntimeError) as e:
            f.eval({x: d})
        assert str(e.value).startswith(outputs)
    else:
        assert [v.shape for v in f.eval({x: d})] == outputs


def test_sequential_convolution_warns_as_cntk_about_asymmetric_padding(capfd):
    warning = ("WARNING: Detected asymmetric padding issue with lowerPad != higherPad, not supported by MKL. "
               "Switching to GEMM convolution engine. \n")
    x = C.sequence.input_variable((1, 5), needs_gradient=True)
    f = C.convolution(C.parameter((2, 1, 2, 3), init=0.1), x, sequential=True, auto_padding=[False, True, False])
    d = [np.ones((3, 1, 5), np.float32), np.ones((2, 1, 5), np.float32)]
    capfd.readouterr()
    f.eval({x: d})
    assert capfd.readouterr().err == warning
    f.grad({x: d}, wrt=[x])
    assert capfd.readouterr().err == warning * 3
    g = C.convolution(C.parameter((2, 1, 3, 2), init=0.1), x, sequential=True, auto_padding=[False, False, True])
    g.eval({x: [np.ones((4, 1, 5), np.float32)]})     # the even kernel across the items
    assert capfd.readouterr().err == warning


@pytest.mark.parametrize("build, sharing", [
    (lambda x: C.layers.Convolution((3, 3), 2, sharing=False)(x), None),
    (lambda x: C.layers.Convolution((3, 3), 2, sharing=(False, True))(x), None),
    (lambda x: C.layers.ConvolutionTranspose((3, 3), 2, sharing=False)(x), None),
    (lambda x: C.convolution(C.parameter((2, 2, 3, 3), init=0.1), x, sharing=[False]), [False, False, False]),
    (lambda x: C.convolution_transpose(C.parameter((2, 2, 3, 3), init=0.1), x, sharing=[False]), [True, False, False]),
])
def test_a_kernel_not_shared_is_built_and_refused_when_computed(build, sharing):
    x = C.input_variable((2, 7, 7))
    f = build(x)
    if sharing is not None:
        assert f.root_function.attributes["sharing"] == sharing
    with pytest.raises(RuntimeError, match=r"Convolution weight matrix Parameter\d+ should have dimension "
                                           r"\[\(filter shape\) x \(input channels\) x \(output channels\)\]"):
        f.eval({x: np.ones((1, 2, 7, 7), np.float32)})
