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
