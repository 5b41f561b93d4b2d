"""SciPy CSR matrices fed to sparse inputs take CNTK 2.7's layout: a CSR matrix is a Value of its own two axes.
For an input of one axis its rows are the samples (or the steps of one sequence); for an input of two axes the
matrix is one sample (or, in a list, one step of a sequence), so CNTK's deepWide recommender example can feed a
(batch_size, feature_cnt) CSR matrix to `input_variable((batch_size, feature_cnt), is_sparse=True)`. Rows of a
flattened sample are refused, with CNTK's texts. The values and messages are what CNTK 2.7 printed for the same
feeds (times by the column 1..5)."""
import numpy as np
import pytest
from scipy import sparse

import cntk as C


def _csr(rows, cols, k=0):
    return sparse.csr_matrix(((np.arange(rows * cols, dtype=np.float32) + k) % 3).reshape(rows, cols))


def _times(x):
    return C.times(x, C.constant(np.arange(1, 6, dtype=np.float32).reshape(5, 1)))


def _eval(shape, is_sequence, data):
    x = (C.sequence.input_variable if is_sequence else C.input_variable)(shape, is_sparse=True, name='x')
    r = _times(x).eval({x: data})
    return [np.asarray(s).ravel().tolist() for s in r] if isinstance(r, list) else (r.shape, r.ravel().tolist())


def test_a_matrix_of_the_inputs_two_axes_is_one_sample():
    assert _eval((3, 5), False, _csr(3, 5)) == ((1, 3, 1), [13.0, 13.0, 19.0])
    assert _eval((1, 5), False, _csr(1, 5)) == ((1, 1, 1), [13.0])
    assert _eval((3, 5), False, [_csr(3, 5), _csr(3, 5, 1)]) == ((2, 3, 1), [13.0, 13.0, 19.0, 19.0, 13.0, 13.0])


def test_rows_are_samples_or_steps_for_an_input_of_one_axis():
    assert _eval((5,), False, _csr(4, 5)) == ((4, 1), [13.0, 13.0, 19.0, 13.0])
    assert _eval((5,), False, [_csr(1, 5), _csr(1, 5, 1)]) == ((2, 1), [13.0, 19.0])
    assert _eval((5,), True, _csr(4, 5)) == [[13.0, 13.0, 19.0, 13.0]]
    assert _eval((5,), True, [_csr(4, 5), _csr(2, 5, 1)]) == [[13.0, 13.0, 19.0, 13.0], [19.0, 13.0]]


def test_a_sequence_of_samples_of_two_axes_takes_one_step_per_matrix():
    assert _eval((3, 5), True, _csr(3, 5)) == [[13.0, 13.0, 19.0]]
    assert _eval((3, 5), True, [_csr(3, 5), _csr(3, 5, 1)]) == [[13.0, 13.0, 19.0], [19.0, 13.0, 13.0]]
    assert _eval((1, 5), True, [_csr(1, 5)]) == [[13.0]]


@pytest.mark.parametrize("shape, is_sequence, data, message", [
    ((3, 5), False, _csr(6, 5), "The trailing dimensions of the Value shape '[6 x 5]' do not match the Variable "
                                "'Input('x', [#], [3 x 5])' shape '[3 x 5]'."),
    ((3, 5), False, _csr(2, 15), "The trailing dimensions of the Value shape '[2 x 15]' do not match the Variable "
                                 "'Input('x', [#], [3 x 5])' shape '[3 x 5]'."),
    ((1, 5), False, _csr(3, 5), "The trailing dimensions of the Value shape '[3 x 5]' do not match the Variable "
                                "'Input('x', [#], [1 x 5])' shape '[1 x 5]'."),
    ((2, 3, 5), False, _csr(6, 5), "Value's rank (2) should be >= the Variable's rank (3); Variable = "
                                   "'Input('x', [#], [2 x 3 x 5])', Value shape = '[6 x 5]'."),
    ((3, 5), False, [_csr(1, 15)], "Value::Create: The shape '[1 x 15]' of sequence #0 is not compatible with the "
                                   "sample shape '[3 x 5]'."),
    ((3, 5), True, [_csr(6, 5)], "Value::Create: The shape '[6 x 5]' of sequence #0 is not compatible with the "
                                 "sample shape '[3 x 5]'."),
    ((1, 5), True, [_csr(2, 5)], "Value::Create: The shape '[2 x 5]' of sequence #0 is not compatible with the "
                                 "sample shape '[1 x 5]'."),
    ((1, 5), True, _csr(2, 5), "The trailing dimensions of the Value shape '[2 x 5]' do not match the Variable "
                               "'Input('x', [#, *], [1 x 5])' shape '[1 x 5]'."),
])
def test_other_matrices_are_refused_with_cntks_messages(shape, is_sequence, data, message, capfd):
    with pytest.raises(ValueError) as info:
        _eval(shape, is_sequence, data)
    assert str(info.value).split("\n\n[CALL STACK]")[0] == message
    assert "About to throw exception '%s'" % message in capfd.readouterr().err


def test_a_fixed_batch_of_sparse_rows_through_unpack_batch():
    """deepWide's wide-and-deep pattern: the minibatch is a static axis of a sparse input, unpacked and reshaped
    into rows of features before an embedding."""
    x = C.input_variable((3, 5), is_sparse=True)
    emb = C.constant(np.arange(10, dtype=np.float32).reshape(5, 2))
    f = C.times(C.reshape(C.unpack_batch(x), (-1, 5)), emb)
    assert f.shape == (-3, 2)
    assert f.eval({x: _csr(3, 5)}).tolist() == [[18.0, 22.0], [16.0, 21.0], [26.0, 32.0]]
