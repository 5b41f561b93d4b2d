"""MinibatchSourceFromData as CNTK 2.7 behaves (minibatch contents and errors read by CNTK 2.7 itself)."""
import numpy as np
import pytest

import cntk as C
from cntk.io import MinibatchSourceFromData
from cntk.layers.typing import Sequence, Tensor

SEQS = [np.arange(2 * n, dtype=np.float32).reshape(n, 2) + n for n in [1, 3, 2, 4, 1]]


def read(src, size, count):
    out = []
    for _ in range(count):
        mb = src.next_minibatch(size)
        if not mb:
            break
        d = mb[src.streams.x]
        out.append((d.num_sequences, d.num_samples, d.end_of_sweep, d.shape))
    return out


def test_sequences_are_cut_as_in_cntk():
    src = MinibatchSourceFromData(dict(x=(SEQS, Sequence[Tensor[2]])))
    assert read(src, 4, 5) == [(2, 4, False, (2, 3, 2)), (1, 2, False, (1, 2, 2)), (1, 4, False, (1, 4, 2)),
                               (1, 1, True, (1, 1, 2)), (2, 4, False, (2, 3, 2))]


@pytest.mark.parametrize('size, max_samples, delivered', [(4, 9, 2), (2, C.io.INFINITELY_REPEAT, 1)])
def test_a_sequence_that_does_not_fit_is_a_value_error(size, max_samples, delivered):
    # CNTK 2.7 takes no sequence then (not even one longer than the minibatch size): a Value of no sequences
    src = MinibatchSourceFromData(dict(x=(SEQS, Sequence[Tensor[2]])), max_samples=max_samples)
    assert len(read(src, size, delivered)) == delivered
    with pytest.raises(ValueError, match="a minibatch must hold at least one sequence"):
        src.next_minibatch(size)


@pytest.mark.parametrize('data', [dict(x=SEQS), dict(x=(SEQS, Tensor[2]))])
def test_a_list_needs_a_sequence_type(data):
    with pytest.raises(AttributeError, match="stream 'x' is a list, which needs a sequence type"):
        MinibatchSourceFromData(data)


def test_value_create_of_no_sequences():
    with pytest.raises(ValueError, match=r"^Value::Create:: The number of sequences must be > 0"):
        C.Value.create(C.sequence.input_variable(3), [])


def test_a_slice_that_is_not_c_contiguous_is_warned_about():
    # CNTK 2.7 makes a Value of each minibatch's slice of the array: a pandas frame's .values (column-major) gets
    # its 'data is not C contiguous' RuntimeWarning, a row-major array none; with several workers it slices a copy
    import warnings
    x = np.asfortranarray(np.arange(40, dtype=np.float32).reshape(10, 4))
    for data, workers, expected in ((x, 1, 1), (np.ascontiguousarray(x), 1, 0), (x, 2, 0)):
        source = MinibatchSourceFromData(dict(x=data))
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            source.next_minibatch(4, number_of_workers=workers, worker_rank=0)
        assert len([w for w in got if "not C contiguous" in str(w.message)]) == expected
