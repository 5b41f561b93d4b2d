"""asarray() of sparse sequences of different lengths (a Value with a mask) is CNTK 2.7's ValueError; without a mask
it is the padded array (outcomes and shapes read by CNTK 2.7 itself)."""
import numpy as np
import pytest
import scipy.sparse as sp

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


@pytest.mark.parametrize('data, shape', [([[0, 2, 3], [1]], None), ([[0, 2], [1, 3]], (2, 2, 4)), ([[1]], (1, 1, 4))])
def test_one_hot(data, shape):
    v = C.Value.one_hot(data, 4)
    if shape is None:
        with pytest.raises(ValueError, match="sparse Value of sequences of different lengths"):
            v.asarray()
    else:
        assert v.asarray().shape == shape


def test_value_create_from_csr():
    xs = C.sequence.input_variable(4, is_sparse=True)
    eye = np.eye(4, dtype=np.float32)
    v = C.Value.create(xs, [sp.csr_matrix(eye[[0, 2]]), sp.csr_matrix(eye[[3]])])
    with pytest.raises(ValueError, match="use as_sequences"):
        v.asarray()


@pytest.mark.parametrize('text, shape', [("0 |x 0:1 3:2\n0 |x 2:5\n1 |x 4:1\n1 |x 1:1\n", (2, 2, 5)),
                                         ("0 |x 0:1\n1 |x 1:1\n1 |x 2:1\n", None)])
def test_reader_data(tmp_path, text, shape):
    path = tmp_path / 'd.ctf'
    path.write_text(text)
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(x=StreamDef('x', 5, True))), randomize=False,
                          max_sweeps=1)
    d = src.next_minibatch(100)[src.streams.x]
    for read in (d.asarray, d.data.asarray):
        if shape is None:
            with pytest.raises(ValueError, match="sparse (minibatch|Value) of sequences of different lengths"):
                read()
        else:
            assert read().shape == shape
    assert [s.shape for s in d.as_sequences(C.sequence.input_variable(5, is_sparse=True))] == \
        ([(2, 5), (2, 5)] if shape else [(1, 5), (2, 5)])
