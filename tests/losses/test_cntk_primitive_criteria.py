"""Criteria that are one primitive in CNTK 2.7, not a composition: cosine_distance (CosDistance),
weighted_binary_cross_entropy (Logistic, one number for the minibatch), classification_error with topN > 1
(ClassificationError, the minibatch's misses) and ndcg_at_1 (NDCG). Values and gradients from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


def test_cosine_distance_is_cntks_cos_distance_with_its_zero_vector_rule():
    x = C.input_variable(3, name='x', needs_gradient=True)
    y = C.input_variable(3, name='y', needs_gradient=True)
    f = C.cosine_distance(x, y)
    assert (f.root_function.op_name, f.root_function.is_block) == ("CosDistance", False)
    assert [i.name for i in f.root_function.inputs] == ['x', 'y'] and f.output.shape == ()
    X = np.array([[1, 2, 3], [0, 0, 0], [1, 0, 0]], np.float32)
    Y = np.array([[1, 1, 1], [1, 0, 0], [-2, 0, 0]], np.float32)
    np.testing.assert_array_equal(f.eval({x: X, y: Y}), np.array([0.9258200526237488, 0.0, -1.0], np.float32))
    g = f.grad({x: X, y: Y}, wrt=[x, y])
    np.testing.assert_array_equal(g[x], np.array(
        [[0.08817334473133087, 0.022043347358703613, -0.044086650013923645], [np.nan] * 3, [0, 0, 0]], np.float32))
    np.testing.assert_array_equal(g[y], np.array(
        [[-0.15430331230163574, 2.9802322387695312e-08, 0.15430337190628052], [0, 0, 0], [0, 0, 0]], np.float32))
    assert not np.signbit(g[x][2]).any()  # CNTK subtracts from a zero gradient: +0, never -0


def test_cosine_distance_broadcasts_a_sample_along_a_sequence_and_refuses_other_shapes():
    s = C.sequence.input_variable(3)
    v = C.input_variable(3)
    f = C.cosine_distance(s, v)
    assert len(f.output.dynamic_axes) == 2
    out = f.eval({s: [np.array([[1, 2, 3], [0, 1, 0]], np.float32)], v: np.array([[1, 1, 1]], np.float32)})
    np.testing.assert_allclose(out[0], [0.9258200526237488, 0.5773502588272095], rtol=1e-7)
    with pytest.raises(ValueError, match="same shape"):
        C.cosine_distance(C.input_variable((2, 3)), C.input_variable(3))


def _wbce_inputs():
    return (C.input_variable(1, name='p', needs_gradient=True), C.input_variable(1, name='t'),
            C.input_variable(1, name='w'))


def test_weighted_binary_cross_entropy_is_one_number_for_the_minibatch():
    p, t, w = _wbce_inputs()
    f = C.weighted_binary_cross_entropy(p, t, w)
    assert (f.root_function.op_name, [i.name for i in f.root_function.inputs]) == ("Logistic", ['p', 't', 'w'])
    assert f.output.shape == () and f.output.dynamic_axes == ()
    feed = {p: np.array([[.2], [.5], [.9]], np.float32), t: np.array([[0], [1], [1]], np.float32),
            w: np.array([[2], [3], [4]], np.float32)}
    # -N * sum(w * log(...)) / sum(w) with N = 3 samples; the gradient is not scaled by N / sum(w)
    np.testing.assert_allclose(f.eval(feed), 0.9823903441429138, rtol=1e-6)
    np.testing.assert_allclose(f.grad(feed, wrt=[p]), [[2.5], [-6.0], [-4.44444465637207]], rtol=1e-7)
    t2 = C.input_variable(1, needs_gradient=True)
    g = C.weighted_binary_cross_entropy(p, t2, w)
    with pytest.raises(ValueError, match="cannot compute the gradient"):
        g.grad({p: feed[p], t2: feed[t], w: feed[w]}, wrt=[t2])


def test_weighted_binary_cross_entropy_clamps_its_log_and_guards_its_division():
    p, t, w = _wbce_inputs()
    f = C.weighted_binary_cross_entropy(p, t, w)
    feed = {p: np.array([[0.], [1.], [1.], [0.]], np.float32), t: np.array([[0], [1], [0], [1]], np.float32),
            w: np.full((4, 1), 2, np.float32)}
    np.testing.assert_allclose(f.eval(feed), 170.1999969482422, rtol=1e-7)
    np.testing.assert_allclose(f.grad(feed, wrt=[p]), [[2.0], [-2.0], [2e30], [-2e30]], rtol=1e-7)


def test_weighted_binary_cross_entropy_of_sequences_counts_cntks_packed_columns():
    p, t, w = (C.sequence.input_variable(1) for _ in range(3))
    f = C.weighted_binary_cross_entropy(p, t, w)
    # lengths 3 and 1 pack into 2 rows of 3 columns: N = 6
    out = f.eval({p: [np.array([[.2], [.5], [.7]], np.float32), np.array([[.4]], np.float32)],
                  t: [np.array([[0], [1], [1]], np.float32), np.array([[1]], np.float32)],
                  w: [np.array([[2], [3], [1]], np.float32), np.array([[5]], np.float32)]})
    np.testing.assert_allclose(out, 4.071194648742676, rtol=1e-6)


def test_weighted_binary_cross_entropy_trains_as_in_cntk():
    x, y, w = C.input_variable(2), C.input_variable(1), C.input_variable(1)
    z = C.layers.Dense(1, activation=C.sigmoid, init=C.glorot_uniform(seed=1))(x)
    trainer = C.Trainer(z, (C.weighted_binary_cross_entropy(z, y, w), None),
                        C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    feed = {x: np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32), y: np.array([[1], [0], [1]], np.float32),
            w: np.array([[1], [2], [0.5]], np.float32)}
    losses = []
    for _ in range(3):
        trainer.train_minibatch(feed)
        losses.append(trainer.previous_minibatch_loss_average)
    assert trainer.previous_minibatch_sample_count == 3
    np.testing.assert_allclose(losses, [1.1545534133911133, 1.089948336283366, 1.0268967946370442], rtol=1e-6)
    np.testing.assert_allclose(z.parameters[0].value, [[-0.989990234375], [-0.7987051606178284]], rtol=1e-6)


def test_weighted_binary_cross_entropy_refuses_more_than_one_value_per_sample_when_evaluated():
    # CNTK 2.7 builds it (shape ()) and raises "The input matrix dimensions do not match." in eval
    o, t, w = C.input_variable(3), C.input_variable(3), C.input_variable(3)
    f = C.weighted_binary_cross_entropy(o, t, w)
    assert f.shape == ()
    d = np.full((2, 3), 0.5, np.float32)
    with pytest.raises(ValueError, match="output holds \\(3,\\) values per sample"):
        f.eval({o: d, t: d, w: d})


def test_top_n_classification_error_counts_the_minibatchs_misses():
    z, y = C.input_variable(4, name='z'), C.input_variable(4, name='y')
    f = C.classification_error(z, y, topN=2)
    root = f.root_function
    assert (root.op_name, root.is_block, len(root.inputs)) == ("ClassificationError", False, 3)
    assert f.output.shape == () and f.output.dynamic_axes == ()
    Z = np.array([[.1, .5, .3, .2], [.4, .3, .2, .1], [.1, .2, .3, .4]], np.float32)
    Y = np.array([[0, 0, 1, 0]] * 3, np.float32)
    assert float(f.eval({z: Z, y: Y})) == 1.0
    zs, ys = C.sequence.input_variable(3), C.sequence.input_variable(3)
    g = C.classification_error(zs, ys, topN=2)
    assert float(g.eval({zs: [np.array([[1, 2, 3], [3, 1, 2]], np.float32), np.array([[1, 3, 2]], np.float32)],
                         ys: [np.array([[1, 0, 0], [0, 1, 0]], np.float32), np.array([[1, 0, 0]], np.float32)]})) == 3
    with pytest.raises(RuntimeError, match="topN feature is not supported along a specific axis"):
        C.classification_error(z, y, topN=2, axis=0)


def test_top_n_error_as_a_trainers_metric():
    x, y = C.input_variable(2), C.input_variable(3)
    z = C.layers.Dense(3, init=C.glorot_uniform(seed=1))(x)
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y, topN=2)),
                        C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    trainer.train_minibatch({x: np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32),
                             y: np.eye(3, dtype=np.float32)})
    np.testing.assert_allclose(trainer.previous_minibatch_loss_average, 2.275023619333903, rtol=1e-6)
    assert trainer.previous_minibatch_evaluation_average == pytest.approx(2 / 3)


def test_ndcg_is_named_and_reports_attributes_as_cntk():
    a, b, c = (C.sequence.input_variable(1) for _ in range(3))
    f = C.ndcg_at_1(a, b, c)
    assert f.root_function.op_name == "NDCG" and f.root_function.attributes == {}
    assert C.lambda_rank(a, b, c).root_function.attributes == {}


def test_top_n_error_ranks_equal_outputs_by_index_and_takes_the_targets_first_largest_value():
    z, y = C.input_variable(4), C.input_variable(4)
    f = C.classification_error(z, y, topN=2)
    ties = np.array([[1, 1, 1, 0]], np.float32)
    assert [float(f.eval({z: ties, y: np.eye(4, dtype=np.float32)[[k]]})) for k in range(3)] == [0, 0, 1]
    up = np.array([[1, 2, 3, 4]], np.float32)
    assert float(f.eval({z: up, y: np.array([[0, 0, .5, .5]], np.float32)})) == 0   # target index 2
    assert float(f.eval({z: up, y: np.zeros((1, 4), np.float32)})) == 1            # target index 0
    assert float(f.eval({z: up[:, ::-1].copy(), y: np.zeros((1, 4), np.float32)})) == 0


def test_top_n_error_takes_a_matrix_sample_as_one_vector():
    x = C.input_variable((3, 4))
    X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7 - 3
    assert float(C.classification_error(x, C.hardmax(x * -1), topN=2).eval({x: X})) == 2
    assert float(C.classification_error(x, C.hardmax(x), topN=2).eval({x: X})) == 0
