import os
import struct

import numpy as np
import pytest
from cntk import sequence
import scipy.sparse as sp
from PIL import Image

import cntk.io.transforms as xforms
from cntk.io import (CBFDeserializer, CTFDeserializer, HTKFeatureDeserializer, HTKMLFDeserializer,
                     ImageDeserializer, MinibatchData, MinibatchSource, MinibatchSourceFromData,
                     StreamDef, StreamDefs, StreamInformation, UserDeserializer, UserMinibatchSource)
from tests.io.test_randomization_order import read


def ctf_file(tmp_path, n=200):
    p = tmp_path / 'seq.ctf'
    lines = []
    for i in range(n):
        for t in range(1 + i % 3):
            lines.append('%d |v %d %d' % (i, i, t))
    p.write_text('\n'.join(lines) + '\n')
    return str(p)


def source(path, chunk_bytes=300, **kw):
    d = CTFDeserializer(path, StreamDefs(v=StreamDef(field='v', shape=2)))
    d['chunkSizeInBytes'] = chunk_bytes
    return MinibatchSource(d, **kw)


def read_ids(src, mb_size=7, **kw):
    ids = []
    while True:
        mb = src.next_minibatch(mb_size, **kw)
        if not mb:
            return ids
        seqs = mb[src['v']].as_sequences()
        ids += [int(s[0, 0]) for s in seqs]
        assert all(len(s) == 1 + int(s[0, 0]) % 3 and np.array_equal(s[:, 1], np.arange(len(s))) for s in seqs)


@pytest.mark.parametrize('randomize', [False, True])
def test_partitions_are_disjoint_and_cover_the_sweep(tmp_path, randomize):
    path = ctf_file(tmp_path)
    parts = [read_ids(source(path, max_sweeps=1, randomize=randomize, randomization_window_in_chunks=2),
                      num_data_partitions=3, partition_index=i) for i in range(3)]
    assert all(parts)
    assert sorted(sum(parts, [])) == list(range(200))
    if not randomize:
        assert read_ids(source(path, max_sweeps=1, randomize=False)) == list(range(200))


def _lines_read(path, chunk_bytes, parts, part, mb_size, randomize=True):
    config = dict(path=os.path.basename(path), mb=mb_size, parts=parts, part=part, max_sweeps=1, randomize=randomize)
    if chunk_bytes:
        config['chunk'] = chunk_bytes
    return read(os.path.dirname(path), config)


def test_randomized_partitions_take_whole_chunks_even_when_there_are_fewer_chunks_than_workers(tmp_path):
    # CNTK 2.7 (golden orders read by it): randomized reading deals out chunks, so a worker left without one
    # reads nothing; reading in order deals out the sequences of a single chunk instead
    path = tmp_path / 'lines.ctf'
    path.write_text(''.join('|x %d\n' % i for i in range(40)))
    path = str(path)
    assert _lines_read(path, None, 2, 0, 8) == [
        [0, 29, 16, 38], [19, 18, 23, 28], [4, 15, 26, 32], [11, 30, 14, 6], [10, 8, 3, 21], [2, 17, 34, 12],
        [13, 24, 37, 33], [25, 27, 22, 39], [7, 36, 20, 31], [35, 1, 9, 5]]
    assert _lines_read(path, None, 2, 1, 8) == []
    assert _lines_read(path, None, 2, 1, 8, randomize=False) == [
        [1, 3, 5, 7], [9, 11, 13, 15], [17, 19, 21, 23], [25, 27, 29, 31], [33, 35, 37, 39]]
    # two chunks of 150 bytes, three workers: the third reads nothing
    three = [sum(_lines_read(path, 150, 3, k, 8), []) for k in range(3)]
    assert three == [[0, 16, 19, 18, 23, 4, 15, 11, 14, 6, 10, 8, 3, 21, 2, 17, 12, 13, 24, 25, 22, 7, 20, 1, 9, 5],
                     [29, 38, 28, 26, 32, 30, 34, 37, 33, 27, 39, 36, 31, 35], []]


def test_a_worker_without_a_chunk_gets_empty_minibatches_from_an_endless_source(tmp_path):
    # CNTK 2.7: [0, 0, 0] (it does not search the endless sweeps for data that never comes)
    path = tmp_path / 'lines.ctf'
    path.write_text(''.join('|x %d\n' % i for i in range(40)))
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(x=StreamDef(field='x', shape=1))))
    assert [len(src.next_minibatch(8, num_data_partitions=2, partition_index=1)) for _ in range(3)] == [0, 0, 0]


def test_max_samples_counts_the_samples_of_all_partitions(tmp_path):
    """As CNTK: the workers together stop at max_samples; the sequence that crosses it is still read."""
    path = ctf_file(tmp_path, n=12)       # sequence i has 1 + i % 3 samples: 24 per sweep
    sizes = [1 + i % 3 for i in range(12)] * 3
    crossing = int(np.searchsorted(np.cumsum(sizes), 30, side='left'))    # 30 samples: into the second sweep
    parts = [read_ids(source(path, chunk_bytes=10 ** 6, max_samples=30, randomize=False), mb_size=4,
                      num_data_partitions=2, partition_index=i) for i in range(2)]
    expected = [i % 12 for i in range(crossing + 1)]
    assert parts == [expected[0::2], expected[1::2]]
    assert sum(sizes[:crossing + 1]) >= 30 > sum(sizes[:crossing])


def test_randomization_is_reproducible_and_windowed(tmp_path):
    path = ctf_file(tmp_path)
    a = read_ids(source(path, max_sweeps=2, randomization_window_in_chunks=2))
    b = read_ids(source(path, max_sweeps=2, randomization_window_in_chunks=2))
    assert a == b and sorted(a[:200]) == list(range(200)) and a[:200] != a[200:] != list(range(200))
    src = source(path, max_sweeps=1, randomization_window_in_chunks=2)
    assert src._planner.num_chunks > 10
    src.next_minibatch(5)
    block = src._current[1]
    assert block.num_chunks == 1 and len(block) < 40      # one randomized chunk position per block
    assert len(src._planner._chunks) <= 2                 # only a window of chunks is in memory


def test_checkpoint_gives_identical_continuation(tmp_path):
    path = ctf_file(tmp_path)
    src = source(path, randomization_window_in_chunks=3)
    for _ in range(13):
        src.next_minibatch(9)
    state = src.get_checkpoint_state()
    assert all(isinstance(v, int) for v in state.values())
    expected = [src.next_minibatch(9)[src['v']].asarray() for _ in range(40)]
    fresh = source(path, randomization_window_in_chunks=3)
    fresh.current_position = state
    got = [fresh.next_minibatch(9)[fresh['v']].asarray() for _ in range(40)]
    assert all(np.array_equal(x, y) for x, y in zip(expected, got))


def test_images_with_transforms(tmp_path):
    rng = np.random.RandomState(0)
    lines, originals = [], []
    for i in range(6):
        arr = rng.randint(0, 256, (20, 30, 3)).astype(np.uint8)
        Image.fromarray(arr).save(str(tmp_path / ('%d.png' % i)))
        originals.append(arr)
        lines.append('.../%d.png\t%d' % (i, i % 4))
    (tmp_path / 'map.txt').write_text('\n'.join(lines) + '\n')
    d = ImageDeserializer(str(tmp_path / 'map.txt'), StreamDefs(
        image=StreamDef(field='image', transforms=[xforms.scale(width=30, height=20, channels=3)]),
        label=StreamDef(field='label', shape=4)))
    src = MinibatchSource(d, randomize=False, max_sweeps=1)
    mb = src.next_minibatch(6)
    images = mb[src['image']].asarray()
    assert images.shape == (6, 1, 3, 20, 30) and images.dtype == np.float32
    assert np.array_equal(images[2, 0], originals[2][:, :, ::-1].transpose(2, 0, 1))   # BGR, CHW, 0..255
    assert mb[src['label']].is_sparse
    assert np.array_equal(mb[src['label']].asarray()[:, 0].argmax(1), [0, 1, 2, 3, 0, 1])
    crop = [xforms.crop(crop_type='randomside', side_ratio=(0.5, 0.8), jitter_type='uniratio'),
            xforms.scale(width=8, height=8, channels=3), xforms.color(0.2, 0.2, 0.2)]
    two = [ImageDeserializer(str(tmp_path / 'map.txt'), StreamDefs(**{n: StreamDef(field='image', transforms=crop)}))
           for n in ('a', 'b')]
    src = MinibatchSource(two)
    for _ in range(3):
        mb = src.next_minibatch(4)
        assert np.array_equal(mb[src['a']].asarray(), mb[src['b']].asarray())


def write_mean_xml(path, mean_chw):
    c, h, w = mean_chw.shape
    path.write_text('<?xml version="1.0" ?>\n<opencv_storage>\n  <Channel>%d</Channel>\n  <Row>%d</Row>\n'
                    '  <Col>%d</Col>\n  <MeanImg type_id="opencv-matrix">\n    <rows>1</rows>\n    <cols>%d</cols>\n'
                    '    <dt>f</dt>\n    <data>%s</data>\n  </MeanImg>\n</opencv_storage>\n'
                    % (c, h, w, c * h * w, ' '.join('%e' % v for v in mean_chw.reshape(-1))))


def test_mean_of_another_size_is_ignored_with_cntk_warning(tmp_path, capfd):
    # CNTK 2.7 (checked): a mean image whose size differs from the image's leaves the image unchanged and
    # prints a two-line warning on stderr for every image it sees; a mean of the same size is subtracted
    rng = np.random.RandomState(1)
    lines, originals = [], []
    for i in range(4):
        arr = rng.randint(0, 256, (10, 12, 3)).astype(np.uint8)
        Image.fromarray(arr).save(str(tmp_path / ('%d.png' % i)))
        originals.append(arr[:, :, ::-1].transpose(2, 0, 1).astype(np.float32))
        lines.append('%s\t%d' % (tmp_path / ('%d.png' % i), i % 2))
    (tmp_path / 'map.txt').write_text('\n'.join(lines) + '\n')
    write_mean_xml(tmp_path / 'small.xml', np.full((3, 8, 8), 100.0))
    write_mean_xml(tmp_path / 'same.xml', np.full((3, 10, 12), 100.0))

    def read_all(mean_file):
        src = MinibatchSource(ImageDeserializer(str(tmp_path / 'map.txt'), StreamDefs(
            image=StreamDef(field='image', transforms=[xforms.mean(str(mean_file))]))),
            randomize=False, max_sweeps=1)
        return src.next_minibatch(4)[src['image']].asarray()[:, 0]

    capfd.readouterr()
    images = read_all(tmp_path / 'small.xml')
    err = capfd.readouterr().err
    assert np.array_equal(images, np.stack(originals))
    warning = ("WARNING: Mean file does not match the size of the input image, will be ignored.\n"
               "Please remove mean transformation from the config.\n")
    assert err == warning * 4
    images = read_all(tmp_path / 'same.xml')
    assert capfd.readouterr().err == ''
    assert np.array_equal(images, np.stack(originals) - 100.0)


def test_missing_image_and_bad_label(tmp_path):
    (tmp_path / 'map.txt').write_text('nothere.png\t0\n')
    d = ImageDeserializer(str(tmp_path / 'map.txt'), StreamDefs(
        image=StreamDef(field='image', transforms=[xforms.scale(width=4, height=4, channels=3)])))
    with pytest.raises(IOError, match="cannot read image 'nothere.png' \\(sequence 0\\)"):
        MinibatchSource(d).next_minibatch(1)
    (tmp_path / 'map2.txt').write_text('a.png\t9\n')
    with pytest.raises(RuntimeError, match="Image 'a.png' has invalid class id '9'. It is exceeding the label "
                                           "dimension of '3'. Line 0 in file .*map2.txt."):
        MinibatchSource(ImageDeserializer(str(tmp_path / 'map2.txt'), StreamDefs(
            image=StreamDef(field='image'), label=StreamDef(field='label', shape=3))))


def write_htk(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('>iihh', frames.shape[0], 100000, frames.shape[1] * 4, 9))
        f.write(frames.astype('>f4').tobytes())


def test_htk_features_with_context_and_mlf(tmp_path):
    feats = {'u1': np.arange(12, dtype=np.float32).reshape(4, 3), 'u2': np.ones((2, 3), np.float32)}
    for k, v in feats.items():
        write_htk(str(tmp_path / (k + '.fea')), v)
    # keys as CNTK reads them: the logical name up to its last '.', folders kept ("*/" dropped in the MLF)
    (tmp_path / 'f.scp').write_text('u1=%s\nAn4/7/u2.mfc=%s\n' % (tmp_path / 'u1.fea', tmp_path / 'u2.fea'))
    (tmp_path / 'labels.txt').write_text('sil\nah\n')
    (tmp_path / 'l.mlf').write_text('#!MLF!#\n"*/u1.lab"\n0 200000 sil\n200000 400000 ah\n.\n'
                                    '"An4/7/u2.lab"\n0 200000 ah\n.\n')
    src = MinibatchSource([
        HTKFeatureDeserializer(StreamDefs(f=StreamDef(shape=3, context=(1, 1), scp=str(tmp_path / 'f.scp')))),
        HTKMLFDeserializer(str(tmp_path / 'labels.txt'), StreamDefs(l=StreamDef(shape=2, mlf=str(tmp_path / 'l.mlf'))))],
        randomize=False, max_sweeps=1)
    mb = src.next_minibatch(100)
    f = mb[src['f']].as_sequences()
    assert f[0].shape == (4, 9) and np.array_equal(f[0][0], [0, 1, 2, 0, 1, 2, 3, 4, 5])
    assert [s.toarray().argmax(1).tolist() for s in mb[src['l']].as_sequences(sequence.input_variable(src['l'].shape, is_sparse=True))] == \
        [[0, 0, 1, 1], [1, 1]]
    write_htk(str(tmp_path / 'u2.fea'), np.ones((2, 3), np.float32))
    with open(str(tmp_path / 'u2.fea'), 'r+b') as fh:
        fh.truncate(20)
    src = MinibatchSource(HTKFeatureDeserializer(StreamDefs(f=StreamDef(shape=3, scp=str(tmp_path / 'f.scp')))),
                          randomize=False)
    with pytest.raises(IOError, match="u2.fea' is truncated: 2 frames of 12 bytes need 36 bytes, found 20"):
        src.next_minibatch(100)


def write_cbf(path, seqs_x, seqs_y, dim_x, dim_y):
    out = bytearray(struct.pack('<QI', 0x636e746b5f62696e, 1))
    offset = len(out)
    out += struct.pack('<%dI' % len(seqs_x), *[max(len(a), len(b)) for a, b in zip(seqs_x, seqs_y)])
    for s in seqs_x:   # dense
        out += struct.pack('<I', len(s)) + np.asarray(s, '<f4').tobytes()
    for s in seqs_y:   # sparse: list of {index: value}
        vals = [v for sample in s for v in sample.values()]
        idx = [k for sample in s for k in sample]
        out += struct.pack('<Ii', len(s), len(vals)) + np.array(vals, '<f4').tobytes()
        out += np.array(idx, '<i4').tobytes() + np.array([len(x) for x in s], '<i4').tobytes()
    header = len(out)
    out += struct.pack('<QII', 0x636e746b5f62696e, 1, 2)
    for storage, name, dim in ((0, b'x', dim_x), (1, b'y', dim_y)):
        out += struct.pack('<BI', storage, len(name)) + name + struct.pack('<BI', 0, dim)
    out += struct.pack('<qII', offset, len(seqs_x), sum(len(s) for s in seqs_x)) + struct.pack('<q', header)
    with open(path, 'wb') as f:
        f.write(bytes(out))


def test_cbf_round_trip_and_truncation(tmp_path):
    xs = [np.array([[1, 2], [3, 4]]), np.array([[5, 6]])]
    ys = [[{3: 1.0}, {0: 2.0, 4: 0.5}], [{1: 1.0}]]
    path = str(tmp_path / 'd.cbf')
    write_cbf(path, xs, ys, 2, 5)
    src = MinibatchSource(CBFDeserializer(path, StreamDefs(feat=StreamDef(field='x', shape=2),
                                                           lab=StreamDef(field='y', shape=5, is_sparse=True))),
                          randomize=False, max_sweeps=1)
    mb = src.next_minibatch(10)
    assert [s.tolist() for s in mb[src['feat']].as_sequences()] == [[[1, 2], [3, 4]], [[5, 6]]]
    assert mb[src['lab']].as_sequences(sequence.input_variable(5, is_sparse=True))[0].toarray().tolist() == [[0, 0, 0, 1, 0], [2, 0, 0, 0, 0.5]]
    assert sorted(si.m_name for si in MinibatchSource(CBFDeserializer(path)).stream_infos()) == ['x', 'y']
    data = open(path, 'rb').read()
    with open(path, 'wb') as f:
        f.write(data[:30] + data[-60:])
    with pytest.raises(IOError, match='d.cbf'):
        MinibatchSource(CBFDeserializer(path), randomize=False).next_minibatch(10)


class Gen(UserDeserializer):
    def __init__(self, n_chunks):
        self._infos = [StreamInformation('x', 0, 'dense', np.float32, (2,)),
                       StreamInformation('y', 1, 'sparse', np.float32, (3,))]
        self.n = n_chunks

    def stream_infos(self):
        return self._infos

    def num_chunks(self):
        return self.n

    def get_chunk(self, chunk_id):
        return {'x': np.full((5, 2), chunk_id, np.float32),
                'y': sp.csr_matrix(np.full((5, 3), chunk_id, np.float32))}


def test_user_deserializer_checkpointing():
    src = MinibatchSource([Gen(6)], randomization_window_in_chunks=2, max_sweeps=2)
    counts = np.zeros(6, int)
    for i in range(100):
        if i == 3:
            state = src.get_checkpoint_state()
            src.next_minibatch(7)
            src.restore_from_checkpoint(state)
        mb = src.next_minibatch(7)
        if not mb:
            break
        counts += np.bincount(mb[src['x']].asarray()[:, 0, 0].astype(int), minlength=6)
        assert np.array_equal(mb[src['y']].asarray()[:, 0, 0], mb[src['x']].asarray()[:, 0, 0])
    assert counts.tolist() == [10] * 6


def test_minibatch_source_from_data_and_user_source():
    X = np.arange(15, dtype=np.float32).reshape(5, 3)
    s = MinibatchSourceFromData(dict(x=X), max_samples=5)
    assert s.next_minibatch(3)[s.streams['x']].asarray().tolist() == X[:3].tolist()
    mb = s.next_minibatch(3)[s.streams['x']]
    assert mb.asarray().tolist() == X[3:].tolist() and mb.end_of_sweep
    assert s.next_minibatch(3) == {}

    class Mine(UserMinibatchSource):
        def __init__(self):
            self.si = StreamInformation('f', 0, 'dense', np.float32, (2,))
            super(Mine, self).__init__()

        def stream_infos(self):
            return [self.si]

        def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
            from cntk_compat.core.value import Value
            return {self.si: MinibatchData(Value(batch=np.ones((num_samples, 2), np.float32)), num_samples,
                                           num_samples, False)}
    m = Mine()
    assert m.next_minibatch(4)[m['f']].shape == (4, 2)
    with pytest.raises(NotImplementedError):
        m.restore_from_checkpoint({'a': 1})


def test_a_missing_or_unnamed_reader_file_raises_cntks_errors(tmp_path):
    # CNTK 2.7: an empty file name is a ValueError, a missing file a RuntimeError (here an IOError as well)
    with pytest.raises(ValueError, match="No value given for 'file'"):
        CTFDeserializer("", streams={})
    for make in (lambda f: CTFDeserializer(f, streams={}),
                 lambda f: CBFDeserializer(f, streams={})):
        with pytest.raises(RuntimeError, match="does not exist") as e:
            make(str(tmp_path / "nothere.ctf"))
        assert isinstance(e.value, IOError)
