"""CNTK 2.7 refuses a convolution kernel or pooling window larger than its operand along an axis even when the
operand is padded (ConvolveGeometry: "Convolution operation requires that kernel dim K <= input dim N."). The
local response normalization of CNTK's ConvNetLRN_CIFAR10_DataAug example convolves the channel axis with a
kernel of 2n+1 = 9, so it needs at least 9 channels in CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("make", [
    lambda: C.convolution(C.constant(1.0, (1, 1, 5, 5)), C.input_variable((1, 4, 4)), auto_padding=[True]),
    lambda: C.convolution(C.constant(1.0, (1, 9, 1, 1)), C.input_variable((1, 8, 5, 5))),
    lambda: C.layers.Convolution((5, 5), 2, pad=True)(C.input_variable((1, 3, 3))),
    lambda: C.layers.MaxPooling((5, 5), pad=True)(C.input_variable((1, 3, 3))),
    lambda: C.layers.MaxPooling((5, 5))(C.input_variable((1, 3, 3))),
])
def test_kernel_larger_than_the_operand_is_refused(make):
    with pytest.raises(ValueError, match=r"Convolution operation requires that kernel dim \d+ <= input dim \d+\."):
        make()


def test_kernel_as_large_as_the_operand_is_fine():
    x = C.input_variable((1, 4, 4))
    f = C.convolution(C.constant(1.0, (1, 1, 4, 4)), x, auto_padding=[True])
    assert f.shape == (1, 4, 4)
    # CNTK 2.7's values (an even kernel is padded more before than after)
    out = f.eval({x: np.ones((1, 1, 4, 4), np.float32)})[0, 0]
    np.testing.assert_array_equal(out, [[9, 12, 9, 6], [12, 16, 12, 8], [9, 12, 9, 6], [6, 8, 6, 4]])
    assert C.layers.MaxPooling((3, 3), pad=True)(C.input_variable((1, 3, 3))).shape == (1, 3, 3)
