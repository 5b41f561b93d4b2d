"""cross_entropy_with_softmax and classification_error of matrix samples, as CNTK 2.7 builds them: with the default
axis on TransposeTimes (a matrix of row-against-row terms), with an axis named through maxima indicators."""
import numpy as np
import pytest

import cntk as C

Z = np.arange(12, dtype=np.float32).reshape(1, 3, 4) % 5 - 2
Y = np.zeros((1, 3, 4), np.float32)
Y[0, 0, 1] = Y[0, 1, 3] = Y[0, 2, 0] = 1


def _operands():
    return C.input_variable((3, 4), needs_gradient=True), C.input_variable((3, 4))


def test_cross_entropy_of_matrix_samples_is_cntks_transpose_times_form():
    z, y = _operands()
    f = C.cross_entropy_with_softmax(z, y)
    assert f.output.shape == (3, 3) and f.root_function.op_name == "CrossEntropyWithSoftmax"
    # entry (a, b): log_sum_exp(z row a) - z row a . y row b; values from CNTK 2.7
    np.testing.assert_allclose(f.eval({z: Z, y: Y}), [[
        [2.440189838409424, 0.4401897192001343, 3.440189838409424],
        [4.185182571411133, 2.185182571411133, 0.1851825714111328],
        [0.3618490695953369, 3.361849069595337, 1.361849069595337]]], rtol=1e-6)
    np.testing.assert_allclose(f.grad({z: Z, y: Y}, wrt=[z]), [[
        [-0.9038242101669312, -0.7385671138763428, 0.7106484174728394, 0.9317426681518555],
        [1.4928576946258545, -0.9543417096138, 0.1241120845079422, -0.6626284122467041],
        [-0.23144006729125977, 1.0891623497009277, 0.038264352828264236, -0.8959867358207703]]], rtol=1e-5)
    with pytest.raises(ValueError, match="rank 1 or 2"):
        C.cross_entropy_with_softmax(C.input_variable((2, 3, 4)), C.input_variable((2, 3, 4)))


def test_a_named_last_axis_keeps_the_per_row_cross_entropy():
    z, y = _operands()
    f = C.cross_entropy_with_softmax(z, y, axis=1)
    assert f.output.shape == (3, 1)
    np.testing.assert_allclose(f.eval({z: Z, y: Y}).reshape(-1), [2.440189838409424, 2.185182571411133,
                                                                   1.361849069595337], rtol=1e-6)


def test_classification_error_of_matrix_samples_uses_the_hardmax_of_the_whole_sample():
    z, y = _operands()
    f = C.classification_error(z, y)
    assert f.output.shape == (3, 3)
    np.testing.assert_array_equal(f.eval({z: Z, y: Y}), [[[1, 1, 1], [1, 1, 0], [1, 1, 1]]])


def test_classification_error_along_an_axis_counts_every_maximum_and_every_wrong_target():
    z, y = C.input_variable((2, 2)), C.input_variable((2, 2))
    f = C.classification_error(z, y, axis=0)
    assert len(f.root_function.inputs) == 3  # CNTK's block captures the constant 1 it compares with
    eye = np.eye(2, dtype=np.float32)[None]
    # CNTK 2.7: zero targets err, equal maxima both count, half targets err
    assert [f.eval({z: a, y: b}).item() for a, b in [
        (eye, np.zeros((1, 2, 2), np.float32)), (eye, eye), (np.ones((1, 2, 2), np.float32),
                                                             np.array([[[0, 0], [1, 1]]], np.float32)),
        (eye, np.full((1, 2, 2), 0.5, np.float32))]] == [1.0, 0.0, 1.0, 1.0]
    zz, yy = _operands()
    assert C.classification_error(zz, yy, axis=0).eval({zz: Z, yy: Y}).item() == 1.0
