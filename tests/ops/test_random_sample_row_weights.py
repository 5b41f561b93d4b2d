"""random_sample / random_sample_inclusion_frequency with sampling weights of shape (1, N), the form CNTK's
WordLMWithSampledSoftmax example builds (reshape of a Constant to (1, vocab)). Golden values measured with
CNTK 2.7 (CPU): the classes are counted along the last axis and drawn from the first row."""
import numpy as np
import pytest

import cntk as C


def _classes(s):
    return np.argmax(s.eval().toarray(), axis=1).tolist()


def test_row_weights_sample_like_a_vector():
    w = C.Constant(np.arange(1, 7, dtype=np.float32).reshape(1, 6))
    s = C.random_sample(w, 4, False, seed=3)
    assert s.shape == (4, 6)
    # CNTK 2.7: [4, 2, 3, 5] then [3, 4, 2, 1]; the same first draw as from the (6,) vector
    assert _classes(s) == [4, 2, 3, 5]
    assert _classes(s) == [3, 4, 2, 1]
    assert _classes(C.random_sample(C.Constant(np.arange(1, 7, dtype=np.float32)), 4, False, seed=3)) == [4, 2, 3, 5]


def test_row_weights_inclusion_frequency_keeps_the_row_shape():
    w = C.Constant(np.arange(1, 7, dtype=np.float32).reshape(1, 6))
    f = C.random_sample_inclusion_frequency(w, 2, False, seed=1)
    assert f.shape == (1, 6)
    np.testing.assert_allclose(f.eval(), [[0.09738515, 0.1895578, 0.27654463, 0.3583736, 0.43507415, 0.50667727]],
                               rtol=1e-6)
    f = C.random_sample_inclusion_frequency(w, 3, True, seed=1)
    np.testing.assert_allclose(f.eval(), [[1 / 7., 2 / 7., 3 / 7., 4 / 7., 5 / 7., 6 / 7.]], rtol=1e-6)


def test_matrix_weights_sample_from_the_first_row():
    # CNTK 2.7: classes along the last axis, weights from the first row only
    s = C.random_sample(C.Constant(np.array([[0, 0, 1], [1, 0, 0]], np.float32)), 4, True, seed=1)
    assert s.shape == (4, 3) and _classes(s) == [2, 2, 2, 2]
    s = C.random_sample(C.Constant(np.array([[1, 0], [0, 1], [0, 1]], np.float32)), 4, True, seed=1)
    assert s.shape == (4, 2) and _classes(s) == [0, 0, 0, 0]


def test_without_duplicates_needs_fewer_samples_than_classes():
    w = C.Constant(np.arange(1, 7, dtype=np.float32))
    for n in (6, 7):
        with pytest.raises(ValueError, match=r"number of requested samples \(%d\) must be less than the number of "
                                             r"classes \(6\)" % n):
            C.random_sample(w, n, False, seed=1)
        with pytest.raises(ValueError, match="must be less than the number of classes"):
            C.random_sample_inclusion_frequency(w, n, False, seed=1)
    assert C.random_sample(w, 5, False, seed=1).shape == (5, 6)


def test_inclusion_frequency_of_higher_rank_weights_fails_when_evaluated():
    # CNTK 2.7 builds the node (shape (1, 1, 6)) and fails in eval
    f = C.random_sample_inclusion_frequency(C.Constant(np.ones((1, 1, 6), np.float32)), 2, True, seed=1)
    assert f.shape == (1, 1, 6)
    with pytest.raises(RuntimeError):
        f.eval()
