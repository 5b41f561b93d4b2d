"""unpack_batch / to_batch, reshape and times over FreeDimension axes, crop_manual, batch_normalization stats."""
import warnings

import numpy as np
import pytest

import cntk as C


def test_to_batch_and_unpack_batch_move_the_batch_axis():
    a = C.parameter(shape=(4, 2, 3), init=1)
    batched = C.to_batch(a)
    assert batched.shape == (2, 3) and len(batched.dynamic_axes) == 1
    x = C.input_variable((2, 3))
    y = x * batched
    data = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    assert np.array_equal(y.grad({x: data}, [a]), data)
    unpacked = C.unpack_batch(y)
    assert unpacked.shape == (C.FreeDimension, 2, 3) and unpacked.dynamic_axes == ()
    C.assign(a, unpacked).eval({x: data})
    assert np.array_equal(a.value, data * 1)


def test_unpack_batch_rejects_sequences_and_to_batch_rejects_dynamic_operands():
    # RuntimeError, as CNTK 2.7 raises
    with pytest.raises(RuntimeError, match="sequence"):
        C.unpack_batch(C.sequence.input_variable(2))
    with pytest.raises(RuntimeError, match="no dynamic axes"):
        C.to_batch(C.input_variable(2))


def test_reshape_of_free_dimensions_is_sized_at_run_time():
    x = C.input_variable((C.FreeDimension, 2, 3))
    r = C.reshape(x, (-1,), 0, 2)
    assert r.shape == (C.FreeDimension, 3)
    data = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    assert np.array_equal(r.eval({x: data})[0], data.reshape(6, 3))
    fixed = C.reshape(x, (4,), 0, 2)
    with pytest.raises(ValueError, match="cannot be reshaped"):
        fixed.eval({x: np.zeros((1, 2, 3), np.float32)})


def test_times_with_a_free_dimension():
    x = C.input_variable((2, C.FreeDimension))
    w = C.input_variable((C.FreeDimension, 3))
    f = C.times(x, w)
    xd = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    wd = np.ones((1, 4, 3), np.float32)
    assert np.allclose(f.eval({x: xd, w: wd}), xd @ wd)


def test_crop_manual_takes_the_window_at_the_offsets():
    x = C.input_variable((1, 5, 5))
    ref = C.input_variable((1, 3, 2))
    data = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    out = C.crop_manual(x, ref, 1, 2).eval({x: data, ref: np.zeros((1, 1, 3, 2), np.float32)})
    assert np.array_equal(out, data[..., 2:5, 1:3])
    with pytest.raises(ValueError, match="no common ancestor"):
        C.crop_automatic(x, ref)


def _crop_case(layers, shape):
    x = C.input_variable(shape)
    y = C.layers.Sequential(layers)(x)
    out = C.crop_automatic(y, x).eval({x: np.arange(np.prod(shape), dtype=np.float32).reshape((1,) + shape)})
    return y.shape, out.reshape(-1)[:12].tolist()


def test_crop_automatic_lines_positions_up_through_convolution_pooling_and_transposes():
    # CNTK 2.7's values (reshaping_test.py::test_crop and variations)
    x = C.input_variable((1, 5, 5))
    ref = C.input_variable((1, 5, 5))
    y = C.layers.Sequential([
        C.layers.Convolution2D((3, 3), 1, init=1, strides=(2, 2), pad=True, bias=False),
        C.layers.MaxPooling((3, 3), strides=(2, 2), pad=True),
        C.layers.ConvolutionTranspose((4, 4), 1, strides=(4, 4), init=1, bias=False)])(x)
    data = {x: -np.arange(25).reshape(1, 1, 5, 5).astype(np.float32), ref: np.zeros((1, 1, 5, 5), np.float32)}
    expected = np.asarray([-12, -12, -12, -24, -24] * 3 + [-63, -63, -63, -81, -81] * 2, np.float32)
    assert np.array_equal(C.crop_automatic(y, x).eval(data).reshape(-1), expected)
    assert np.array_equal(C.crop_automatic_with_ancestors(y, ref, x, ref).eval(data).reshape(-1), expected)
    assert C.crop_automatic(y, x).root_function.attributes == {}

    conv, convT = C.layers.Convolution2D, C.layers.ConvolutionTranspose
    assert _crop_case([conv((3, 3), 1, init=1, strides=(2, 2), pad=False, bias=False),
                       convT((3, 3), 1, strides=(2, 2), init=1, bias=False, pad=False),
                       conv((1, 1), 1, init=1, bias=False, pad=True)], (1, 9, 9)) == \
        ((1, 9, 9), [90., 90., 198., 108., 234., 126., 270., 144., 144., 90., 90., 198.])
    assert _crop_case([C.layers.MaxPooling((2, 2), strides=(2, 2)),
                       convT((4, 4), 1, strides=(2, 2), init=1, bias=False, pad=False)], (1, 9, 9)) == \
        ((1, 10, 10), [10., 22., 22., 26., 26., 30., 30., 16., 16., 38., 80., 80.])


def test_batch_normalization_running_statistics_with_negative_time_constant():
    x = C.input_variable(2)
    scale, bias = C.parameter(2, init=1), C.parameter(2, init=0)
    mean, var = C.constant(1, shape=(2,)), C.constant(4, shape=(2,))
    count = C.constant(2, shape=())
    bn = C.batch_normalization(x, scale, bias, mean, var, False, normalization_time_constant=-1, epsilon=0,
                               running_count=count)
    data = np.array([[0., 2.], [2., 4.], [4., 6.]], np.float32)
    # inference uses the running statistics
    assert np.allclose(bn.eval(data), (data - 1) / 2)
    bn.grad(data, wrt=bn.parameters)  # a training pass: running stats average over all samples seen
    factor = 3 / (3 + 2)
    assert np.allclose(mean.value, (1 - factor) * 1 + factor * data.mean(0))
    assert np.allclose(var.value, (1 - factor) * 4 + factor * data.var(0, ddof=1))
    assert count.value == 5


def test_batch_normalization_without_running_count_warns():
    x = C.input_variable(2)
    with pytest.warns(Warning, match="running_count"):
        C.batch_normalization(x, C.parameter(2, init=1), C.parameter(2, init=0), C.constant(0, shape=(2,)),
                              C.constant(1, shape=(2,)), False)


def test_spatial_batch_normalization_infers_parameter_shapes_from_channels():
    x = C.input_variable((3, C.FreeDimension, C.FreeDimension))
    params = [C.parameter((C.InferredDimension,), init=1) for _ in range(2)]
    stats = [C.constant(0, shape=(C.InferredDimension,)) for _ in range(2)]
    C.batch_normalization(x, *params, *stats, True, running_count=C.constant(0, shape=()))
    assert all(p.shape == (3,) for p in params + stats)
