"""Column-wise gradient quantization (1-bit SGD and n bits) with error feedback."""
import numpy as np
import pytest
import torch

from cntk_compat.distributed.quantization import (check_bits, column_layout, dequantize, pack, packed_size,
                                                  quantization_range, quantize, unpack)


def test_columns_run_along_the_last_numpy_axis_and_are_quantized_alone_however_short():
    # CNTK 2.7 quantizes each column of the gradient's matrix (rows: the last numpy axis) alone
    assert column_layout((2, 3, 300)) == (6, 300)
    assert column_layout((512, 784)) == (512, 784)
    assert column_layout((30, 10)) == (30, 10)
    assert column_layout((6, 3, 3, 3)) == (54, 3)       # a convolution kernel: columns along its last spatial axis
    assert column_layout((4, 1, 1)) == (4, 1)           # a convolution's bias: one value a column
    assert column_layout((7,)) == (1, 7)
    assert column_layout(()) == (1, 1)
    assert column_layout((0, 5)) == (0, 5)
    assert column_layout((5, 0)) == (0, 0)


def test_one_bit_reconstructs_each_column_to_the_means_of_its_negative_and_non_negative_values():
    g = torch.tensor([[1., -2., 3., -4.],
                      [0., 0., 0., 0.],
                      [5., 7., 0., 6.]])
    lower, upper = quantization_range(g, 1)
    codes = quantize(g, lower, upper, 1)
    np.testing.assert_array_equal(codes.numpy(), [[1, 0, 1, 0], [1, 1, 1, 1], [1, 1, 1, 1]])
    restored = dequantize(codes, lower, upper, 1)
    np.testing.assert_allclose(restored.numpy(), [[2., -3., 2., -3.],
                                                  [0., 0., 0., 0.],
                                                  [4.5, 4.5, 4.5, 4.5]], rtol=1e-6)


def test_two_bits_cut_four_root_mean_squares_into_three_steps():
    g = torch.tensor([[1., -1., 1., -1.]])      # rms 1: range [-4, 4], step 8/3
    lower, upper = quantization_range(g, 2)
    np.testing.assert_allclose([lower.item(), upper.item()], [-4., 4.])
    codes = quantize(g, lower, upper, 2)
    # (1 + 4) / (8/3) = 1.875 -> 1 ; (-1 + 4) / (8/3) = 1.125 -> 1
    np.testing.assert_array_equal(codes.numpy(), [[1, 1, 1, 1]])
    np.testing.assert_allclose(dequantize(codes, lower, upper, 2).numpy(), [[0., 0., 0., 0.]], atol=1e-6)
    # one large value among 19 zeros lies beyond 4 root mean squares (100 / sqrt(20) * 4 = 89.4): top / bottom code
    outliers = torch.zeros(2, 20)
    outliers[0, 0], outliers[1, 0] = 100., -100.
    lower, upper = quantization_range(outliers, 2)
    codes = quantize(outliers, lower, upper, 2)
    np.testing.assert_array_equal(codes[:, 0].numpy(), [3, 0])
    np.testing.assert_array_equal(codes[:, 1:].numpy(), np.ones((2, 19)))


@pytest.mark.parametrize("bits", [1, 2, 4, 8, 16])
def test_pack_and_unpack_round_trip(bits):
    codes = torch.randint(0, 2 ** bits, (37,))
    packed = pack(codes, bits)
    assert packed.dtype == torch.uint8 and packed.numel() == packed_size(37, bits)
    np.testing.assert_array_equal(unpack(packed, bits, 37).numpy(), codes.numpy())
    assert packed_size(37, 1) == 5


@pytest.mark.parametrize("bits", [1, 2, 4, 8, 16])
def test_rows_are_packed_separately(bits):
    codes = torch.randint(0, 2 ** bits, (3, 5, 13))
    packed = pack(codes, bits)
    assert packed.shape == (3, 5, packed_size(13, bits))
    np.testing.assert_array_equal(packed[1, 2].numpy(), pack(codes[1, 2], bits).numpy())
    np.testing.assert_array_equal(unpack(packed, bits, 13).numpy(), codes.numpy())


@pytest.mark.parametrize("bits", [0, 3, 32, 64, True, 1.0])
def test_unsupported_bit_counts_are_rejected(bits):
    with pytest.raises(ValueError, match="num_quantization_bits"):
        check_bits(bits)
