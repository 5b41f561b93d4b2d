"""Ops whose values, gradients or refusals differed from CNTK 2.7 in session 20's differential sweep of ops; the
numbers and exception types are CNTK 2.7's (CPU)."""
import numpy as np
import pytest

import cntk as C


def test_softsign_ignores_steepness():
    # CNTK 2.7 takes the argument and computes x / (1 + |x|) whatever it is
    x = C.input_variable(3, needs_gradient=True)
    d = np.array([[-2., 0.5, 3.]], np.float32)
    for steepness in (0.5, 1, 2.0):
        f = C.softsign(x, steepness=steepness)
        np.testing.assert_allclose(f.eval({x: d}), [[-0.6666666865348816, 0.3333333432674408, 0.75]], rtol=1e-6)
        np.testing.assert_allclose(f.grad({x: d}, wrt=[x]), [[0.1111111044883728, 0.4444444477558136, 0.0625]],
                                   rtol=1e-6)


def test_clip_bounds_get_no_gradient():
    x = C.input_variable(3, needs_gradient=True)
    lo = C.parameter(3, init=np.array([-1., 0., 1.], np.float32))
    hi = C.parameter(3, init=np.array([0., 0.4, 2.], np.float32))
    f = C.clip(x, lo, hi)
    d = np.array([[-2., 0.5, 3.]], np.float32)
    np.testing.assert_allclose(f.eval({x: d}), [[-1.0, 0.4, 2.0]], rtol=1e-7)
    g = f.grad({x: d}, wrt=[x, lo, hi])
    for v in (x, lo, hi):
        assert not np.any(g[v])


@pytest.mark.parametrize("reduce, values, grads, over_batch", [
    (C.reduce_l1, [0.5, 2.0], [-1.0, 1.0], 2.5),
    (C.reduce_l2, [0.5, 2.0], [-1.0, 1.0], 2.0615527629852295),
    (C.reduce_sum_square, [0.25, 4.0], [-1.0, 4.0], 4.25),
])
def test_norm_reductions_of_a_rank0_operand(reduce, values, grads, over_batch):
    # no static axis to reduce: the elementwise part (|x|, x^2) is still applied
    s = C.input_variable((), needs_gradient=True)
    d = np.array([-0.5, 2.0], np.float32)
    f = reduce(s)
    assert f.shape == ()
    np.testing.assert_allclose(f.eval({s: d}), values, rtol=1e-7)
    np.testing.assert_allclose(f.grad({s: d}, wrt=[s]), grads, rtol=1e-7)
    np.testing.assert_allclose(reduce(s, axis=C.Axis.default_batch_axis()).eval({s: d}), over_batch, rtol=1e-6)


@pytest.mark.parametrize("fn, axis, error", [
    (C.softmax, 0, ValueError), (C.log_softmax, 0, ValueError),
    (C.softmax, -1, RuntimeError), (C.log_softmax, -1, RuntimeError), (C.log_softmax, None, RuntimeError),
])
def test_softmax_axis_of_a_rank0_operand(fn, axis, error):
    with pytest.raises(error, match="rank 0"):
        fn(C.input_variable(()), axis=axis)


def test_softmax_of_a_rank0_operand_without_axis():
    s = C.input_variable(())
    np.testing.assert_allclose(C.softmax(s).eval({s: np.array([-0.5, 2.0], np.float32)}), [1.0, 1.0])


def test_times_transpose_infers_a_parameter_from_the_other_operand():
    p = C.parameter((-1,), init=0.5)
    b = C.input_variable(3)
    f = C.times_transpose(p, b)
    assert f.shape == (1,) and p.shape == (3,)
    np.testing.assert_allclose(f.eval({b: np.array([[1., 2., 3.], [-1., 0., 4.]], np.float32)}), [[3.0], [1.5]])


def test_flatten_along_the_batch_axis():
    x = C.input_variable((2, 3, 4))
    f = C.flatten(x, C.Axis.default_batch_axis())
    assert f.shape == (24, 1)
    d = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
    np.testing.assert_array_equal(f.eval({x: d}), d.reshape(2, 24, 1))
    assert C.flatten(C.sequence.input_variable((2, 3)), C.Axis.default_batch_axis()).shape == (6, 1)


@pytest.mark.parametrize("build", [
    lambda: C.flatten(C.input_variable((2, 3)), C.Axis.all_static_axes()),
    lambda: C.splice(C.input_variable(2), C.input_variable(2), axis=C.Axis.all_static_axes()),
    lambda: C.expand_dims(C.input_variable((2, 3)), C.Axis.default_batch_axis()),
    lambda: C.squeeze(C.input_variable((1, 2, 1)), 1),
    lambda: C.depth_to_space(C.input_variable((8, 2, 3)), 3),
    lambda: C.space_to_depth(C.input_variable((2, 4, 6)), 3),
    lambda: C.space_to_depth(C.input_variable((4, 6)), 2),
])
def test_shaping_refusals_are_runtime_errors(build):
    with pytest.raises(RuntimeError):
        build()


def test_splice_along_a_dynamic_axis_is_a_value_error():
    with pytest.raises(ValueError):
        C.splice(C.input_variable(2), C.input_variable(2), axis=C.Axis.default_batch_axis())


def test_splice_of_one_input_is_the_input():
    a = C.input_variable(2, name='a')
    f = C.splice(a)
    assert f.output.name == 'a' and f.output == a and f.shape == (2,)


def test_pad_with_a_negative_size():
    with pytest.raises(NotImplementedError):
        C.pad(C.input_variable(3), [(-1, 1)])


def test_top_k_names_its_indices_output():
    f = C.top_k(C.input_variable(4), 2, name='tk')
    assert [o.name for o in f.outputs] == ['tk', 'tk_TopKIndexMask']
    assert [o.name for o in C.top_k(C.input_variable(4), 2).outputs] == ['', '']
    assert [o.name for o in f.clone(C.CloneMethod.clone).outputs] == ['tk', 'tk_TopKIndexMask']


def test_top_k_of_zero_elements_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        C.top_k(C.input_variable(4), 0)


@pytest.mark.parametrize("build, error", [
    (lambda p: C.sequence.first(p), ValueError), (lambda p: C.sequence.last(p), ValueError),
    (lambda p: C.sequence.reduce_sum(p), ValueError), (lambda p: C.sequence.reduce_max(p), ValueError),
    (lambda p: C.sequence.softmax(p), ValueError), (lambda p: C.sequence.is_first(p), ValueError),
    (lambda p: C.sequence.is_last(p), ValueError), (lambda p: C.sequence.slice(p, 0, 1), ValueError),
    (lambda p: C.sequence.unpack(p, 0), ValueError), (lambda p: C.sequence.broadcast_as(p, p), ValueError),
    (lambda p: C.sequence.past_value(p), RuntimeError), (lambda p: C.sequence.future_value(p), RuntimeError),
    (lambda p: C.sequence.where(p), RuntimeError), (lambda p: C.sequence.gather(p, p), RuntimeError),
])
@pytest.mark.parametrize("static", [lambda: C.parameter(3, init=1.0), lambda: C.constant(np.ones(3, np.float32))])
def test_sequence_ops_refuse_an_operand_without_dynamic_axes(build, error, static):
    with pytest.raises(error):
        build(static())


def test_sequence_where_of_a_vector_condition_is_a_value_error():
    with pytest.raises(ValueError, match="scalar"):
        C.sequence.where(C.sequence.input_variable(3))
    C.sequence.where(C.sequence.input_variable(1))


def test_sequence_unpack_names_its_mask_output():
    f = C.sequence.unpack(C.sequence.input_variable(3), 0, name='nm')
    assert [o.name for o in f.outputs] == ['nm', 'nm_UnpackSequenceMask']


def test_random_like_of_sequences_draws_the_packed_layout():
    # CNTK 2.7 draws over its packed time-major layout of the minibatch, gaps included
    x = C.sequence.input_variable(2)
    f = C.random.uniform_like(x, seed=9)
    d = [np.zeros((2, 2), np.float32), np.zeros((3, 2), np.float32)]
    first = [[[0.5185191035270691, 0.49960705637931824], [0.23594020307064056, 0.017750099301338196]],
             [[0.8744703531265259, 0.827877938747406], [0.9002609848976135, 0.14697061479091644],
              [0.3020012676715851, 0.5258694291114807]]]
    second = [[[0.35157549381256104, 0.2142632156610489], [0.6003681421279907, 0.9063366651535034]],
              [[0.3552683889865875, 0.3200906813144684], [0.4691501259803772, 0.44348546862602234],
               [0.5251206159591675, 0.18128268420696259]]]
    for expected in (first, second):
        for got, e in zip(f.eval({x: d}), expected):
            np.testing.assert_allclose(got, e, rtol=1e-7)
    g = C.random.bernoulli_like(x, mean=0.3, seed=4)
    got = g.eval({x: [np.zeros((3, 2), np.float32), np.zeros((1, 2), np.float32), np.zeros((2, 2), np.float32)]})
    for a, e in zip(got, [[[1, 0], [0, 0], [1, 1]], [[0, 0]], [[1, 0], [0, 0]]]):
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("build, error", [
    (lambda: C.random.uniform((4,), low=2, high=1), RuntimeError),
    (lambda: C.random.uniform_like(C.input_variable(3), low=1, high=1), RuntimeError),
    (lambda: C.random.normal((4,), scale=-1), RuntimeError),
    (lambda: C.random.bernoulli((4,), mean=2), RuntimeError),
    (lambda: C.random.bernoulli_like(C.input_variable(3), mean=-0.5), RuntimeError),
    (lambda: C.random.uniform((C.FreeDimension, 2)), ValueError),
    (lambda: C.random.normal((-1, 2)), ValueError),
])
def test_random_distribution_refusals(build, error):
    with pytest.raises(error):
        build()


@pytest.mark.parametrize("options", [{}, dict(use_stats_across_channels=True)])
def test_mean_variance_normalization_of_a_vector_is_over_the_sample(options):
    x = C.input_variable(4)
    d = np.arange(8, dtype=np.float32).reshape(2, 4) ** 2
    np.testing.assert_allclose(C.mean_variance_normalization(x, **options).eval({x: d}),
                               [[-1.0, -0.7143, 0.1429, 1.5714], [-1.2562, -0.5268, 0.3647, 1.4183]], atol=1e-4)
    np.testing.assert_allclose(C.mean_variance_normalization(x, do_variance_scaling=False).eval({x: d}),
                               [[-3.5, -2.5, 0.5, 5.5], [-15.5, -6.5, 4.5, 17.5]])


@pytest.mark.parametrize("build, error", [
    (lambda: C.mean_variance_normalization(C.input_variable(())), ValueError),
    (lambda: C.local_response_normalization(C.input_variable((4, 2)), 1, 1.0, 0.5, 0.75), ValueError),
    (lambda: C.image_scaler(C.input_variable((3, 2, 2)), 2.0, [1., 2.]), RuntimeError),
    (lambda: C.assign(C.parameter((3,), init=0.0), C.input_variable(3)), ValueError),
])
def test_normalization_and_assign_refusals(build, error):
    with pytest.raises(error):
        build()


def test_eval_of_one_output_listed_twice_is_its_value():
    a = C.input_variable(3)
    f = C.combine([a, a])
    assert len(f.outputs) == 2
    got = f.eval({a: np.ones((2, 3), np.float32)})
    assert isinstance(got, np.ndarray) and got.shape == (2, 3)


@pytest.mark.parametrize("arg", [C.argmax, C.argmin])
def test_argmax_axis_refusals(arg):
    with pytest.raises(RuntimeError):   # a sequence along the batch axis, an operand without one
        arg(C.sequence.input_variable((2, 3)), axis=C.Axis.default_batch_axis())
    with pytest.raises(RuntimeError):
        arg(C.parameter((3, 4), init=1.0), axis=C.Axis.default_batch_axis())
    with pytest.raises(AttributeError):
        arg(C.input_variable((2, 3)), axis=(0, 1))


@pytest.mark.parametrize("radius", [2, 3])
def test_lrn_window_wider_than_the_channels(radius, capfd):
    # CNTK 2.7 narrows the window to the 4 channels: c - 1 .. c + 2 (alpha still divided by 2 * radius + 1)
    x = C.input_variable((4, 1, 1))
    f = C.local_response_normalization(x, radius, 1.0, float(2 * radius + 1), 1.0)
    assert "LRN kernel size(%d) larger than channel size(4)" % (2 * radius + 1) in capfd.readouterr().err
    sums = {0: [11, 12, 3, 2], 1: [11, 12, 11, 2], 2: [11, 12, 11, 10], 3: [3, 12, 11, 10]}
    for j, expected in sums.items():
        d = np.ones((1, 4, 1, 1), np.float32)
        d[0, j] = 3.0
        np.testing.assert_allclose(d.reshape(-1) / f.eval({x: d}).reshape(-1) - 1, expected, rtol=1e-6)
