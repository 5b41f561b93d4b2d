"""Kernels along the channel axis as CNTK 2.7 checks them (cases and errors from CNTK 2.7): a kernel of the operand's
rank wider than the channels is refused while building, and a kernel spanning the channels (of its group) that the
op's auto padding would pad along them is refused when the graph is first evaluated (a channel axis of size 1 takes
no padding)."""
import numpy as np
import pytest

import cntk as C


def test_a_kernel_wider_than_the_channels_is_refused_while_building():
    with pytest.raises(ValueError, match="Convolution operation requires that kernel dim 64 <= input dim 3"):
        C.convolution(C.constant(np.ones((64, 3, 3, 3), np.float32)), C.input_variable((3, 3, 8, 9)),
                      strides=(1, 1, 1), auto_padding=[False, True, True])


@pytest.mark.parametrize("kernel, operand, options", [
    ((3, 3, 3), (3, 8, 9), {}),
    ((1, 3, 3, 3), (3, 8, 9), {}),
    ((3, 3), (3, 8), {}),
    ((16, 1, 3, 3), (16, 6, 6), {"groups": 16}),
])
def test_padding_along_spanned_channels_is_refused_when_evaluated(kernel, operand, options):
    x = C.input_variable(operand)
    f = C.convolution(C.constant(np.ones(kernel, np.float32)), x, **options)
    with pytest.raises(RuntimeError, match="detected padding over channel axis"):
        f.eval({x: np.ones((1,) + operand, np.float32)})


@pytest.mark.parametrize("kernel, operand, options, ramp, total", [
    ((1, 2, 2), (1, 3, 3), {"auto_padding": [True]}, False, 120.0),    # one channel: nothing to pad
    ((2, 3), (3, 8), {}, True, 50.3143),                               # narrower than the channels: moves along them
    ((3, 3, 3), (3, 8, 9), {"auto_padding": [False, True, True]}, True, 43333.97),
    # padded along the channels with a stride of all of them: no padding falls there (CNTK's C# MNIST model)
    ((2, 4, 3, 3), (4, 5, 5), {"strides": (4, 1, 1)}, False, 66924.0),
])
def test_kernels_cntk_computes(kernel, operand, options, ramp, total):
    # kernel ones (or arange/10) over x = arange (or arange/7): the sums CNTK 2.7 gives
    x = C.input_variable(operand)
    k = np.arange(np.prod(kernel), dtype=np.float32).reshape(kernel) / 10 if ramp else np.ones(kernel, np.float32)
    data = np.arange(np.prod(operand), dtype=np.float32).reshape((1,) + operand) / (7 if ramp else 1)
    out = C.convolution(C.constant(k), x, **options).eval({x: data})
    assert float(out.sum()) == pytest.approx(total, rel=1e-5)
