import numpy as np
import pytest

import cntk as C


def test_cross_entropy_with_softmax_is_per_sample_scalar():
    z = C.input_variable(3)
    y = C.input_variable(3)
    ce = C.cross_entropy_with_softmax(z, y)
    assert ce.shape == (1,)
    zs = np.array([[1, 2, 3]], np.float32)
    expected = np.log(np.exp(zs).sum()) - 3
    np.testing.assert_allclose(ce.eval({z: zs, y: np.array([[0, 0, 1]], np.float32)}).ravel(), [expected], rtol=1e-5)


def test_squared_error_and_binary_cross_entropy():
    o = C.input_variable(2)
    t = C.input_variable(2)
    np.testing.assert_allclose(C.squared_error(o, t).eval({o: [[1, 2]], t: [[0, 0]]}).ravel(), [5])


def test_reducing_criteria_give_a_scalar_per_sample():
    o = C.input_variable(2)
    t = C.input_variable(2)
    assert C.squared_error(o, t).shape == ()
    assert C.cosine_distance(o, t).shape == ()


def test_binary_cross_entropy_is_per_element_with_cntks_epsilons():
    # CNTK 2.7 (values from it): -(y log(p + 1e-6) + (1 - y) log(1.000001 - p)), one value per element
    p = C.input_variable(3)
    y = C.input_variable(3)
    bce = C.binary_cross_entropy(p, y)
    assert bce.shape == (3,)
    out = bce.eval({p: np.array([[0.2, 0.7, 0.9], [0.5, 0.1, 0.6]], np.float32),
                    y: np.array([[0, 1, 1], [1, 0, 0]], np.float32)})
    golden = np.array([[0.22314234, 0.3566735, 0.10535941], [0.69314516, 0.10535948, 0.91628844]], np.float32)
    np.testing.assert_allclose(out, golden, rtol=2e-7)  # 1 ulp: torch's log against glibc's logf


def test_a_trainer_sums_a_per_element_loss():
    # CNTK 2.7: the same step (loss average and updated weights from it)
    x = C.input_variable(3)
    y = C.input_variable(3)
    w = C.parameter(3, init=0.5)
    p = C.sigmoid(x * w)
    tr = C.Trainer(p, (C.binary_cross_entropy(p, y), C.classification_error(p, y, topN=2)),
                   C.sgd([w], C.learning_rate_schedule(0.1, C.UnitType.minibatch)))
    tr.train_minibatch({x: np.array([[1, 3, 2], [3, 2, 1], [1, 2, 3]], np.float32),
                        y: np.array([[0, 0, 1], [0, 0, 1], [1, 0, 0]], np.float32)})
    assert tr.previous_minibatch_loss_average == pytest.approx(3.3220752080281577, rel=1e-7)
    assert tr.previous_minibatch_evaluation_average == pytest.approx(2 / 3)
    np.testing.assert_allclose(w.value, [0.41007906, 0.32076886, 0.44875705], rtol=1e-6)


def test_lambda_rank_value_and_lambdarank_gradient():
    # one group: scores [1, 2] rank the gain-7 sample second; NDCG = (1/ln2 + 7/ln3) / (7/ln2 + 1/ln3)
    g = C.input_variable(1)
    s = C.input_variable(1, needs_gradient=True)
    n = C.input_variable(1)
    f = C.lambda_rank(s, n, g)
    grad, value = f.grad({s: np.array([[1], [2]], np.float32), n: np.array([[7], [1]], np.float32),
                          g: np.ones((2, 1), np.float32)}, [s], [f.output])
    ndcg = (1 / np.log(2) + 7 / np.log(3)) / (7 / np.log(2) + 1 / np.log(3))
    np.testing.assert_allclose(value, (1 - ndcg) * 100 * 2, rtol=1e-5)
    swap = 1 - ndcg  # |NDCG change| of swapping the two samples
    pull = swap / (1 + np.exp(1 - 2))
    np.testing.assert_allclose(np.ravel(grad), [-pull, pull], rtol=1e-4)


def test_cosine_distance_with_negative_samples_shifts_over_the_minibatch():
    x = C.input_variable(4)
    y = C.input_variable(4)
    f = C.cosine_distance_with_negative_samples(x, y, shift=1, num_negative_samples=2)
    assert f.shape == (3,)
    data = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]], np.float32)
    np.testing.assert_allclose(f.eval({x: data, y: data}), [[1, .5, 0], [1, .5, .5], [1, 0, .5]], atol=1e-6)
    with pytest.raises(NotImplementedError, match="shift"):   # CNTK 2.7: unsigned sizes only (0 computes)
        C.cosine_distance_with_negative_samples(x, y, -1, 2)


def test_nce_loss_is_a_scalar_per_sample_and_trains():
    x = C.input_variable(6)
    y = C.input_variable(20)
    W = C.parameter((20, C.InferredDimension), init=C.glorot_uniform(seed=1))
    b = C.parameter((20, 1), init=np.float32(0))
    loss = C.nce_loss(W, b, x, y, np.arange(1, 21, dtype=np.float32), num_samples=8, seed=3)
    assert W.shape == (20, 6) and loss.shape == ()
    xs = np.eye(6, dtype=np.float32)[[0, 1, 2, 3]]
    ys = np.eye(20, dtype=np.float32)[[4, 5, 6, 7]]
    before = np.mean([loss.eval({x: xs, y: ys}) for _ in range(20)])
    assert before > 0
    learner = C.sgd(loss.parameters, C.learning_parameter_schedule(0.5))
    trainer = C.Trainer(None, (loss, None), [learner])
    for _ in range(100):
        trainer.train_minibatch({x: xs, y: ys})
    assert np.mean([loss.eval({x: xs, y: ys}) for _ in range(20)]) < before / 2


def test_hierarchical_softmax_probabilities_add_up():
    x = C.input_variable(3)
    label = C.input_variable(1)
    out, class_probs, all_probs = C.hierarchical_softmax_layer(x, label, 6, label_classes=2)
    data = {x: np.random.RandomState(0).randn(4, 3).astype(np.float32),
            label: np.array([[0], [2], [4], [5]], np.float32)}
    assert class_probs.shape == (2,) and len(all_probs) == 2 and all_probs[0].shape == (3,)
    every = np.concatenate([p.eval(data) for p in all_probs], axis=-1)  # (4, 6): P(label) for every label
    np.testing.assert_allclose(every.sum(-1), 1, rtol=1e-5)
    np.testing.assert_allclose(np.ravel(out.eval(data)), every[np.arange(4), [0, 2, 4, 5]], rtol=1e-5)


def test_fmeasure_uses_soft_counts_as_cntk():
    # CNTK 2.7 (values from it): 1 - F-beta of the output's values (not thresholded); rank-3 data keeps its class
    # axis 0 and sums over axes 1 and 2
    p = C.input_variable(4)
    t = C.input_variable(4)
    out = C.fmeasure(p, t).eval({p: np.array([[0.9, 0.1, 0.8, 0.3]], np.float32),
                                 t: np.array([[1, 0, 0, 1]], np.float32)})
    np.testing.assert_allclose(out, [0.4146341], rtol=1e-6)
    p = C.input_variable((2, 2, 2))
    t = C.input_variable((2, 2, 2))
    a = np.linspace(0.1, 0.9, 8).astype(np.float32).reshape(1, 2, 2, 2)
    b = (np.arange(8) % 3 == 0).astype(np.float32).reshape(1, 2, 2, 2)
    out = C.fmeasure(p, t, beta=2).eval({p: a, t: b})
    np.testing.assert_allclose(out, [[[[0.7012578]], [[0.43181825]]]], rtol=1e-6)
