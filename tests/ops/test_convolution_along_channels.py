"""Kernels moving along the channel axis (narrower than it, or padded along it), as CNTK 2.7 (CPU) computes or refuses
them: 70 cases drawn from a grid of 358 (channels 2..8, kernel channels 1..3, channel strides 1..3, padded along the
channels or not, 1 to 3 spatial axes, kernels with and without output maps), each with CNTK 2.7's output shape and sum
or its RuntimeError (raised when the graph is first computed)."""
import numpy as np
import pytest

import cntk as C

CASES = [
    ((3, 1, 2, 2), (4, 3, 4, 5), (1, 1, 1, 1), (False, False, False, False), ((2, 3, 3, 4), 220.043)),
    ((1, 2, 2), (8, 4, 5), (3, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((3, 2), (6, 5), (3, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((2, 1, 2, 2), (3, 3, 4, 5), (3, 1, 1, 1), (False, False, False, False), ((1, 3, 3, 4), 74.171)),
    ((2, 1, 2, 2), (5, 3, 4, 5), (3, 1, 1, 1), (True, False, False, False), ((2, 3, 3, 4), 149.857)),
    ((1, 1, 2, 2), (8, 3, 4, 5), (3, 1, 1, 1), (True, False, False, False), ((3, 3, 3, 4), 76.543)),
    ((2, 2), (6, 5), (1, 1), (True, False), ((6, 4), 14.343)),
    ((2, 2, 2), (8, 5), (2, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((1, 1, 2, 2), (8, 3, 4, 5), (2, 1, 1, 1), (False, False, False, False), ((4, 3, 3, 4), 98.914)),
    ((2, 1, 2), (3, 5), (2, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((2, 2), (8, 5), (1, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((2, 1, 2), (2, 5), (1, 1), (True, False), 'detected padding over channel axis'),
    ((2, 2, 2), (6, 5), (1, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((2, 3, 2), (4, 5), (2, 1), (True, False), 'detected padding over channel axis'),
    ((3, 2), (6, 5), (3, 1), (True, False), 'Mismatching outputShape and mapCount'),
    ((3, 2, 2), (4, 4, 5), (1, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((2, 2), (4, 5), (1, 1), (True, False), ((4, 4), 9.171)),
    ((2, 3, 2), (6, 5), (2, 1), (True, False), 'detected padding over channel axis'),
    ((3, 1, 2, 2), (6, 3, 4, 5), (3, 1, 1, 1), (False, False, False, False), ((2, 3, 3, 4), 221.5)),
    ((2, 2, 2), (6, 4, 5), (1, 1, 1), (True, False, False), ((6, 3, 4), 133.686)),
    ((3, 2, 2), (5, 4, 5), (2, 1, 1), (True, False, False), 'detected padding over channel axis'),
    ((2, 2, 2), (8, 4, 5), (3, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((1, 1, 2, 2), (4, 3, 4, 5), (1, 1, 1, 1), (True, False, False, False), ((4, 3, 3, 4), 102.4)),
    ((3, 2), (4, 5), (1, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((2, 1, 2, 2), (8, 3, 4, 5), (2, 1, 1, 1), (True, False, False, False), ((4, 3, 3, 4), 292.529)),
    ((3, 2, 2), (6, 4, 5), (1, 1, 1), (True, False, False), 'detected padding over channel axis'),
    ((3, 2, 2), (5, 4, 5), (2, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((1, 1, 2, 2), (2, 3, 4, 5), (1, 1, 1, 1), (True, False, False, False), ((2, 3, 3, 4), 51.314)),
    ((3, 2, 2), (8, 4, 5), (2, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((1, 2, 2), (3, 4, 5), (2, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((1, 1, 2, 2), (4, 3, 4, 5), (2, 1, 1, 1), (False, False, False, False), ((2, 3, 3, 4), 49.529)),
    ((1, 2), (8, 5), (3, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((1, 2, 2), (2, 4, 5), (3, 1, 1), (True, False, False), 'mkl err \\(-1\\)'),
    ((1, 2), (5, 5), (2, 1), (True, False), 'Mismatching outputShape and mapCount'),
    ((1, 1, 2, 2), (2, 3, 4, 5), (2, 1, 1, 1), (True, False, False, False), ((1, 3, 3, 4), 25.057)),
    ((3, 1, 2, 2), (4, 3, 4, 5), (3, 1, 1, 1), (False, False, False, False), ((1, 3, 3, 4), 108.714)),
    ((2, 1, 2), (8, 5), (3, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((3, 2), (5, 5), (2, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((1, 2), (6, 5), (1, 1), (True, False), 'Mismatching outputShape and mapCount'),
    ((3, 2), (5, 5), (2, 1), (True, False), 'detected padding over channel axis'),
    ((1, 2, 2), (8, 4, 5), (2, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((1, 2, 2), (6, 4, 5), (2, 1, 1), (True, False, False), 'Mismatching outputShape and mapCount'),
    ((2, 2, 2), (3, 5), (3, 1), (True, False), ((2, 4), 7.514)),
    ((2, 2, 2), (5, 4, 5), (3, 1, 1), (True, False, False), 'Mismatching outputShape and mapCount'),
    ((2, 2, 2), (3, 5), (1, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((2, 1, 2), (2, 5), (3, 1), (False, False), ((2, 4), 1.2)),
    ((2, 1, 2, 2), (3, 3, 4, 5), (3, 1, 1, 1), (True, False, False, False), ((1, 3, 3, 4), 74.414)),
    ((2, 1, 2, 2), (6, 3, 4, 5), (2, 1, 1, 1), (True, False, False, False), ((3, 3, 3, 4), 219.729)),
    ((2, 2, 2), (4, 4, 5), (3, 1, 1), (False, False, False), 'mkl err \\(-1\\)'),
    ((2, 3, 2), (8, 5), (2, 1), (False, False), 'Mismatching outputShape and mapCount'),
    ((1, 2, 2), (6, 4, 5), (2, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((1, 2, 2), (6, 4, 5), (1, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((2, 2, 2), (6, 4, 5), (3, 1, 1), (True, False, False), ((2, 3, 4), 50.6)),
    ((3, 1, 2, 2), (5, 3, 4, 5), (1, 1, 1, 1), (True, False, False, False), 'detected padding over channel axis'),
    ((1, 1, 2, 2), (8, 3, 4, 5), (1, 1, 1, 1), (True, False, False, False), ((8, 3, 3, 4), 205.143)),
    ((2, 2, 2), (5, 4, 5), (2, 1, 1), (True, False, False), ((3, 3, 4), 58.014)),
    ((3, 1, 2, 2), (6, 3, 4, 5), (2, 1, 1, 1), (False, False, False, False), ((2, 3, 3, 4), 216.529)),
    ((1, 2, 2), (8, 4, 5), (2, 1, 1), (True, False, False), 'Mismatching outputShape and mapCount'),
    ((2, 3, 2), (5, 5), (3, 1), (False, False), ((2, 4), 8.586)),
    ((2, 2, 2), (5, 5), (1, 1), (True, False), 'detected padding over channel axis'),
    ((3, 1, 2, 2), (8, 3, 4, 5), (2, 1, 1, 1), (True, False, False, False), 'detected padding over channel axis'),
    ((2, 1, 2), (2, 5), (2, 1), (True, False), ((2, 4), 1.2)),
    ((1, 2, 2), (5, 4, 5), (1, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((2, 3, 2), (8, 5), (3, 1), (True, False), 'detected padding over channel axis'),
    ((1, 2, 2), (4, 4, 5), (2, 1, 1), (True, False, False), 'Mismatching outputShape and mapCount'),
    ((3, 1, 2, 2), (8, 3, 4, 5), (3, 1, 1, 1), (True, False, False, False), 'detected padding over channel axis'),
    ((2, 2, 2), (5, 4, 5), (1, 1, 1), (False, False, False), 'Mismatching outputShape and mapCount'),
    ((3, 1, 2, 2), (6, 3, 4, 5), (2, 1, 1, 1), (True, False, False, False), 'detected padding over channel axis'),
    ((2, 1, 2), (8, 5), (1, 1), (True, False), 'detected padding over channel axis'),
    ((1, 2, 2), (8, 4, 5), (1, 1, 1), (True, False, False), 'Mismatching outputShape and mapCount'),
]


@pytest.mark.parametrize("kernel, operand, strides, auto_padding, expected", CASES)
def test_kernels_along_the_channel_axis(kernel, operand, strides, auto_padding, expected):
    x = C.input_variable(operand)
    k = (np.arange(np.prod(kernel)) % 7 / 10.0 + 0.1).astype(np.float32).reshape(kernel)
    f = C.convolution(C.constant(k), x, strides=strides, auto_padding=list(auto_padding))
    data = (np.arange(np.prod(operand)) % 11 / 7.0).astype(np.float32).reshape((1,) + operand)
    if isinstance(expected, str):
        with pytest.raises(RuntimeError, match=expected):
            f.eval({x: data})
        return
    shape, total = expected
    assert f.shape == shape
    assert f.eval({x: data}).sum() == pytest.approx(total, abs=2e-3)


@pytest.mark.parametrize("kernel, operand, auto_padding, shape, head, total", [
    # several output maps, several positions along the channels: computed where a spatial axis takes CNTK's GEMM
    # engine (asymmetric padding); the output's channel axis holds maps x positions
    ((2, 1, 2), (3, 5), [False, True], (6, 5), [2, 5, 8, 11, 4, 17, 6, 2, 5, 2], 372.0),
    ((1, 2), (3, 5), [False, True], (3, 5), [2, 5, 8, 11, 4, 17, 6, 2, 5, 2], 110.0),
    ((2, 2, 2), (2, 4, 5), [True, True, False], (2, 4, 4), [94, 52, 31, 38, 80, 87, 94, 52, 38, 59], 1271.0),
    ((1, 2, 3), (3, 4, 5), [False, True, True], (3, 4, 5), [34, 58, 39, 27, 25, 47, 54, 56, 58, 29], 2152.0),
])
def test_values_along_the_channel_axis(kernel, operand, auto_padding, shape, head, total):
    x = C.input_variable(operand)
    k = (np.arange(np.prod(kernel)) % 5 + 1).astype(np.float32).reshape(kernel)
    f = C.convolution(C.constant(k), x, auto_padding=auto_padding)
    v = f.eval({x: (np.arange(np.prod(operand)) % 7).astype(np.float32).reshape((1,) + operand)})
    assert v.shape == (1,) + shape
    assert v.ravel()[:10].tolist() == head
    assert v.sum() == total


@pytest.mark.parametrize("kernel, operand, strides, auto_padding", [
    ((1, 3, 3), (3, 4, 5), (1, 1, 1), [False, True, True]),   # symmetric spatial padding: CNTK's MKL engine
    ((2, 2), (4, 5), (2, 1), [True, False]),                  # the padding along the channels is symmetric
    ((2, 3), (4, 8), (2, 2), [True]),                         # and along the spatial axis (1 before, 0 after)
])
def test_mkl_refuses_several_positions(kernel, operand, strides, auto_padding):
    x = C.input_variable(operand)
    f = C.convolution(C.constant(np.ones(kernel, np.float32)), x, auto_padding=auto_padding, strides=strides)
    with pytest.raises(RuntimeError, match="Mismatching outputShape and mapCount"):
        f.eval({x: np.ones((1,) + operand, np.float32)})


@pytest.mark.parametrize("kernel, operand, strides, auto_padding, gradient_sum", [
    ((1, 2), (2, 5), (2, 1), [False, False], 1.2),            # one position, one spatial axis: differentiated
    ((2, 3, 2), (4, 5), (3, 1), [False, False], 17.2),
    ((2, 2), (4, 5), (2, 2), [True], None),                   # two positions (GEMM engine): refused
    ((1, 1, 2, 2), (2, 3, 4, 5), (1, 1, 1, 1), [False], None),   # three spatial axes: refused
    ((2, 1, 1, 2, 2), (3, 3, 4, 5), (3, 1, 1, 1), [False], None),
])
def test_gradients_along_the_channel_axis(kernel, operand, strides, auto_padding, gradient_sum):
    # CNTK 2.7 refuses to differentiate a kernel narrower than the channels wherever its GEMM engine computes it
    x = C.input_variable(operand, needs_gradient=True)
    k = (np.arange(np.prod(kernel)) % 7 / 10.0 + 0.1).astype(np.float32).reshape(kernel)
    f = C.convolution(C.constant(k), x, strides=strides, auto_padding=auto_padding)
    data = (np.arange(np.prod(operand)) % 11 / 7.0).astype(np.float32).reshape((1,) + operand)
    f.eval({x: data})
    if gradient_sum is None:
        with pytest.raises(RuntimeError, match="GEMM convolution engine does not support this convolution "
                                               "configuration"):
            f.grad({x: data}, wrt=[x])
    else:
        assert f.grad({x: data}, wrt=[x]).sum() == pytest.approx(gradient_sum, abs=1e-4)
