"""HTKMLFBinaryDeserializer: binary MLF files written here byte by byte, read back through MinibatchSource."""
import struct

import numpy as np
import pytest
from cntk import sequence

from cntk.io import (HTKFeatureDeserializer, HTKMLFBinaryDeserializer, LatticeDeserializer, MinibatchSource,
                     StreamDef, StreamDefs)


def binary_mlf(utterances, version=2, magic=b'MLF'):
    """Bytes of a binary MLF; ``utterances`` is a list of (key, [(class id, frames), ...])."""
    out = bytearray(magic + struct.pack('<h', version))
    for key, runs in utterances:
        if version == 1:
            out += struct.pack('<I', int(key))
        else:
            out += struct.pack('<H', len(key)) + key.encode()
        out += struct.pack('<IH', sum(n for _, n in runs), len(runs))
        for label, n in runs:
            out += struct.pack('<HH', label, n)
    return bytes(out)


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def write_htk(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('>iihh', frames.shape[0], 100000, frames.shape[1] * 4, 9))
        f.write(frames.astype('>f4').tobytes())


def label_source(mlf, dim=5, **kw):
    return MinibatchSource(HTKMLFBinaryDeserializer(StreamDefs(l=StreamDef(shape=dim, mlf=mlf))),
                           randomize=False, max_sweeps=1, **kw)


def class_ids(mb, stream):
    return [s.toarray().argmax(1).tolist() for s in mb[stream].as_sequences(sequence.input_variable(stream.shape, is_sparse=True))]


def test_labels_alone_frame_by_frame(tmp_path):
    mlf = write(tmp_path, 'a.mlfbin', binary_mlf([('utt1', [(0, 2), (3, 1), (1, 3)]), ('utt2', [(4, 2)])]))
    src = label_source(mlf)
    info = src.stream_info('l')
    assert info.shape == (5,) and info.is_sparse
    mb = src.next_minibatch(100)
    onehots = [s.toarray() for s in mb[src['l']].as_sequences(sequence.input_variable(5, is_sparse=True))]
    assert [o.shape for o in onehots] == [(6, 5), (2, 5)]
    assert (onehots[0].sum(1) == 1).all() and (onehots[1].sum(1) == 1).all()
    assert class_ids(mb, src['l']) == [[0, 0, 3, 1, 1, 1], [4, 4]]
    assert mb[src['l']].num_samples == 8


def test_version_1_numeric_keys_and_several_files(tmp_path):
    first = write(tmp_path, 'one.mlfbin', binary_mlf([('7', [(2, 1), (0, 2)])], version=1))
    second = write(tmp_path, 'two.mlfbin', binary_mlf([('12', [(1, 4)]), ('3', [(4, 1)])], version=2))
    src = label_source([first, second])
    mb = src.next_minibatch(100)
    # keys are ordered as text: '12' < '3' < '7'
    assert class_ids(mb, src['l']) == [[1, 1, 1, 1], [4], [2, 0, 0]]


def test_composed_with_htk_features_by_key(tmp_path):
    feats = {'u1': np.arange(12, dtype=np.float32).reshape(4, 3), 'u2': np.full((2, 3), 7, np.float32)}
    for key, frames in feats.items():
        write_htk(str(tmp_path / (key + '.fea')), frames)
    (tmp_path / 'f.scp').write_text('u2=%s\nu1=%s\n' % (tmp_path / 'u2.fea', tmp_path / 'u1.fea'))
    mlf = write(tmp_path, 'l.mlfbin', binary_mlf([('u1', [(1, 1), (2, 3)]), ('u2', [(0, 2)]), ('spare', [(3, 9)])]))
    src = MinibatchSource([
        HTKFeatureDeserializer(StreamDefs(f=StreamDef(shape=3, scp=str(tmp_path / 'f.scp')))),
        HTKMLFBinaryDeserializer(StreamDefs(l=StreamDef(shape=4, mlf=mlf)))], randomize=False, max_sweeps=1)
    mb = src.next_minibatch(100)
    features = mb[src['f']].as_sequences()
    assert np.array_equal(features[0], feats['u2']) and np.array_equal(features[1], feats['u1'])
    assert class_ids(mb, src['l']) == [[0, 0], [1, 2, 2, 2]]


def test_frame_mode_yields_single_frames(tmp_path):
    mlf = write(tmp_path, 'a.mlfbin', binary_mlf([('a', [(2, 2), (0, 1)]), ('b', [(1, 1)])]))
    src = label_source(mlf, dim=3, frame_mode=True)
    mb = src.next_minibatch(4)
    assert [s.shape[0] for s in mb[src['l']].as_sequences(sequence.input_variable(3, is_sparse=True))] == [1, 1, 1, 1]
    assert [i[0] for i in class_ids(mb, src['l'])] == [2, 2, 0, 1]


def test_truncated_file_names_file_and_utterance(tmp_path):
    data = binary_mlf([('good', [(1, 2)]), ('cut', [(0, 1), (2, 2)])])
    mlf = write(tmp_path, 'cut.mlfbin', data[:-3])
    with pytest.raises(IOError, match=r"cut\.mlfbin', utterance 'cut' is truncated: 8 bytes needed for 2 label "
                                      r"runs at offset 32, only 5 left"):
        label_source(mlf)
    with pytest.raises(IOError, match=r"head\.mlfbin' is truncated: 2 bytes needed for the format version at "
                                      r"offset 3, only 1 left"):
        label_source(write(tmp_path, 'head.mlfbin', b'MLF\x02'))
    key_cut = binary_mlf([('abcdef', [(0, 1)])])[:10]
    with pytest.raises(IOError, match=r"utterance '#0 at offset 5' is truncated: 6 bytes needed for the utterance key "
                                      r"at offset 7, only 3 left"):
        label_source(write(tmp_path, 'key.mlfbin', key_cut))


def test_wrong_magic_and_version(tmp_path):
    mlf = write(tmp_path, 'magic.mlfbin', binary_mlf([('a', [(0, 1)])], magic=b'HTK'))
    with pytest.raises(IOError, match=r"magic\.mlfbin' is not a binary MLF: expected the magic b'MLF', got b'HTK'"):
        label_source(mlf)
    mlf = write(tmp_path, 'version.mlfbin', binary_mlf([('a', [(0, 1)])], version=3))
    with pytest.raises(IOError, match=r"version\.mlfbin': format version must be one of \(1, 2\), got 3"):
        label_source(mlf)
    mlf = write(tmp_path, 'long.mlfbin', binary_mlf([('k' * 257, [(0, 1)])]))
    with pytest.raises(IOError, match=r"utterance key length must be at most 256 bytes, got 257 at offset 5"):
        label_source(mlf)


def test_class_id_not_below_dim(tmp_path):
    mlf = write(tmp_path, 'big.mlfbin', binary_mlf([('ok', [(4, 1)]), ('bad', [(1, 2), (5, 1)])]))
    with pytest.raises(ValueError, match=r"big\.mlfbin', utterance 'bad': class id 5 \(run 1\) must be below "
                                         r"the stream dimension 5"):
        label_source(mlf, dim=5)


def test_runs_must_cover_the_frame_count(tmp_path):
    data = bytearray(binary_mlf([('u', [(1, 2), (0, 1)])]))
    struct.pack_into('<I', data, 3 + 2 + 2 + 1, 4)   # frame count after magic, version and key
    with pytest.raises(ValueError, match=r"utterance 'u': the utterance has 4 frames but its 2 label runs cover 3"):
        label_source(write(tmp_path, 'count.mlfbin', bytes(data)))


def test_configuration_errors(tmp_path):
    with pytest.raises(ValueError, match='No master label files specified for HTKMLFBinaryDeserializer'):
        HTKMLFBinaryDeserializer(StreamDefs(l=StreamDef(shape=3)))
    with pytest.raises(ValueError, match='only accepts a single stream, got 2'):
        HTKMLFBinaryDeserializer(StreamDefs(a=StreamDef(shape=3, mlf='x'), b=StreamDef(shape=3, mlf='y')))
    with pytest.raises(IOError, match="binary MLF file '.*missing.mlfbin' cannot be read"):
        HTKMLFBinaryDeserializer(StreamDefs(l=StreamDef(shape=3, mlf=str(tmp_path / 'missing.mlfbin'))))


def test_lattice_deserializer_says_why_it_is_unsupported():
    with pytest.raises(NotImplementedError, match='lattice_sequence_with_softmax, is not implemented'):
        LatticeDeserializer('lattices.idx', StreamDefs(lat=StreamDef(shape=1)))
