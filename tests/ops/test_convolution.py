"""convolution / pooling / normalization ops against direct torch computations."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import cntk as C


def test_convolution_same_padding_matches_torch():
    x = C.input_variable((2, 7, 7))
    w = np.random.RandomState(0).randn(3, 2, 3, 3).astype(np.float32)
    f = C.convolution(w, x, auto_padding=[False, True, True])
    data = np.random.RandomState(1).randn(4, 2, 7, 7).astype(np.float32)
    expected = F.conv2d(torch.from_numpy(data), torch.from_numpy(w), padding=1).numpy()
    assert f.shape == (3, 7, 7)
    np.testing.assert_allclose(f.eval({x: data}), expected, rtol=1e-4, atol=1e-4)


def test_convolution_valid_with_stride_starts_at_first_cell_like_cntk():
    # without padding CNTK's first window starts at the first cell, whatever is left over at the end
    # (CNTK's kernel_test pooling geometry: 8 cells, window 4, stride 5 pools cells 0..3)
    x = C.input_variable((1, 8))
    f = C.convolution(np.ones((1, 1, 3), np.float32), x, strides=3, auto_padding=[False])
    assert f.shape == (1, 2)
    out = f.eval({x: np.arange(8, dtype=np.float32).reshape(1, 1, 8)})
    np.testing.assert_allclose(out.ravel(), [0 + 1 + 2, 3 + 4 + 5])
    p = C.pooling(x, C.MAX_POOLING, (4,), (5,)).eval({x: np.arange(8, dtype=np.float32).reshape(1, 1, 8)})
    np.testing.assert_allclose(p.ravel(), [3])


def test_auto_padding_centres_the_windows_like_cntk():
    # 6 cells, window 5, stride 3, padded: 2 outputs centred on cells 1 and 4 (CNTK's kernel_test geometry)
    x = C.input_variable((1, 6))
    p = C.pooling(x, C.MAX_POOLING, (5,), (3,), auto_padding=[True])
    assert p.shape == (1, 2)
    np.testing.assert_allclose(p.eval({x: np.arange(6, dtype=np.float32).reshape(1, 1, 6)}).ravel(), [3, 5])


def test_ceil_out_dim_adds_a_partial_last_window():
    x = C.input_variable((1, 8))
    p = C.pooling(x, C.MAX_POOLING, (3,), (2,), ceil_out_dim=True)
    assert p.shape == (1, 4)
    np.testing.assert_allclose(p.eval({x: np.arange(8, dtype=np.float32).reshape(1, 1, 8)}).ravel(), [2, 4, 6, 7])


def test_kernel_without_output_channel_axis_gives_one_channel():
    x = C.input_variable((1, 3, 3))
    f = C.convolution(np.ones((1, 2, 2), np.float32), x, auto_padding=[True])
    assert f.shape == (1, 3, 3)
    data = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    # even kernel, padded: its extra cell is on the right, so each output sums the 2x2 block starting there
    padded = np.pad(data[0, 0], ((0, 1), (0, 1)))
    expected = [[padded[i:i + 2, j:j + 2].sum() for j in range(3)] for i in range(3)]
    np.testing.assert_allclose(f.eval({x: data})[0, 0], expected)


def test_free_dimensions_follow_the_data():
    x = C.input_variable((2, C.FreeDimension, C.FreeDimension))
    w = np.random.RandomState(0).randn(3, 2, 3, 3).astype(np.float32)
    f = C.pooling(C.convolution(w, x, auto_padding=[False, True, True]), C.MAX_POOLING, (2, 2), (2, 2))
    assert f.shape == (3, C.FreeDimension, C.FreeDimension)
    for h, wd in [(6, 6), (8, 10)]:
        data = np.random.RandomState(h).randn(2, 2, h, wd).astype(np.float32)
        expected = F.max_pool2d(F.conv2d(torch.from_numpy(data), torch.from_numpy(w), padding=1), 2).numpy()
        np.testing.assert_allclose(f.eval({x: data}), expected, rtol=1e-4, atol=1e-4)


def test_roipooling_pools_each_region_onto_the_grid():
    x = C.input_variable((1, 3, 3))
    rois = C.input_variable((1, 4))
    f = C.roipooling(x, rois, C.MAX_POOLING, (3, 3), 1.0)
    assert f.shape == (1, 1, 3, 3)
    data = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    out = f.eval({x: data, rois: np.array([[[1, 1, 2, 2]]], np.float32)})
    np.testing.assert_allclose(out[0, 0, 0], [[5, 6, 6], [8, 9, 9], [8, 9, 9]])


def test_pooling_max_and_average_exclude_padding():
    x = C.input_variable((1, 4, 4))
    data = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    m = C.pooling(x, C.MAX_POOLING, (2, 2), (2, 2)).eval({x: data})
    np.testing.assert_allclose(m.ravel(), [5, 7, 13, 15])
    a = C.pooling(x, C.AVG_POOLING, (3, 3), (1, 1), auto_padding=[True]).eval({x: np.ones_like(data)})
    np.testing.assert_allclose(a, np.ones_like(data))


def test_convolution_transpose_inverts_shape():
    x = C.input_variable((2, 3, 3))
    f = C.convolution_transpose(np.ones((2, 1, 2, 2), np.float32), x, strides=2, auto_padding=[False])
    assert f.shape == (1, 6, 6)
    np.testing.assert_allclose(f.eval({x: np.ones((1, 2, 3, 3), np.float32)}), 2 * np.ones((1, 1, 6, 6)))


def test_batch_normalization_updates_running_mean_in_training_only():
    from cntk_compat.core.engine import evaluate_tensors
    x = C.input_variable(3)
    bn = C.layers.BatchNormalization(normalization_time_constant=0)(x)
    data = np.random.RandomState(0).randn(16, 3).astype(np.float32) + 5
    (out,), _ = evaluate_tensors([bn.output], {x: data}, training=True)
    assert abs(out.mean().item()) < 1e-4
    mean = next(c for c in bn.constants if c.name == "aggregate_mean")
    np.testing.assert_allclose(mean.value, data.mean(0), rtol=1e-4)
    np.testing.assert_allclose(bn.eval({x: data}).mean(0), 0, atol=1e-3)


def test_convolution_transpose_auto_padded_output_size_is_cntk27s():
    # CNTK 2.7 (checked against it for inputs 7 and 8, kernels 2..5, strides 1..3): an auto-padded axis gives
    # (n - 1) * stride + 1, an unpadded one (n - 1) * stride + kernel; op_name is Convolution, as in CNTK
    for n, k, s in ((8, 3, 2), (7, 4, 3), (8, 5, 1), (7, 2, 2)):
        x = C.input_variable((2, n, n))
        w = np.random.RandomState(0).rand(2, 3, k, k).astype(np.float32)
        auto = C.convolution_transpose(w, x, strides=(s, s), auto_padding=[False, True, True])
        valid = C.convolution_transpose(w, x, strides=(s, s), auto_padding=[False, False, False])
        assert auto.shape == (3, (n - 1) * s + 1, (n - 1) * s + 1)
        assert valid.shape == (3, (n - 1) * s + k, (n - 1) * s + k)
        assert auto.owner.op_name == "Convolution"


def test_float32_kernel_over_float64_data():
    # CNTK 2.7's sequence_test.py::test_sequence_unpack_with_convolution[double]
    x = C.sequence.input((20, 20), dtype=np.float64)
    z = C.reshape(C.sequence.unpack(x, 0, no_mask_output=True), (3, 20, 20))
    t = C.convolution(C.constant(1.0, (4, 3, 3, 3)), z, auto_padding=[False, True, True])
    val = np.random.RandomState(0).random_sample((2, 3, 20, 20))
    result = t.eval({x: val})
    assert result.shape == (2, 4, 20, 20) and result.dtype == np.float64
    assert np.allclose(result[0, 0, 5, 5], val[0, :, 4:7, 4:7].sum())


@pytest.mark.parametrize("weights, strides, pad, lengths, expected", [
    # CNTK 2.7's values: it convolves the batch padded to its longest sequence, so every sequence keeps the
    # longest one's window centres (here the 6-step sequence starts at step 0, as the 7-step one does)
    ([1., 10., 100.], 3, True, (7, 6, 2), [[210., 543., 76.], [210., 543.], [210.]]),
    ([1., 10., 100.], 3, False, (7, 6, 4), [[321., 654.], [321., 654.], [321.]]),
    # without padding the first window starts at the first step
    ([1., 10.], 2, False, (5, 3), [[21., 43.], [21.]]),
])
def test_sequential_convolution_strided_windows_are_cntk27s(weights, strides, pad, lengths, expected):
    x = C.sequence.input_variable((1, 1))
    w = C.constant(np.array(weights, np.float32).reshape(1, 1, len(weights), 1))
    f = C.convolution(w, x, sequential=True, strides=(1, strides, 1), auto_padding=[False, pad, False])
    out = f.eval({x: [np.arange(1, n + 1, dtype=np.float32).reshape(n, 1, 1) for n in lengths]})
    assert [np.ravel(o).tolist() for o in out] == expected


@pytest.mark.parametrize("kernel, operand, options, shape", [
    # CNTK 2.7's shapes: auto_padding covers the channel axis too (the op's default [True] pads it), so the
    # kernel moves along it and the output's first axis holds O blocks of ceil(C / stride) positions
    ((4, 1), (4, 2), {}, (4, 2)),
    ((2, 4, 1), (4, 2), {}, (8, 2)),
    ((2, 4, 3, 3), (4, 5, 5), {}, (8, 5, 5)),
    ((2, 2), (4, 5), {"strides": [2, 1]}, (2, 5)),
    ((2, 4, 3), (4, 5), {"auto_padding": [True, False]}, (8, 3)),
    ((2, 4, 3), (4, 5), {"auto_padding": [False, True]}, (2, 5)),
    ((4, 1), (4, 2), {"auto_padding": [False]}, (1, 2)),
    ((16, 1, 3, 3), (16, 64, 64), {"groups": 16}, (256, 64, 64)),
    ((16, 1, 3, 3), (16, 64, 64), {"groups": 16, "auto_padding": [False, True, True]}, (16, 64, 64)),
])
def test_auto_padding_covers_the_channel_axis(kernel, operand, options, shape):
    y = C.convolution(C.constant(np.ones(kernel, np.float32)), C.input_variable(operand), **options)
    assert y.shape == shape


@pytest.mark.parametrize("kernel, options, expected", [
    # CNTK 2.7's values for a kernel with one output channel moving along the channel axis of x = arange(8)(4, 2)
    ((2, 1), {}, [[4., 7.], [10., 13.], [16., 19.], [6., 7.]]),
    ((1, 2, 1), {}, [[4., 7.], [10., 13.], [16., 19.], [6., 7.]]),
    ((2, 2), {"strides": [2, 1]}, [[20., 10.], [60., 26.]]),
])
def test_a_kernel_moving_along_the_channel_axis(kernel, options, expected):
    x = C.input_variable((4, 2))
    w = C.constant(np.arange(1, np.prod(kernel) + 1, dtype=np.float32).reshape(kernel))
    out = C.convolution(w, x, **options).eval({x: np.arange(8, dtype=np.float32).reshape(1, 4, 2)})
    assert np.array_equal(out[0], expected)


def test_several_output_channels_moving_along_the_channel_axis_cannot_be_computed():
    x = C.input_variable((4, 2))
    y = C.convolution(C.constant(np.ones((2, 4, 1), np.float32)), x)
    assert y.shape == (8, 2)  # CNTK infers it, then refuses to compute it, with a RuntimeError (CNTK 2.7's text)
    with pytest.raises(RuntimeError, match="detected padding over channel axis. This is not supported in cuDnn. "
                                           "Please try setting autoPadding to false for channel axis. "):
        y.eval({x: np.ones((1, 4, 2), np.float32)})


def test_grouped_convolution_with_default_padding_over_the_channel_axis_cannot_be_computed():
    # C.convolution's default auto_padding=[True] pads the channel axis too; a grouped kernel cannot move along it
    # (CNTK 2.7: shape (16, 8, 8), then the same RuntimeError when computing; LGCN's grouped 45x45 smoothing)
    y = C.input_variable((4, 8, 8))
    g = C.convolution(C.constant(np.ones((4, 1, 5, 5), np.float32) / 25), y, groups=4)
    assert g.shape == (16, 8, 8)
    with pytest.raises(RuntimeError, match="padding over channel axis"):
        g.eval({y: np.ones((1, 4, 8, 8), np.float32)})


def test_ceil_out_dim_with_auto_padding_counts_like_cntk27_and_caffe():
    # CNTK 2.7 gives ceil((n - 1) / stride) + 1 windows (6 -> 4 for a 3-window, stride 2), as Caffe's padded
    # pooling does; the windows keep auto padding's placement (first centre on cell 0 here)
    x = C.input_variable((1, 6, 6))
    p = C.pooling(x, C.MAX_POOLING, (3, 3), (2, 2), auto_padding=[True], ceil_out_dim=True)
    assert p.shape == (1, 4, 4)
    v = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)
    np.testing.assert_allclose(p.eval({x: v})[0, 0], [[7, 9, 11, 11], [19, 21, 23, 23], [31, 33, 35, 35],
                                                      [31, 33, 35, 35]])
    floor = C.pooling(x, C.MAX_POOLING, (3, 3), (2, 2), auto_padding=[True])
    assert floor.shape == (1, 3, 3)
