import warnings

import numpy as np
import pytest
from cntk import sequence

from cntk.io import (CTFDeserializer, FULL_DATA_SWEEP, INFINITELY_REPEAT, MinibatchSource, StreamDef,
                     StreamDefs)

DENSE = '''0  |S0 0   |S1 0
0   |S0 1   |S1 1
0   |S0 2
0   |S0 3   |S1 3
1   |S0 4
1   |S0 5   |S1 1
1   |S0 6   |S1 2
'''

SPARSE = '''0\t|x 560:1\t|y 1 0 0 0 0
0\t|x 0:1
0\t|x 0:1
1\t|x 560:1\t|y 0 1 0 0 0 |# a comment |# with an escaped pipe
1\t|x 0:1
1\t|x 0:1
1\t|x 424:1
'''


def write(tmp_path, text, name='data.ctf'):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def dense_source(tmp_path, **kw):
    return MinibatchSource(CTFDeserializer(write(tmp_path, DENSE), StreamDefs(
        features=StreamDef(field='S0', shape=1), labels=StreamDef(field='S1', shape=1))), **kw)


def test_dense_sequences_keep_lengths(tmp_path):
    src = dense_source(tmp_path, randomize=False, max_sweeps=1)
    mb = src.next_minibatch(1000)
    f, l = mb[src['features']], mb[src['labels']]
    assert f.num_sequences == 2 and f.num_samples == 7 and f.end_of_sweep
    assert [s.ravel().tolist() for s in f.as_sequences()] == [[0, 1, 2, 3], [4, 5, 6]]
    assert [s.ravel().tolist() for s in l.as_sequences()] == [[0, 1, 3], [1, 2]]
    assert np.array_equal(f.mask, [[2, 1, 1, 1], [2, 1, 1, 0]])
    assert f.shape == (2, 4, 1)
    assert src.next_minibatch(10) == {}


def test_sparse_and_comments(tmp_path):
    src = MinibatchSource(CTFDeserializer(write(tmp_path, SPARSE), StreamDefs(
        features=StreamDef(field='x', shape=1000, is_sparse=True),
        labels=StreamDef(field='y', shape=5))), randomize=False)
    mb = src.next_minibatch(7)
    f, l = mb[src.streams.features], mb[src.streams.labels]
    assert f.is_sparse and not l.is_sparse
    assert f.shape == (2, 4, 1000) and f.num_samples == 7
    seqs = f.as_sequences(sequence.input_variable(1000, is_sparse=True))   # CNTK reads sparse data for a variable
    assert [list(s.indices) for s in seqs] == [[560, 0, 0], [560, 0, 0, 424]]
    assert np.allclose(l.asarray(), [[[1, 0, 0, 0, 0]], [[0, 1, 0, 0, 0]]])
    mb = src.next_minibatch(1)
    assert mb[src.streams.features].num_samples == 3 and not mb[src.streams.features].end_of_sweep


def test_no_ids_lines_are_sequences_and_missing_streams(tmp_path):
    text = '|a 1 2 |b 3\n|a 4 5\n|b 6 |a 7 8\n'
    with pytest.raises(ValueError, match=r"data.ctf:2: sequence 1 has no sample for input 'b'"):
        src = MinibatchSource(CTFDeserializer(write(tmp_path, text), StreamDefs(
            a=StreamDef(field='a', shape=2), b=StreamDef(field='b', shape=1))), randomize=False)
        src.next_minibatch(10)
    src = MinibatchSource(CTFDeserializer(write(tmp_path, text), StreamDefs(
        a=StreamDef(field='a', shape=2))), randomize=False, max_sweeps=1)
    with pytest.warns(UserWarning, match="input 'b' is not one of the configured streams"):
        mb = src.next_minibatch(10)
    assert mb[src['a']].asarray().reshape(-1, 2).tolist() == [[1, 2], [4, 5], [7, 8]]


@pytest.mark.parametrize('text, message', [
    ('|a 1 2\n|a 1 x\n', r"data.ctf:2: cannot parse 'x' as a number"),
    ('|a 1 2\n|a 1 2 3\n', r"data.ctf:2: input 'a' expects 2 values per sample, found 3"),
    ('|a 1 2\nhello\n', r"data.ctf:2: malformed line"),
    ('|s 1:1 7:2\n', r"data.ctf:1: sparse index 7 of input 's' is outside \[0, 5\)"),
    ('|s 1:1 2\n', r"data.ctf:1: input 's' is sparse: expected 'index:value' pairs"),
    ('x |a 1 2\n', r"data.ctf:1: expected an unsigned 64-bit integer sequence id"),
])
def test_errors_name_file_and_line(tmp_path, text, message):
    src = MinibatchSource(CTFDeserializer(write(tmp_path, text), StreamDefs(
        a=StreamDef(field='a', shape=2) if '|a' in text else StreamDef(field='s', shape=5, is_sparse=True))),
        randomize=False)
    with pytest.raises(ValueError, match=message):
        src.next_minibatch(10)


def test_line_numbers_are_exact_whatever_order_chunks_are_read_in(tmp_path):
    lines = ['|a %d %d\n' % (k, -k) for k in range(3000)]
    lines[2500] = '|a 1 oops\n'
    d = CTFDeserializer(write(tmp_path, ''.join(lines)), StreamDefs(a=StreamDef(field='a', shape=2)))
    d['chunkSizeInBytes'] = 2000
    assert d.num_chunks() > 10
    late = next(k for k in range(d.num_chunks()) if d._get_index().offsets[k + 1] > len(''.join(lines[:2000])))
    chunk = d.chunk(late, 0)                        # read before any chunk in front of it
    np.testing.assert_array_equal(chunk.keys, chunk.streams['a'].rows[:, 0])   # line-number keys of id-less lines
    src = MinibatchSource(d, randomize=True, max_sweeps=1)
    with pytest.raises(ValueError, match=r"data.ctf:2501: cannot parse 'oops' as a number"):
        while src.next_minibatch(100):
            pass


def test_read_ahead_hints_never_change_what_a_chunk_holds(tmp_path):
    d = CTFDeserializer(write(tmp_path, ''.join('%d |a %d\n' % (k, k) for k in range(2000))),
                        StreamDefs(a=StreamDef(field='a', shape=1)))
    d['chunkSizeInBytes'] = 1000
    expected = [d.chunk(k, 0).keys.tolist() for k in range(d.num_chunks())]
    for wanted, hint in [(1, 3), (2, 2), (4, 5), (5, 0), (0, None), (3, 4), (4, 1)]:   # followed, ignored, stale
        if hint is not None:
            d.read_ahead(hint)
        chunk = d.chunk(wanted, 0)
        assert chunk.keys.tolist() == expected[wanted]
        assert chunk.streams['a'].rows.ravel().tolist() == expected[wanted]


def test_unknown_input_warns_and_unknown_stream_raises(tmp_path):
    src = MinibatchSource(CTFDeserializer(write(tmp_path, '|a 1 |zz 3\n'), StreamDefs(
        a=StreamDef(field='a', shape=1))), randomize=False)
    with pytest.warns(UserWarning, match="input 'zz' is not one of the configured streams"):
        src.next_minibatch(1)
    with pytest.raises(RuntimeError, match="No stream found matching given name 'nope'"):
        src['nope']


def test_number_formats(tmp_path):
    vals = ['-1.5', '+2', '3e2', '1E-3', '0.5', '7.', '-0.000125', '1E+2', '00.1', '123456789.125']
    src = MinibatchSource(CTFDeserializer(write(tmp_path, '|a ' + ' '.join(vals) + '\n'), StreamDefs(
        a=StreamDef(field='a', shape=len(vals)))), randomize=False)
    got = src.next_minibatch(1)[src['a']].asarray().ravel()
    assert np.array_equal(got, np.array(vals, dtype=np.float32))


def test_max_samples_sweeps_and_end_of_sweep(tmp_path):
    p = write(tmp_path, '|S0 1\n|S0 2\n|S0 3\n|S0 4')
    d = CTFDeserializer(p, StreamDefs(features=StreamDef(field='S0', shape=1)))
    src = MinibatchSource(d, max_sweeps=3)
    sizes = []
    while True:
        mb = src.next_minibatch(5, {'f': src['features']})
        if not mb:
            break
        sizes.append((mb['f'].num_samples, mb['f'].end_of_sweep))
    assert sizes == [(5, True), (5, True), (2, True)]
    src = MinibatchSource(d, max_samples=11)
    assert [src.next_minibatch(5)[src['features']].num_samples for _ in range(3)] == [5, 5, 1]
    assert MinibatchSource(d, max_samples=FULL_DATA_SWEEP).next_minibatch(100)[src['features']].num_samples == 4
    with pytest.raises(ValueError, match='mutually exclusive'):
        MinibatchSource(d, max_samples=3, max_sweeps=2)


def test_random_seed_per_sweep(tmp_path):
    p = write(tmp_path, '|S0 1\n|S0 2\n|S0 3\n|S0 4')
    d = CTFDeserializer(p, StreamDefs(features=StreamDef(field='S0', shape=1)))
    runs = []
    for seed in (0, 123, 0, 1):
        src = MinibatchSource(d, randomization_seed=seed)
        runs.append(src.next_minibatch(100)[src['features']].asarray().ravel())
    assert not np.array_equal(runs[0], runs[1])
    assert np.array_equal(runs[0], runs[2])
    assert np.array_equal(runs[0][4:], runs[3][:-4])
    assert sorted(runs[0][:4]) == [1, 2, 3, 4]


def test_defines_mb_size(tmp_path):
    src = MinibatchSource(CTFDeserializer(write(tmp_path, SPARSE), StreamDefs(
        features=StreamDef(field='x', shape=1000, is_sparse=True),
        labels=StreamDef(field='y', shape=5, defines_mb_size=True))), randomize=False)
    mb = src.next_minibatch(2)
    assert mb[src['features']].num_samples == 7 and mb[src['labels']].num_samples == 2
    mb = src.next_minibatch(3)
    assert mb[src['features']].num_samples == 10 and mb[src['labels']].num_samples == 3


def test_composition_by_sequence_id(tmp_path):
    a = write(tmp_path, '0 |x 1\n0 |x 2\n1 |x 3\n', 'a.ctf')
    b = write(tmp_path, '1 |y 30\n0 |y 10\n', 'b.ctf')
    src = MinibatchSource([CTFDeserializer(a, StreamDefs(x=StreamDef(field='x', shape=1))),
                           CTFDeserializer(b, StreamDefs(y=StreamDef(field='y', shape=1)))],
                          randomize=False, max_sweeps=1)
    mb = src.next_minibatch(10)
    assert [s.ravel().tolist() for s in mb[src['x']].as_sequences()] == [[1, 2], [3]]
    assert [s.ravel().tolist() for s in mb[src['y']].as_sequences()] == [[10], [30]]


def test_max_errors_skips_that_many_malformed_lines_with_a_warning(tmp_path):
    path = write(tmp_path, '|a 1 2\n|a 3 x\n|a 5 6\n|a 7 8 9\n|a 9 10\n')
    streams = StreamDefs(a=StreamDef(field='a', shape=2))
    src = MinibatchSource(CTFDeserializer(path, streams), randomize=False, max_errors=2, max_sweeps=2)
    with pytest.warns(UserWarning) as caught:
        first = src.next_minibatch(3)[src['a']].asarray().reshape(-1, 2).tolist()
        second = src.next_minibatch(3)[src['a']].asarray().reshape(-1, 2).tolist()
    assert first == [[1, 2], [5, 6], [9, 10]] and second == first     # the second sweep skips them again
    messages = [str(w.message) for w in caught]
    assert any("data.ctf:2: cannot parse 'x' as a number" in m and '1 of at most 2' in m for m in messages)
    assert any("data.ctf:4: input 'a' expects 2 values per sample, found 3" in m for m in messages)
    with pytest.raises(ValueError, match="data.ctf:4: input 'a' expects 2 values"), \
            pytest.warns(UserWarning, match='data.ctf:2'):
        MinibatchSource(CTFDeserializer(path, streams), randomize=False, max_errors=1).next_minibatch(3)


def test_a_dense_sample_with_fewer_values_is_filled_with_zeros(tmp_path):
    # CNTK 2.7 warns of a "sparse suffix" and reads the missing values as 0 (an empty field: a sample of zeros)
    path = write(tmp_path, '0 |x 1 2 |y 1\n0 |x 3\n1 |x 5 6 7 |y 2\n1 |x\n2 |y 3 |x 8 9 10\n')
    src = MinibatchSource(CTFDeserializer(path, StreamDefs(x=StreamDef(field='x', shape=3),
                                                           y=StreamDef(field='y', shape=1))),
                          randomize=False, max_sweeps=1)
    with pytest.warns(UserWarning, match="data.ctf:1: a dense sample of input 'x' has a sparse suffix"):
        mb = src.next_minibatch(7)
    assert [q.tolist() for q in mb[src['x']].as_sequences()] == \
        [[[1, 2, 0], [3, 0, 0]], [[5, 6, 7], [0, 0, 0]], [[8, 9, 10]]]
