"""`initializer.bilinear(k, k)`: CNTK 2.7's kernel values (computed in float32, also for float64 parameters), its
placement (channel c to channel c, only in the first of any leading axes) and its refusals."""
import numpy as np
import pytest

import cntk as C
from cntk import initializer as I


def _kernel(k, dtype=np.float32):
    return C.parameter((1, 1, k, k), init=I.bilinear(k, k), dtype=dtype).value[0, 0]


def test_odd_and_even_kernels_are_cntk_s_float32_values():
    np.testing.assert_array_equal(_kernel(3)[1], [0.5, 1.0, 0.5])
    np.testing.assert_array_equal(_kernel(4)[0], [0.0625, 0.1875, 0.1875, 0.0625])
    # float32 bits from CNTK 2.7
    assert [float(v).hex() for v in _kernel(5)[0]] == ['0x1.c71c6e0000000p-4', '0x1.c71c6e0000000p-3',
                                                         '0x1.5555540000000p-2', '0x1.c71c6e0000000p-3',
                                                         '0x1.c71c6e0000000p-4']
    assert [float(v).hex() for v in _kernel(6)[3]] == ['0x1.1c71c80000000p-3', '0x1.aaaaaa0000000p-2',
                                                         '0x1.638e380000000p-1', '0x1.638e380000000p-1',
                                                         '0x1.aaaaaa0000000p-2', '0x1.1c71c80000000p-3']
    assert [float(v).hex() for v in _kernel(9)[4][:4]] == ['0x1.9999980000000p-3', '0x1.9999980000000p-2',
                                                             '0x1.3333340000000p-1', '0x1.99999a0000000p-1']
    np.testing.assert_array_equal(_kernel(7)[3], [0.25, 0.5, 0.75, 1.0, 0.75, 0.5, 0.25])
    assert _kernel(5).sum(dtype=np.float32) == np.float32(8.999998092651367)
    k64 = _kernel(5, np.float64)
    assert k64.dtype == np.float64 and float(k64[0, 0]).hex() == '0x1.c71c6e0000000p-4'


def test_one_kernel_per_channel_in_the_first_of_the_leading_axes():
    v = C.parameter((2, 2, 3, 3), init=I.bilinear(3, 3)).value
    assert v.sum() == 8.0 and v[0, 1].sum() == 0.0 and v[1, 1, 1, 1] == 1.0
    v = C.parameter((2, 2, 2, 3, 3), init=I.bilinear(3, 3)).value
    assert v.sum() == 8.0 and [tuple(i) for i in np.argwhere(v == 1.0)] == [(0, 0, 0, 1, 1), (0, 1, 1, 1, 1)]
    v = C.parameter((3, 1, 1, 3, 3), init=I.bilinear(3, 3)).value
    assert v.sum() == 4.0


def test_refusals_are_runtime_errors():
    with pytest.raises(RuntimeError, match="channels"):
        C.parameter((2, 1, 3, 3), init=I.bilinear(3, 3)).value
    with pytest.raises(RuntimeError, match="channels"):
        C.parameter((1, 1, 2, 3, 3), init=I.bilinear(3, 3)).value
    with pytest.raises(RuntimeError):
        C.parameter((2, 3, 3), init=I.bilinear(3, 3)).value
    with pytest.raises(RuntimeError, match="square"):
        C.parameter((1, 1, 5, 3), init=I.bilinear(3, 5)).value


def test_upsampling_layer_with_bilinear_kernel():
    # ConvolutionTranspose((3, 3), 3, strides=2, init=bilinear(3, 3)): CNTK 2.7 kernel |sum| 12.0, output sum below
    np.random.seed(0)
    x = np.random.rand(2, 3, 16, 16).astype(np.float32)
    f = C.input_variable((3, 16, 16))
    y = C.layers.ConvolutionTranspose((3, 3), 3, strides=2, output_shape=(32, 32), pad=True, bias=False,
                                      init=I.bilinear(3, 3))(f)
    assert float(np.abs(y.parameters[0].value).sum()) == 12.0
    np.testing.assert_allclose(float(y.eval({f: x}).sum()), 2995.142578125, rtol=1e-6)
