"""Value.one_hot checks its input as CNTK 2.7 does (probed with CNTK 2.7's Python package): it looks at the first
sequence's first index only, so an empty batch is an IndexError and an empty first sequence a ValueError, while
an empty later sequence is fine."""
import numpy as np
import pytest

import cntk as C


def _error(batch):
    with pytest.raises(Exception) as info:
        C.Value.one_hot(batch, 5)
    return type(info.value).__name__, str(info.value)


def test_empty_batch_is_an_index_error():
    assert _error([]) == ("IndexError", "list index out of range")


@pytest.mark.parametrize("batch", [[[]], [np.array([], dtype=np.int64)], [[], [1]]])
def test_empty_first_sequence_is_refused(batch):
    assert _error(batch) == ("ValueError", "input must be a list of list of integers")


@pytest.mark.parametrize("batch", [[[1.0]], [1.5]])
def test_float_first_index_is_refused(batch):
    assert _error(batch) == ("ValueError", 'supplied data to one_hot() must be of type integer and not '
                                           '"<class \'float\'>" since it is index data.')


def test_a_tuple_is_not_a_batch():
    assert _error((1, 2)) == ("ValueError", "input must be a list")


def test_empty_later_sequence_is_accepted():
    assert C.Value.one_hot([[1, 2], []], 5).shape == (2, 2, 5)


@pytest.mark.parametrize("make", [
    lambda x, xd: {x: C.Value.one_hot([[1, 2], []], 5)},
    lambda x, xd: {xd: [np.ones((2, 5), np.float32), np.zeros((0, 5), np.float32)]},
    lambda x, xd: {xd: [np.zeros((0, 5), np.float32), np.ones((2, 5), np.float32)]},
    lambda x, xd: {xd: C.Value.create(xd, [np.ones((2, 5), np.float32), np.zeros((0, 5), np.float32)])},
])
def test_a_sequence_without_steps_is_refused_when_evaluated(make, capsys):
    # CNTK 2.7 accepts the data but refuses to evaluate it, whichever sequence is empty (its message, announced)
    x, xd = C.sequence.input_variable(5, is_sparse=True), C.sequence.input_variable(5)
    f = C.sequence.reduce_sum(C.times(x, np.arange(5, dtype=np.float32).reshape(5, 1)))
    g = C.sequence.reduce_sum(xd)
    data = make(x, xd)
    with pytest.raises(RuntimeError, match=r"^The first entry of a Value mask must be Valid or SequenceBegin$"):
        (f if x in data else g).eval(data)
    assert "About to throw exception 'The first entry of a Value mask must be Valid or SequenceBegin'" \
        in capsys.readouterr().err
