import numpy as np
import pytest

import cntk as C


def test_classification_error_top1_and_topn():
    z = C.input_variable(4)
    y = C.input_variable(4)
    zs = np.array([[1, 4, 3, 2], [1, 4, 3, 2]], np.float32)
    ys = np.array([[0, 1, 0, 0], [0, 0, 1, 0]], np.float32)
    assert C.classification_error(z, y).shape == (1,)
    np.testing.assert_allclose(C.classification_error(z, y).eval({z: zs, y: ys}).ravel(), [0, 1])
    np.testing.assert_allclose(C.classification_error(z, y, topN=2).eval({z: zs, y: ys}).ravel(), [0])


def test_classification_error_top_n_counts_the_minibatchs_misses():
    # CNTK 2.7: with topN > 1 the error is the number of misses in the minibatch, a scalar without dynamic axes;
    # the Trainer divides it by the sample count
    z = C.input_variable(4)
    y = C.input_variable(4)
    err = C.classification_error(z, y, topN=2)
    assert err.shape == () and err.dynamic_axes == ()
    zs = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [1, 4, 2, 3]], np.float32)
    ys = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]], np.float32)
    assert float(err.eval({z: zs, y: ys})) == 2.0
    zq = C.sequence.input_variable(4)
    yq = C.sequence.input_variable(4)
    out = C.classification_error(zq, yq, topN=3).eval({zq: [zs[:2]], yq: [ys[:2]]})
    assert float(out) == 1.0
    x = C.input_variable(4)
    model = C.layers.Dense(4, init=C.glorot_uniform(seed=1))(x)
    trainer = C.Trainer(model, (C.cross_entropy_with_softmax(model, y), C.classification_error(model, y, topN=2)),
                        C.sgd(model.parameters, C.learning_parameter_schedule(0.1)))
    trainer.train_minibatch({x: zs, y: ys})
    misses = float(C.classification_error(model, y, topN=2).eval({x: zs, y: ys}))
    assert trainer.test_minibatch({x: zs, y: ys}) == pytest.approx(misses / 3)


def test_classification_error_gradient_and_named_axis():
    z = C.input_variable(4)
    y = C.input_variable(4, needs_gradient=True)
    g = C.classification_error(z, y).grad({z: [[1, 4, 3, 2]], y: [[0, 1, 0, 0]]}, [y])
    np.testing.assert_allclose(g, [[0, -1, 0, 0]])  # CNTK: d/d target = -hardmax(output)
    z2 = C.input_variable((2, 4))
    y2 = C.input_variable((2, 4))
    rate = C.classification_error(z2, y2, axis=1)
    assert rate.shape == ()
    out = rate.eval({z2: [[[1, 4, 3, 2], [9, 1, 1, 1]]], y2: [[[0, 1, 0, 0], [0, 1, 0, 0]]]})
    np.testing.assert_allclose(out, [0.5])


def test_ndcg_at_1_over_groups():
    s, n, g = (C.input_variable(1) for _ in range(3))
    col = lambda v: np.array(v, np.float32).reshape(-1, 1)  # noqa: E731
    value = C.ndcg_at_1(s, n, g).eval({s: col([2, 1, 1, 3]), n: col([7, 1, 3, 1]), g: col([1, 1, 2, 2])})
    # group 1 ranks its best sample first (1), group 2 ranks gain 1 of best 3 first (1/3)
    np.testing.assert_allclose(value, (1 + 1 / 3) / 2 * 100 * 4, rtol=1e-5)


@pytest.mark.parametrize("sub, dele, ins, squash, ignore, expected", [
    (0, 0, 0, False, [], 1.0), (1, 0, 0, False, [], 2.0), (0, 1, 1, False, [], 1.0), (0, 1, 1, True, [1], 1.0)])
def test_edit_distance_error_counts_operations(sub, dele, ins, squash, ignore, expected):
    a = C.input_variable(2)
    b = C.input_variable(2)
    f = C.edit_distance_error(a, b, sub, dele, ins, squash, ignore)
    np.testing.assert_allclose(f.eval({a: np.array([[1, 3], [2, 0]], np.float32),
                                       b: np.array([[2, 0], [2, 0]], np.float32)}), expected)


def test_edit_distance_error_on_sequences_squashes_and_ignores():
    a = C.sequence.input_variable(3)
    b = C.sequence.input_variable(3)  # CNTK compares the two frame by frame: same sequences, same lengths
    eye = np.eye(3, dtype=np.float32)
    s1, s2 = eye[[1, 0, 1, 2, 0, 0, 0, 0]], eye[[0, 1, 1, 0, 0, 1, 2, 2]]  # "1-12----" and "-11--122", '-' = 0
    f = C.edit_distance_error(a, b, 1, 1, 1, True, [0])
    np.testing.assert_allclose(f.eval({a: [s1], b: [s2]}), 0)  # both become "112"
    # one substitution in 3 labels of b, times 3 frames
    np.testing.assert_allclose(C.edit_distance_error(a, b).eval({a: [eye[[1, 2, 2]]], b: [eye[[1, 1, 2]]]}), 1)
