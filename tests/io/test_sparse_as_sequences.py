"""CNTK 2.7 turns a sparse stream's data into sequences only for a variable (MinibatchData.as_sequences goes
through Value.as_sequences, which needs the variable's shape): without one it is a ValueError. With one, a
CSR matrix per sequence (values read with CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C


def test_sparse_sequences_need_the_variable(tmp_path):
    (tmp_path / 'd.ctf').write_text('0 |w 1:1 3:2.5 |l 1 0 0\n0 |w 2:1\n1 |w 4:1 |l 0 1 0\n')
    source = C.io.MinibatchSource(C.io.CTFDeserializer(str(tmp_path / 'd.ctf'), C.io.StreamDefs(
        w=C.io.StreamDef(field='w', shape=5, is_sparse=True), l=C.io.StreamDef(field='l', shape=3))),
        randomize=False)
    mb = source.next_minibatch(3)
    w = mb[source.streams.w]
    with pytest.raises(ValueError, match='^cannot convert sparse value to sequences without the corresponding '
                                         'variable$'):
        w.as_sequences()
    seqs = w.as_sequences(C.sequence.input_variable(5, is_sparse=True))
    assert [np.asarray(s.todense()).tolist() for s in seqs] == [[[0, 1, 0, 2.5, 0], [0, 0, 1, 0, 0]],
                                                                [[0, 0, 0, 0, 1]]]
    # dense streams need none
    assert [s.tolist() for s in mb[source.streams.l].as_sequences()] == [[[1, 0, 0]], [[0, 1, 0]]]
