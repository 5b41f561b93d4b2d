"""ctf2bin: CTF files converted to the CNTK binary format read back as the same minibatches."""
import numpy as np
import pytest

import cntk
from cntk.io import CBFDeserializer, CTFDeserializer, MinibatchSource, StreamDef, StreamDefs
from cntk_compat.io import ctf2bin

TEXT = '''0\t|x 560:1\t|y 1 0 0 0 0
0\t|x 0:1
0\t|x 0:1.5
1\t|x 560:1\t|y 0 1 0 0 0
1\t|x 0:1 3:-2
1\t|x 0:1
1\t|x 424:1
2\t|x 7:1\t|y 0 0 1 0 0
'''
STREAMS = StreamDefs(features=StreamDef(field='x', shape=1000, is_sparse=True),
                     labels=StreamDef(field='y', shape=5))


def header(streams):
    return ['%s %s %s %d' % (name, s.stream_alias, 'sparse' if s.is_sparse else 'dense', s.dim)
            for name, s in streams.items()]


@pytest.mark.parametrize('element_type', [ctf2bin.ElementType.FLOAT, ctf2bin.ElementType.DOUBLE])
@pytest.mark.parametrize('randomize', [False, True])
def test_cbf_reads_what_the_ctf_file_holds(tmp_path, element_type, randomize):
    ctf = tmp_path / 'data.ctf'
    ctf.write_text(TEXT)
    # the randomized order depends on how the data is cut into chunks (as in CNTK): one chunk each then
    ctf2bin.process(str(ctf), str(ctf) + '.bin', header(STREAMS), element_type,
                    chunk_size=1 << 20 if randomize else 64)
    text_source = MinibatchSource(CTFDeserializer(str(ctf), STREAMS), randomize=randomize)
    binary_source = MinibatchSource(CBFDeserializer(str(ctf) + '.bin', STREAMS), randomize=randomize)
    for size in (1, 10, 3, 2):
        a, b = text_source.next_minibatch(size), binary_source.next_minibatch(size)
        for name in ('features', 'labels'):
            x, y = a[text_source[name]], b[binary_source[name]]
            assert (x.num_samples, x.num_sequences, x.shape, x.end_of_sweep, x.is_sparse) == \
                (y.num_samples, y.num_sequences, y.shape, y.end_of_sweep, y.is_sparse)
            np.testing.assert_array_equal(_dense(x), _dense(y))
            assert cntk.cntk_py.are_equal(x.data.data, y.data.data)
            mx, my = _mask(x), _mask(y)
            assert (mx is None and my is None) or np.array_equal(mx, my)


def _dense(data):
    """The minibatch as one padded array (CNTK 2.7 refuses asarray() for sparse sequences of different lengths)."""
    if not data.is_sparse:
        return data.asarray()
    seqs = data.as_sequences(cntk.sequence.input_variable(data.shape[2:], is_sparse=True))
    out = np.zeros(data.shape, np.float64)
    for k, seq in enumerate(seqs):
        out[k, :seq.shape[0]] = seq.toarray()
    return out


def _mask(data):
    """The minibatch's mask; None where it has none (whole sequences of one length, as in CNTK 2.7)."""
    try:
        return data.mask
    except AttributeError:
        return None


def test_bad_stream_header_is_rejected(tmp_path):
    ctf = tmp_path / 'data.ctf'
    ctf.write_text(TEXT)
    with pytest.raises(ValueError, match="expected a stream as '<name> <input name> dense|sparse <dim>'"):
        ctf2bin.process(str(ctf), str(ctf) + '.bin', ['features x sparse'])


def test_are_equal_compares_shape_and_values():
    assert cntk.cntk_py.are_equal(np.ones((2, 3)), np.ones((2, 3)))
    assert not cntk.cntk_py.are_equal(np.ones((2, 3)), np.ones((3, 2)))
    assert not cntk.cntk_py.are_equal(np.ones(3), np.array([1.0, 1.0, 2.0]))
